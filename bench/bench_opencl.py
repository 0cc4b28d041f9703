#!/usr/bin/env python3
"""The OpenCL backend against the host backend on this machine, in one run:
the same PyTorch code on `cuda` under torchfl, FL_BACKEND=opencl (PoCL's
CPU device here, or a GPU where one is) against FL_BACKEND=host.

    $(scripts/setup_venv.sh)/bin/python bench/bench_opencl.py [--rounds 3]
        [--steps 20] [--warmup 3] [--only ops|train]

Per op: sgemm 1024^3 (torch.mm), a 16M-element add, softmax over
4096x4096, layer norm over 4096x4096; time per call is the median of 5
calls after a warm-up call, each followed by torch.cuda.synchronize().
Per training step: the examples (mlp, gpt, cnn), median step time after
the warm-up steps.  Kernels run from PTX on the host executor:
examples/logreg_train.cu (200 steps of its own kernels; on OpenCL every
launch reaches device memory through host views), its total time.  The two backends alternate within every round; the
table gives each side's min over rounds of its median, min and median of
the per-round ratios opencl / host (< 1: OpenCL faster), and for OpenCL
the share of op calls that ran natively on the device and the host-view
traffic of the fallbacks (TORCHFL_STATS).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = {"mlp": "mlp_classifier", "gpt": "gpt_tiny", "cnn": "cnn_classifier"}
OPS = ["sgemm_1024", "add_16M", "softmax_4096x4096", "layer_norm_4096x4096"]


def op_child():
    import torch
    import torch.nn.functional as F
    dev = torch.device("cuda")
    g = torch.Generator().manual_seed(0)
    a = torch.randn(1024, 1024, generator=g).to(dev)
    b = torch.randn(1024, 1024, generator=g).to(dev)
    x = torch.randn(16 << 20, generator=g).to(dev)
    y = torch.randn(16 << 20, generator=g).to(dev)
    s = torch.randn(4096, 4096, generator=g).to(dev)
    w = torch.randn(4096, generator=g).to(dev)
    bias = torch.randn(4096, generator=g).to(dev)
    calls = {
        "sgemm_1024": lambda: torch.mm(a, b),
        "add_16M": lambda: x + y,
        "softmax_4096x4096": lambda: torch.softmax(s, dim=-1),
        "layer_norm_4096x4096": lambda: F.layer_norm(s, (4096,), w, bias),
    }
    res = {}
    for name in OPS:
        fn = calls[name]
        fn()
        torch.cuda.synchronize()
        t = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            t.append(time.perf_counter() - t0)
        res[name] = statistics.median(t)
    print(json.dumps(res))


def train_child(example, steps, warmup):
    import torch
    sys.path.insert(0, os.path.join(REPO, "examples"))
    mod = __import__(EXAMPLES[example])
    stamps = []

    def log(_):
        torch.cuda.synchronize()
        stamps.append(time.perf_counter())
    mod.train("cuda", steps=steps + warmup, log_every=1, log=log)
    per_step = [b - a for a, b in zip(stamps[warmup:], stamps[warmup + 1:])]
    print(json.dumps({"step": statistics.median(per_step)}))


def run_ptx(backend, stats):
    """logreg_train (built by CMake): its own "trained N steps in X ms" line."""
    exe = os.path.join(REPO, "build", "tests", "cuda", "logreg_train")
    env = dict(os.environ, FL_BACKEND=backend, TORCHFL_STATS=stats, TORCHFL_CONFIG="/dev/null",
               LD_PRELOAD=os.path.join(REPO, "build", "libtorchfl.so"))
    p = subprocess.run([exe], env=env, capture_output=True, text=True)
    m = re.search(r"trained (\d+) steps in ([0-9.]+) ms", p.stdout)
    if p.returncode != 0 or not m:
        sys.exit(f"logreg_train on {backend} failed:\n{p.stdout[-1000:]}{p.stderr[-1000:]}")
    return {"total": float(m.group(2)) / 1e3}


def run(backend, args, stats):
    if args == ["ptx"]:
        return run_ptx(backend, stats)
    cmd = [os.path.join(REPO, "build", "torchfl"), "run", "--", sys.executable,
           os.path.abspath(__file__), "--child"] + args
    env = dict(os.environ, FL_BACKEND=backend, TORCHFL_STATS=stats,
               TORCH_FL_FALLBACK_MODE="silent")
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{backend} {' '.join(args)} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def native_share(stats):
    d = json.load(open(stats))
    calls = sum(o["calls"] for o in d["ops"])
    native = sum(o["native_calls"] for o in d["ops"])
    return (native / calls if calls else 0.0), d.get("hostview", {})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--only", choices=["ops", "train"])  # train: the examples and PTX
    ap.add_argument("--child", nargs="+")
    a = ap.parse_args()
    if a.child:
        if a.child[0] == "ops":
            op_child()
        else:
            train_child(a.child[0], int(a.child[1]), int(a.child[2]))
        return
    jobs = []
    if a.only != "train":
        jobs.append(("ops", ["ops"], OPS))
    if a.only != "ops":
        for ex in EXAMPLES:
            jobs.append((ex, [ex, str(a.steps), str(a.warmup)], ["step"]))
        jobs.append(("ptx", ["ptx"], ["total"]))
    times = {}     # (job, key, backend) -> [seconds per round]
    share = {}
    with tempfile.TemporaryDirectory() as d:
        for r in range(a.rounds):
            for job, args, keys in jobs:
                order = ["host", "opencl"] if r % 2 == 0 else ["opencl", "host"]
                for be in order:
                    stats = os.path.join(d, f"{job}-{be}.json")
                    res = run(be, args, stats)
                    for k in keys:
                        times.setdefault((job, k, be), []).append(res[k])
                    if be == "opencl":
                        share[job] = native_share(stats)
    print(f"{'what':<28}{'host ms':>10}{'opencl ms':>11}{'ratio min':>11}{'median':>9}"
          f"{'native':>8}  host-view traffic (opencl)")
    for job, args, keys in jobs:
        for k in keys:
            h, o = times[(job, k, "host")], times[(job, k, "opencl")]
            ratios = [y / x for x, y in zip(h, o)]
            sh, hv = share[job]
            label = (k if job == "ops" else "PTX: logreg_train.cu" if job == "ptx"
                     else f"train step: {job}")
            print(f"{label:<28}{min(h) * 1e3:>10.2f}{min(o) * 1e3:>11.2f}{min(ratios):>11.2f}"
                  f"{statistics.median(ratios):>9.2f}{sh * 100:>7.0f}%  "
                  f"{hv.get('faults', 0)} faults, {hv.get('fetched_bytes', 0) >> 20} MiB in, "
                  f"{hv.get('stored_bytes', 0) >> 20} MiB out")
    print(f"({a.rounds} rounds, backends alternating; ratio = opencl / host time, < 1: "
          f"OpenCL faster; native = share of op calls the OpenCL device ran itself)")


if __name__ == "__main__":
    main()
