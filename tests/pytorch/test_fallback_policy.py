"""The fallback policy on PyTorch's CUDA path under torchfl.

A kernel the op table does not map (a float16 cumsum's cub scan kernels,
today: the scan family maps float32/float64/int32/int64 only) is refused in
`strict` mode with a RuntimeError whose log line names it, and the process
goes on; in `warn` mode torchfl says once per kernel that it
falls back to the host executor (which cannot run the wheel's SASS-only
kernels, so the op still fails, clearly).  TORCH_FL_OP_BLACKLIST forces a
mapped op to the host executor.  Each case runs in its own preloaded
process.
"""
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, torchfl_lib

pytestmark = pytest.mark.torchfl_gpu

SCRIPT = r"""
import torch
x = torch.arange(10.).cuda()
h = torch.arange(10., dtype=torch.float16).cuda()
for i in range(2):
    try:
        torch.cumsum(h, 0).cpu()
        print("cumsum ok")
    except RuntimeError as e:
        print("cumsum raised", type(e).__name__)
try:
    print("mul", (x * 2).cpu().tolist())
except RuntimeError as e:
    print("mul raised", type(e).__name__)
"""


def run(env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    env["TORCHFL_CONFIG"] = "/dev/null"
    cmd = [os.path.join(REPO, "build", "torchfl"), "run", "--", sys.executable, "-c", SCRIPT]
    assert os.path.exists(torchfl_lib())
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout, p.stderr


def test_strict_refuses_unmapped_kernel_and_process_continues():
    out, err = run({"TORCH_FL_FALLBACK_MODE": "strict"})
    assert out.count("cumsum raised AcceleratorError") == 2, out
    assert "is not in the op table of backend host and fallback mode is strict" in err
    # names the kernel: one of the half-precision cub scan's launches (which
    # one fails first depends on which of its helper launches a family maps)
    assert re.search(r"kernel _Z\S*DeviceScan\S*Kernel\S*Half\S* is not in the op table", err), err
    assert "mul [0.0, 2.0, 4.0" in out                   # later work still runs


def test_warn_warns_once_per_kernel():
    out, err = run({"TORCH_FL_FALLBACK_MODE": "warn"})
    assert out.count("cumsum raised") == 2, out
    warns = [l for l in err.splitlines() if "not in the op table; running its PTX" in l]
    assert len(warns) == len(set(warns)) >= 1, err     # once per kernel
    assert "no PTX in this binary" in err               # why the fallback fails


def test_blacklist_forces_mapped_op_to_host_executor():
    out, err = run({"TORCH_FL_OP_BLACKLIST": "elementwise", "TORCH_FL_FALLBACK_MODE": "warn"})
    assert "mul raised AcceleratorError" in out         # x * 2 did not run natively
    assert "vectorized_elementwise_kernel" in err or "elementwise_kernel" in err
