"""PyTorch's CUDA path under torchfl.

This directory is run in a process preloaded with libtorchfl.so:

    build/torchfl run -- python -m pytest tests/pytorch/cuda

(scripts/test.sh does that).  Every test compares what `cuda` gives under
torchfl with what PyTorch gives on `cpu` — a reference that cannot share
torchfl's bugs.
"""
import os

import pytest
import torch


def pytest_sessionstart(session):
    preload = os.environ.get("LD_PRELOAD", "")
    if "libtorchfl" not in preload:
        raise pytest.UsageError("run this directory under torchfl: "
                                "build/torchfl run -- python -m pytest tests/pytorch/cuda")


@pytest.fixture(scope="session")
def cuda():
    assert torch.cuda.is_available(), "torch.cuda.is_available() is False under torchfl"
    return torch.device("cuda")
