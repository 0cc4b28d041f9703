#!/usr/bin/env bash
# test.sh - build everything and run the whole test suite (what CI runs).
#
#   scripts/test.sh            setup, configure (-Werror), build, ctest,
#                              then the PyTorch tests when the venv exists
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
JOBS=$(nproc 2>/dev/null || echo 2)
mkdir -p build
cmake -S . -B build -DTORCHFL_WERROR=ON >build/configure.log 2>&1 ||
    { tail -40 build/configure.log; exit 1; }
cmake --build build -j"$JOBS" >build/build.log 2>&1 ||
    { grep -E "error|Error" -A5 build/build.log | head -60; exit 1; }
ctest --test-dir build --output-on-failure -j"$JOBS" --timeout 900

# PyTorch side: the wheel's imports vs libtorchfl.so's exports, kernel
# layouts, and the example training scripts on cuda under torchfl against
# the same scripts on the CPU.
VENV=$(bash scripts/setup_venv.sh)
"$VENV/bin/python" -m pytest -q tests/pytorch --ignore=tests/pytorch/cuda

# PyTorch's CUDA path, under torchfl, compared with PyTorch on the CPU.
build/torchfl run -- "$VENV/bin/python" -m pytest -q tests/pytorch/cuda
