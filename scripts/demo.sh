#!/usr/bin/env bash
# demo.sh - the main job: build everything (installing what is missing) and
# run an ordinary CUDA training program of examples/ on the host backend.
#
#   scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TORCHFL_NO_VENV=${TORCHFL_NO_VENV:-1} bash scripts/setup.sh
JOBS=$(nproc 2>/dev/null || echo 2)
mkdir -p build
cmake -S . -B build >build/configure.log 2>&1 || { tail -40 build/configure.log; exit 1; }
cmake --build build -j"$JOBS" >build/build.log 2>&1 ||
    { grep -E "error|Error" -A5 build/build.log | head -60; exit 1; }
echo "+ build/torchfl run --backend host -- build/tests/cuda/logreg_train"
exec build/torchfl run --backend host -- build/tests/cuda/logreg_train
