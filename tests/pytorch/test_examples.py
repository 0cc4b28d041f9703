"""The example scripts on PyTorch's CUDA path under torchfl match the CPU.

For each script in examples/, 20 training steps run twice from the same seed:
on "cuda" with build/libtorchfl.so preloaded (so every CUDA call PyTorch makes
goes to torchfl), and on "cpu" with plain PyTorch. The scripts make their data
and initial weights on the CPU and copy them to the device, so both runs start
from identical numbers; every step's loss must agree within 1e-4 relative
(fp32; TF32 is off by default for matmul and unused elsewhere here).

Each script runs on two backends: the host (device memory is host memory,
ops run synchronously) and OpenCL (FL_BACKEND=opencl, on PoCL's CPU device
here: device memory the host cannot address, asynchronous queues), the
latter in strict fallback mode: every op of the examples runs natively on
the OpenCL device.

Needs a built torchfl (marked `torchfl_gpu`); scripts/test.sh runs it:
    $(scripts/setup_venv.sh)/bin/python -m pytest -m torchfl_gpu tests/pytorch/test_examples.py
"""
import math
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, torchfl_lib

pytestmark = pytest.mark.torchfl_gpu

STEPS = 20
RTOL = 1e-4
EXAMPLES = ["mlp_classifier.py", "gpt_tiny.py", "cnn_classifier.py"]
STEP_LINE = re.compile(r"^step\s+(\d+)\s+loss\s+(\S+)$", re.M)


def run_example(script, device, preload, backend="host"):
    env = dict(os.environ)
    env["FL_BACKEND"] = backend
    if backend == "opencl":
        # every op of the examples runs on the device: no fallback allowed
        env["TORCH_FL_FALLBACK_MODE"] = "strict"
    if preload:
        lib = torchfl_lib()
        if not os.path.exists(lib):
            pytest.fail(f"{lib} does not exist: build torchfl first or set TORCHFL_LIB")
        env["LD_PRELOAD"] = lib + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
        libdir = os.path.dirname(os.path.abspath(lib))  # libcuda.so.1 alias lives next to it
        env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    else:
        env.pop("LD_PRELOAD", None)
    cmd = [sys.executable, os.path.join(REPO, "examples", script), "--device", device,
           "--steps", str(STEPS), "--seed", "0", "--log-every", "1"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, (f"{' '.join(cmd)} (preload={preload}) exited {p.returncode}\n"
                               f"--- stdout\n{p.stdout[-4000:]}\n--- stderr\n{p.stderr[-4000:]}")
    losses = {int(s): float(v) for s, v in STEP_LINE.findall(p.stdout)}
    assert sorted(losses) == list(range(1, STEPS + 1)), f"missing step lines in:\n{p.stdout}"
    return [losses[i] for i in range(1, STEPS + 1)]


_CPU = {}


def cpu_losses(script):
    if script not in _CPU:
        _CPU[script] = run_example(script, "cpu", preload=False)
    return _CPU[script]


@pytest.mark.parametrize("backend", ["host", "opencl"])
@pytest.mark.parametrize("script", EXAMPLES)
def test_cuda_under_torchfl_matches_cpu(script, backend):
    if backend == "opencl":
        plugin = os.path.join(os.path.dirname(os.path.abspath(torchfl_lib())),
                              "libtorchfl-opencl.so")
        assert os.path.exists(plugin), f"{plugin} missing: scripts/setup.sh installs CLBlast and OpenCL"
    cpu = cpu_losses(script)
    cuda = run_example(script, "cuda", preload=True, backend=backend)
    assert all(math.isfinite(v) for v in cpu + cuda)
    assert cpu[-1] < cpu[0], "the CPU reference run did not learn"
    bad = [(i + 1, c, g) for i, (c, g) in enumerate(zip(cpu, cuda))
           if abs(g - c) > RTOL * abs(c)]
    assert not bad, "\n".join(f"step {s}: cpu {c:.9g}  cuda/torchfl {g:.9g}  rel {abs(g - c) / abs(c):.2e}"
                              for s, c, g in bad)
