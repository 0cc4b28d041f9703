#!/usr/bin/env bash
# Creates (or reuses) the virtualenv with the real PyTorch CUDA wheel that the
# PyTorch-side checks (tests/pytorch, examples/) run against, and prints its path.
#
# The wheel is the ordinary PyPI one: on Linux x86-64 `pip install torch==2.15.0`
# resolves to its default CUDA build (2.15.0+cu132; 2.11-2.14 are +cu130) and
# pulls its nvidia-* packages, which is exactly what an unmodified user has.
# Reuse is decided by asking the venv's own Python for torch's version,
# without importing torch (importing it takes seconds and loads CUDA
# libraries), so a second run is fast.
#
#   scripts/setup_venv.sh              the newest validated release
#   scripts/setup_venv.sh oldest       the oldest validated release
#   scripts/setup_venv.sh 2.13.0       that release
#
# The validated releases are listed in scripts/torch-releases.txt.
#
# Environment:
#   TORCHFL_VENV   venv directory (default $HOME/.cache/torchfl/venv-torch-<version>)
#   TORCHFL_TORCH  torch version to install (the argument wins)
#   PYTHON         interpreter used to create the venv (default python3)
set -euo pipefail

releases() { grep -E '^[0-9]' "$(dirname "$0")/torch-releases.txt"; }
case "${1:-${TORCHFL_TORCH:-newest}}" in
    newest) torch_version=$(releases | head -1) ;;
    oldest) torch_version=$(releases | tail -1) ;;
    *)      torch_version=${1:-$TORCHFL_TORCH} ;;
esac
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
    # expecttest: PyTorch's OpInfo database (scripts/opinfo.py) imports it
    [ -n "$(installed_version numpy)" ] && [ -n "$(installed_version pytest)" ] &&
        [ -n "$(installed_version expecttest)" ]
}

if ! wanted_ok; then
    if [ ! -x "$venv/bin/python" ]; then
        mkdir -p "$(dirname "$venv")"
        "$python" -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "torch==${torch_version}" numpy pytest expecttest >&2
    if ! wanted_ok; then
        echo "setup_venv.sh: torch==${torch_version} is not usable in $venv after installing" >&2
        exit 1
    fi
fi

echo "$venv"
