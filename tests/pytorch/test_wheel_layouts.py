"""The op table against the installed wheel's own kernels (`torchfl wheel`).

Every kernel of the wheel's sm_80 cubins is offered to the op table; for each
one a family claims, the parameter layout its decoder reads must equal the
sizes and offsets the cubin records (.nv.info).  A release that changes a
kernel's signature fails here (and its launches are refused at run time)
instead of being decoded as garbage.  The ops the examples need must be
claimed and validated on every supported release, so a release that renames
or re-templates them fails here too.

Runs with the Python of the release under test (scripts/test_torch.sh):
    $(scripts/setup_venv.sh 2.13.0)/bin/python -m pytest tests/pytorch/test_wheel_layouts.py
"""
import collections
import json
import os
import subprocess
import sys
from importlib import metadata

import pytest

from conftest import REPO

TORCHFL = os.environ.get("TORCHFL_CLI") or os.path.join(REPO, "build", "torchfl")

# (family, op) the example scripts (MLP, tiny GPT, CNN) run natively on cuda
# (read off their TORCHFL_STATS; the library calls - GEMM, convolution, cuDNN
# batch norm - are not kernels): each must be claimed, with a validated
# layout, in every supported release.
EXAMPLE_OPS = [
    ("attention", "sdpa_forward"), ("attention", "sdpa_backward"),
    ("elementwise", "add"), ("elementwise", "arange"), ("elementwise", "clamp"),
    ("elementwise", "copy"), ("elementwise", "eq/ne"), ("elementwise", "fill"),
    ("elementwise", "gelu"), ("elementwise", "gelu_backward"), ("elementwise", "mul"),
    ("elementwise", "threshold"), ("embedding", "embedding_backward"),
    ("foreach", "add"), ("foreach", "addcdiv"), ("foreach", "addcmul"), ("foreach", "div"),
    ("foreach", "lerp"), ("foreach", "mul"), ("foreach", "sqrt"),
    ("index", "cat"), ("index", "gather"), ("index", "index"), ("index", "index_select_rows"),
    ("loss", "nll_loss_fwd"), ("loss", "nll_loss_bwd"),
    ("norm", "layer_norm"), ("norm", "layer_norm_backward"),
    ("norm", "layer_norm_backward_params"),
    ("reduce", "argmax"), ("reduce", "mean"), ("reduce", "sum"),
    ("softmax", "log_softmax_fwd"), ("softmax", "log_softmax_bwd"),
    ("spatial", "max_pool2d"), ("spatial", "max_pool2d_backward"),
]


@pytest.fixture(scope="module")
def listing():
    if not os.access(TORCHFL, os.X_OK):
        pytest.fail(f"{TORCHFL} does not exist: build torchfl first")
    p = subprocess.run([TORCHFL, "wheel", "--python", sys.executable, "--list"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode in (0, 1), f"torchfl wheel failed ({p.returncode}):\n{p.stderr}"
    rows = [line.split("\t") for line in p.stdout.splitlines() if line]
    return p.returncode, rows, p.stderr


def test_reports_this_release(listing):
    _, _, summary = listing
    assert metadata.version("torch").split("+")[0] in summary, summary


def test_every_claimed_kernel_has_a_validated_layout(listing):
    rc, rows, summary = listing
    assert len(rows) > 5000, f"only {len(rows)} kernels claimed:\n{summary}"
    bad = [r for r in rows if r[0] != "ok"]
    detail = "\n".join(f"{r[0]} {r[1]}/{r[2]}: {r[4] if len(r) > 4 else ''}\n    {r[3]}"
                       for r in bad[:15])
    assert not bad, f"{len(bad)} claimed kernels without a validated layout:\n{detail}\n{summary}"
    assert rc == 0


def test_example_ops_claimed(listing):
    _, rows, summary = listing
    ok = collections.Counter((r[1], r[2]) for r in rows if r[0] == "ok")
    missing = [f"{f}/{o}" for f, o in EXAMPLE_OPS if not ok[(f, o)]]
    families = sorted({f for f, _ in ok})
    assert not missing, (f"not claimed (or not validated) in torch {metadata.version('torch')}: "
                         f"{missing}; validated ops: "
                         + json.dumps(sorted(f"{f}/{o}" for f, o in ok))[:3000])
    assert len(families) >= 19, families
