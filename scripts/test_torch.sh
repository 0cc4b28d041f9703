#!/usr/bin/env bash
# test_torch.sh - the PyTorch side of the test suite against one torch release.
#
#   scripts/test_torch.sh [newest|oldest|VERSION] [--quick] [-- PYTEST-ARGS...]
#
# Needs a built torchfl in build/ (scripts/test.sh builds it).  Makes or
# reuses that release's venv (scripts/setup_venv.sh; the validated releases
# are scripts/torch-releases.txt) and runs, with its Python:
#   1. tests/pytorch (host side): the wheel's imports and run-time lookups
#      against libtorchfl.so's exports, the op table's kernel layouts against
#      the wheel's own cubins (`torchfl wheel`), the fallback policy, and the
#      example training scripts on cuda under torchfl against the CPU;
#   2. unless --quick: tests/pytorch/cuda, PyTorch's CUDA path under torchfl
#      against PyTorch on the CPU (the op suite), on the host backend and
#      then on the OpenCL backend.
# Extra PYTEST-ARGS go to both pytest runs (e.g. -x, -k name).
set -euo pipefail
cd "$(dirname "$0")/.."

release=newest
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --) shift; break ;;
        -*) echo "test_torch.sh: unknown option $1" >&2; exit 2 ;;
        *) release=$1 ;;
    esac
    shift
done
[ -x build/torchfl ] && [ -f build/libtorchfl.so ] ||
    { echo "test_torch.sh: build/ has no torchfl: run scripts/test.sh or cmake first" >&2; exit 2; }

VENV=$(bash scripts/setup_venv.sh "$release")
PY=$VENV/bin/python
echo "== torch $("$PY" -c 'from importlib import metadata; print(metadata.version("torch"))') ($VENV)"
"$PY" -m pytest -q tests/pytorch --ignore=tests/pytorch/cuda "$@"
if [ "$quick" = 0 ]; then
    build/torchfl run -- "$PY" -m pytest -q tests/pytorch/cuda "$@"
    # 3. the op suite again on the OpenCL backend (PoCL's CPU device here):
    #    every op passes, natively on the device or through the fallback,
    #    and the share that ran natively is printed
    [ -f build/libtorchfl-opencl.so ] ||
        { echo "test_torch.sh: build/libtorchfl-opencl.so missing (scripts/setup.sh installs CLBlast and OpenCL)" >&2; exit 1; }
    stats=$(mktemp /tmp/torchfl-opencl-stats.XXXXXX)
    echo "== op suite on FL_BACKEND=opencl"
    FL_BACKEND=opencl TORCH_FL_FALLBACK_MODE=silent TORCHFL_STATS=$stats \
        build/torchfl run -- "$PY" -m pytest -q tests/pytorch/cuda "$@"
    build/torchfl stats "$stats" | sed -n 1,3p   # sed reads it all: no SIGPIPE under pipefail
    rm -f "$stats"
fi
