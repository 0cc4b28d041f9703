#!/usr/bin/env bash
# setup.sh - install what building and testing torchfl needs, when missing.
#
#   Debian packages: compilers and libraries the build links (libelf, uthash,
#     OpenBLAS, zstd, lz4, Gloo for the host backend's collectives), cmake,
#     pkg-config, and an OpenCL ICD (PoCL) so `torchfl detect` can probe
#     OpenCL.
#   ~/.cache/torchfl/cuda12: the CUDA 12 runtime headers (CUDA 12 ABI).
#   ~/.cache/torchfl/venv-torch-2.11.0: PyTorch for the PyTorch tests
#     (scripts/setup_venv.sh), when that script is present.
# Idempotent and quiet when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS="build-essential cmake pkg-config libelf-dev uthash-dev libopenblas-dev
      libzstd-dev liblz4-dev libcjson-dev libgloo-dev gfortran python3 python3-venv unzip ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers libclblast-dev
      pocl-opencl-icd clang"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing" >&2
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

bash scripts/fetch_cuda12_headers.sh >/dev/null

if [ -f scripts/setup_venv.sh ] && [ "${TORCHFL_NO_VENV:-0}" != 1 ]; then
    bash scripts/setup_venv.sh >/dev/null
fi
