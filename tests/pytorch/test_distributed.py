"""torch.distributed with the `nccl` backend on cuda under torchfl (NCCL over
Gloo, docs/nccl.md): unmodified torchrun jobs on the host backend's devices
(TORCHFL_DEVICE_COUNT), on one "node" and as two nodes over loopback.

- every collective and point-to-point call PyTorch exposes, 8 dtypes x the
  reductions, checked by each rank against values it computes itself
  (tests/pytorch/dist/collectives.py, 3 ranks);
- examples/ddp_train.py with DDP and with FSDP2 on 2 ranks, and DDP as two
  nodes of one rank each: every step's loss equals the single-process run
  on the same global batch within 1e-5 relative;
- a rank that dies: the survivor's next collective raises within seconds.

Needs a built torchfl (marked `torchfl_gpu`); scripts/test.sh runs it.
"""
import os
import re
import socket
import subprocess
import sys
import time

import pytest

from conftest import REPO, torchfl_lib

pytestmark = pytest.mark.torchfl_gpu

STEPS = 10
RTOL = 1e-5
STEP_LINE = re.compile(r"^step\s+(\d+)\s+loss\s+(\S+)$", re.M)
DDP = os.path.join(REPO, "examples", "ddp_train.py")
DIST = os.path.join(REPO, "tests", "pytorch", "dist")


def env_for(devices):
    lib = torchfl_lib()
    if not os.path.exists(lib):
        pytest.fail(f"{lib} does not exist: build torchfl first or set TORCHFL_LIB")
    env = dict(os.environ)
    env["LD_PRELOAD"] = lib + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    libdir = os.path.dirname(os.path.abspath(lib))
    env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["TORCHFL_DEVICE_COUNT"] = str(devices)
    env["TORCHFL_NCCL_TIMEOUT"] = "120"   # a hang fails the test, not CI
    env["OMP_NUM_THREADS"] = "1"
    env.pop("TORCHFL_CONFIG", None)
    return env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(args):
    return [sys.executable, "-m", "torch.distributed.run"] + args


def check(p, what):
    assert p.returncode == 0, (f"{what} exited {p.returncode}\n--- stdout\n{p.stdout[-4000:]}\n"
                               f"--- stderr\n{p.stderr[-6000:]}")


def run(cmd, env, what, timeout=600):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    check(p, what)
    return p


def losses(out):
    got = {int(s): float(v) for s, v in STEP_LINE.findall(out)}
    assert sorted(got) == list(range(1, STEPS + 1)), f"missing step lines in:\n{out}"
    return [got[i] for i in range(1, STEPS + 1)]


@pytest.fixture(scope="module")
def single_process():
    """The reference: one process on the whole global batch (cuda under torchfl)."""
    p = run([sys.executable, DDP, "--steps", str(STEPS)], env_for(1), "single-process ddp_train.py")
    ref = losses(p.stdout)
    assert ref[-1] < ref[0], "the reference run did not learn"
    return ref


def assert_same(ref, got, what):
    bad = [(i + 1, r, g) for i, (r, g) in enumerate(zip(ref, got)) if abs(g - r) > RTOL * abs(r)]
    assert not bad, what + ":\n" + "\n".join(
        f"step {s}: one process {r:.9g}  {what} {g:.9g}  rel {abs(g - r) / abs(r):.2e}" for s, r, g in bad)


def test_collectives_three_ranks():
    p = run(torchrun(["--standalone", "--nproc-per-node", "3", os.path.join(DIST, "collectives.py")]),
            env_for(3), "collectives.py on 3 ranks")
    # the ranks share one stdout: lines may interleave, so no anchors
    oks = re.findall(r"rank (\d) ok: (\d+) checks", p.stdout)
    assert sorted(r for r, _ in oks) == ["0", "1", "2"], p.stdout
    assert all(int(n) >= 70 for _, n in oks), p.stdout


@pytest.mark.parametrize("mode", ["ddp", "fsdp2"])
def test_two_ranks_match_one_process(single_process, mode):
    extra = ["--fsdp"] if mode == "fsdp2" else []
    p = run(torchrun(["--standalone", "--nproc-per-node", "2", DDP, "--steps", str(STEPS)] + extra),
            env_for(2), f"{mode} on 2 ranks")
    assert_same(single_process, losses(p.stdout), mode)


def test_two_nodes_over_loopback(single_process):
    """Two torchrun invocations (--nnodes 2 --node-rank 0/1), one rank each,
    meeting at a c10d store on 127.0.0.1: NCCL's bootstrap and Gloo's
    connections go over TCP as between two hosts."""
    port = free_port()
    procs = []
    for node in (0, 1):
        cmd = torchrun(["--nnodes", "2", "--node-rank", str(node), "--nproc-per-node", "1",
                        "--master-addr", "127.0.0.1", "--master-port", str(port), DDP,
                        "--steps", str(STEPS)])
        procs.append(subprocess.Popen(cmd, env=env_for(1), cwd=REPO, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs = []
    for node, pr in enumerate(procs):
        out, err = pr.communicate(timeout=600)
        check(subprocess.CompletedProcess(pr.args, pr.returncode, out, err), f"node {node}")
        outs.append(out)
    assert_same(single_process, losses(outs[0]), "two nodes")


def test_dead_rank_fails_the_survivor():
    port = free_port()
    procs = []
    for rank in (0, 1):
        env = env_for(2)
        env.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, os.path.join(DIST, "dead_rank.py")], env=env,
                                      cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    t0 = time.monotonic()
    res = [pr.communicate(timeout=300) for pr in procs]
    assert procs[1].returncode == 3, res[1]
    assert procs[0].returncode == 0, f"survivor:\n{res[0][0]}\n{res[0][1][-4000:]}"
    # ncclRemoteError, in the words of either release's message format
    assert re.search(r"survivor: \w+: NCCL .*remote process exited or there was a network error",
                     res[0][0]), res[0][0]
    after = float(re.search(r"after ([\d.]+) s", res[0][0]).group(1))
    assert after < 30, f"the survivor's collective failed only after {after} s"
    assert time.monotonic() - t0 < 300
