#!/usr/bin/env bash
# fetch_cuda12_headers.sh - the CUDA 12.x runtime headers (cuda_runtime_api.h,
# driver_types.h with the 12.x cudaDeviceProp, ...), for building programs
# against the CUDA 12 ABI (tests/symbols/test_abi12.sh, the 12.x
# cudaDeviceProp conversion).  The toolkit here is 13.x; the headers come
# from PyPI's nvidia-cuda-runtime-cu12 wheel.
#
#   scripts/fetch_cuda12_headers.sh        -> prints the directory holding include/
#
# Downloads once into ${TORCHFL_CUDA12_DIR:-~/.cache/torchfl/cuda12} and
# reuses it afterwards.  Needs pip, unzip and PyPI (first run only).
set -euo pipefail

DEST=${TORCHFL_CUDA12_DIR:-${HOME:-/root}/.cache/torchfl/cuda12}
PKG=${CUDART12:-nvidia-cuda-runtime-cu12==12.9.79}

if [ -f "$DEST/include/cuda_runtime_api.h" ] && [ -f "$DEST/include/driver_types.h" ]; then
    echo "$DEST"
    exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! pip download --quiet --no-deps -d "$TMP/whl" "$PKG" >&2; then
    echo "fetch_cuda12_headers.sh: cannot download $PKG from PyPI" >&2
    exit 1
fi
unzip -q -o "$TMP"/whl/*.whl 'nvidia/cuda_runtime/include/*' -d "$TMP/x"
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST.tmp.$$"
mkdir -p "$DEST.tmp.$$"
mv "$TMP/x/nvidia/cuda_runtime/include" "$DEST.tmp.$$/include"
echo "$PKG" > "$DEST.tmp.$$/SOURCE"
rm -rf "$DEST"
mv "$DEST.tmp.$$" "$DEST"
echo "$DEST"
