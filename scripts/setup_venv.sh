#!/usr/bin/env bash
# Creates (or reuses) the virtualenv with the real PyTorch CUDA wheel that the
# PyTorch-side checks (tests/pytorch, examples/) run against, and prints its path.
#
# The wheel is the ordinary PyPI one: on Linux x86-64 `pip install torch==2.11.0`
# resolves to the CUDA 13.0 build (2.11.0+cu130) and pulls its nvidia-* packages,
# which is exactly what an unmodified user has. Reuse is decided by asking the
# venv's own Python for torch's version, without importing torch (importing it
# takes seconds and loads CUDA libraries), so a second run is fast.
#
# Environment:
#   TORCHFL_VENV   venv directory (default $HOME/.cache/torchfl/venv-torch-2.11.0)
#   TORCHFL_TORCH  torch version to install (default 2.11.0)
#   PYTHON         interpreter used to create the venv (default python3)
set -euo pipefail

torch_version="${TORCHFL_TORCH:-2.11.0}"
venv="${TORCHFL_VENV:-$HOME/.cache/torchfl/venv-torch-${torch_version}}"
python="${PYTHON:-python3}"

# Prints the installed version of a distribution in the venv, or nothing.
installed_version() {
    "$venv/bin/python" - "$1" 2>/dev/null <<'PY' || true
import sys
from importlib import metadata
try:
    print(metadata.version(sys.argv[1]))
except metadata.PackageNotFoundError:
    pass
PY
}

wanted_ok() {
    [ -x "$venv/bin/python" ] || return 1
    local tv
    tv="$(installed_version torch)"
    # PyPI's Linux wheel reports a plain version ("2.11.0"); a local build or
    # another index may add "+cuXXX". Accept both, reject anything else.
    case "$tv" in
        "$torch_version"|"$torch_version"+*) ;;
        *) return 1 ;;
    esac
    [ -n "$(installed_version numpy)" ] && [ -n "$(installed_version pytest)" ]
}

if ! wanted_ok; then
    if [ ! -x "$venv/bin/python" ]; then
        mkdir -p "$(dirname "$venv")"
        "$python" -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "torch==${torch_version}" numpy pytest >&2
    if ! wanted_ok; then
        echo "setup_venv.sh: torch==${torch_version} is not usable in $venv after installing" >&2
        exit 1
    fi
fi

echo "$venv"
