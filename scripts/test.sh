#!/usr/bin/env bash
# test.sh - build everything and run the whole test suite (what CI runs).
#
#   scripts/test.sh            setup, configure (-Werror), build, ctest,
#                              then the PyTorch tests on the newest and
#                              oldest validated torch (scripts/test_torch.sh)
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

# PyTorch side (scripts/test_torch.sh): the whole suite on the newest
# validated torch release, and the wheel checks (imports, kernel layouts,
# fallback policy) and examples on the oldest (scripts/torch-releases.txt).
bash scripts/test_torch.sh newest
bash scripts/test_torch.sh oldest --quick
