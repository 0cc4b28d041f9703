#!/usr/bin/env bash
# demo.sh - the main job: build everything (installing what is missing) and
# train examples/mlp_classifier.py, an ordinary CUDA PyTorch script, on the
# host backend through torchfl.
#
#   scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
JOBS=$(nproc 2>/dev/null || echo 2)
mkdir -p build
cmake -S . -B build >build/configure.log 2>&1 || { tail -40 build/configure.log; exit 1; }
cmake --build build -j"$JOBS" >build/build.log 2>&1 ||
    { grep -E "error|Error" -A5 build/build.log | head -60; exit 1; }
VENV=$(bash scripts/setup_venv.sh)
echo "+ build/torchfl run --backend host -- python examples/mlp_classifier.py"
exec build/torchfl run --backend host -- "$VENV/bin/python" examples/mlp_classifier.py "$@"
