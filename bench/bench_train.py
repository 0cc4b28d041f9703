#!/usr/bin/env python3
"""Training-step time of the examples on `cuda` under torchfl against the
same script on PyTorch's CPU, in one run, and the share of step time spent
in the host executor (fallback).

    $(scripts/setup_venv.sh)/bin/python bench/bench_train.py [--steps 40] [--warmup 5]

Each configuration runs in its own process (the torchfl one preloaded with
build/libtorchfl.so through build/torchfl run, with TORCHFL_STATS set);
the time per step is the median over the steps after the warm-up.  With
--rounds N the two sides alternate N times and the best median of each
side is reported, with the range of the per-round ratios: on a shared
machine PyTorch CPU's OpenMP threads lose most to other load, so single
rounds swing both ways.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = {"mlp": "mlp_classifier", "gpt": "gpt_tiny", "cnn": "cnn_classifier"}


def child(example, device, steps, warmup):
    sys.path.insert(0, os.path.join(REPO, "examples"))
    mod = __import__(EXAMPLES[example])
    stamps = []
    mod.train(device, steps=steps + warmup, log_every=1, log=lambda _: stamps.append(time.perf_counter()))
    per_step = [b - a for a, b in zip(stamps[warmup:], stamps[warmup + 1:])]
    print(json.dumps({"step_s": statistics.median(per_step)}))


def run(example, device, steps, warmup, stats=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", example, device,
           str(steps), str(warmup)]
    env = dict(os.environ)
    if device == "cuda":
        cmd = [os.path.join(REPO, "build", "torchfl"), "run", "--"] + cmd
        env["TORCHFL_STATS"] = stats
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1:] or ["failed"]
    return json.loads(out.stdout.strip().splitlines()[-1])["step_s"], None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--child", nargs=4)
    a = ap.parse_args()
    if a.child:
        return child(a.child[0], a.child[1], int(a.child[2]), int(a.child[3]))
    print(f"{'example':8} {'cpu ms/step':>12} {'torchfl ms/step':>16} {'speed vs cpu':>13} "
          f"{'in interpreter':>15}" + (f"  {'ratio range':>13}" if a.rounds > 1 else ""))
    for ex in EXAMPLES:
        cpus, tfls, ratios, share, err = [], [], [], None, None
        for _ in range(max(1, a.rounds)):
            cpu, _ = run(ex, "cpu", a.steps, a.warmup)
            with tempfile.TemporaryDirectory() as d:
                stats = os.path.join(d, "stats.json")
                tfl, err = run(ex, "cuda", a.steps, a.warmup, stats)
                if os.path.exists(stats) and tfl:
                    # host-executor time over the time of all steps run
                    fb = json.load(open(stats))["fallback_ns"] / 1e9
                    s = min(1.0, fb / (tfl * (a.steps + a.warmup)))
                    share = s if share is None else max(share, s)
            if tfl is None:
                break
            cpus.append(cpu)
            tfls.append(tfl)
            ratios.append(cpu / tfl)
        if not tfls:
            print(f"{ex:8} {'':12} {'failed':>16}  {err[0]}")
            continue
        cpu, tfl = min(cpus), min(tfls)
        line = (f"{ex:8} {cpu * 1e3:12.2f} {tfl * 1e3:16.2f} {cpu / tfl:12.2f}x "
                f"{100 * (share or 0):14.1f}%")
        if a.rounds > 1:
            line += f"  {min(ratios):5.2f}-{max(ratios):.2f}x"
        print(line)


if __name__ == "__main__":
    main()
