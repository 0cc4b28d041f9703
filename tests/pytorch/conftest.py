"""Shared setup for the PyTorch-side tests (run with the venv from scripts/setup_venv.sh:
`$(scripts/setup_venv.sh)/bin/python -m pytest tests/pytorch`)."""
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "torchfl_gpu: runs PyTorch's CUDA path under the torchfl preload and compares with CPU "
        "(needs a built build/libtorchfl.so)")


def torchfl_lib():
    """build/libtorchfl.so, or $TORCHFL_LIB."""
    return os.environ.get("TORCHFL_LIB") or os.path.join(REPO, "build", "libtorchfl.so")


@pytest.fixture(scope="session")
def repo_root():
    return REPO
