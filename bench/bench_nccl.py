#!/usr/bin/env python3
"""Collective bandwidth: torchfl's NCCL (the `nccl` backend on cuda tensors
under torchfl, NCCL over Gloo) against PyTorch's own `gloo` backend on CPU
tensors, same machine, same run.

    $(scripts/setup_venv.sh)/bin/python bench/bench_nccl.py [--ranks 2 4] [--rounds 3]
        [--max-mb 256] [--ops all_reduce all_gather reduce_scatter]

Each (ranks, side) is one torchrun job on this machine; the sides
alternate within every round and the table shows, per op and message
size, the min over rounds of the median time per call, the bus bandwidth
that gives (nccl-tests' definition: all_reduce moves 2(n-1)/n of the
message per rank, all_gather and reduce_scatter (n-1)/n, the message being
the whole gathered / scattered buffer), the ratio torchfl / gloo of the
bandwidths (> 1: torchfl faster), and the range of the per-round ratios.
Messages are float32, from 1 KB to --max-mb MB in steps of 4x.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ["all_reduce", "all_gather", "reduce_scatter"]


def sizes(max_mb):
    s, out = 1024, []
    while s <= max_mb << 20:
        out.append(s)
        s *= 4
    return out


def child(side, ops, max_mb):
    import torch
    import torch.distributed as dist
    local = int(os.environ["LOCAL_RANK"])
    if side == "torchfl":
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
        dist.init_process_group("nccl", device_id=dev)
    else:
        dev = torch.device("cpu")
        dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    res = {}
    for op in ops:
        res[op] = {}
        for nbytes in sizes(max_mb):
            n = nbytes // 4
            if op == "all_reduce":
                x = torch.ones(n, device=dev)
                call = lambda: dist.all_reduce(x)                       # noqa: E731
            elif op == "all_gather":           # nbytes: the gathered buffer
                n //= world
                x, y = torch.ones(n, device=dev), torch.empty(n * world, device=dev)
                call = lambda: dist.all_gather_into_tensor(y, x)        # noqa: E731
            else:                              # nbytes: the buffer scattered
                n //= world
                x, y = torch.ones(n * world, device=dev), torch.empty(n, device=dev)
                call = lambda: dist.reduce_scatter_tensor(y, x)         # noqa: E731
            iters = max(3, min(200, (64 << 20) // nbytes))
            call()
            sync()
            times = []
            for _ in range(3):                 # three timed batches, median of them
                dist.barrier()
                t = time.perf_counter()
                for _ in range(iters):
                    call()
                sync()
                times.append((time.perf_counter() - t) / iters)
            res[op][nbytes] = statistics.median(times)
    if rank == 0:
        print("RESULT " + json.dumps(res), flush=True)
    dist.destroy_process_group()


def job(side, ranks, ops, max_mb):
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
           "--nproc-per-node", str(ranks), os.path.abspath(__file__), "--child", side,
           "--max-mb", str(max_mb), "--ops"] + ops
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if side == "torchfl":
        cmd = [os.path.join(REPO, "build", "torchfl"), "run", "--"] + cmd
        env["TORCHFL_DEVICE_COUNT"] = str(ranks)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return {op: {int(k): v for k, v in d.items()} for op, d in json.loads(line[7:]).items()}
    sys.exit(f"{side} on {ranks} ranks failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")


def busbw(op, nbytes, t, n):
    factor = 2 * (n - 1) / n if op == "all_reduce" else (n - 1) / n
    return nbytes / t * factor / 1e9


def human(nbytes):
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-mb", type=int, default=256)
    ap.add_argument("--ops", nargs="+", default=OPS, choices=OPS)
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.ops, a.max_mb)
    print(f"# {os.cpu_count()} CPUs; float32; min over {a.rounds} round(s) of the median "
          f"time per call; busbw GB/s; ratio = torchfl / gloo bandwidth")
    for n in a.ranks:
        runs = {"torchfl": [], "gloo": []}
        for r in range(a.rounds):              # alternate the sides every round
            for side in (("torchfl", "gloo") if r % 2 == 0 else ("gloo", "torchfl")):
                runs[side].append(job(side, n, a.ops, a.max_mb))
        print(f"\n## {n} ranks")
        print(f"{'op':15} {'size':>7} {'torchfl us':>11} {'gloo us':>9} {'torchfl GB/s':>13} "
              f"{'gloo GB/s':>10} {'ratio':>6} {'per-round':>12}")
        for op in a.ops:
            for nb in sizes(a.max_mb):
                tf = min(x[op][nb] for x in runs["torchfl"])
                gl = min(x[op][nb] for x in runs["gloo"])
                per = [g[op][nb] / t[op][nb] for t, g in zip(runs["torchfl"], runs["gloo"])]
                print(f"{op:15} {human(nb):>7} {tf * 1e6:11.1f} {gl * 1e6:9.1f} "
                      f"{busbw(op, nb, tf, n):13.3f} {busbw(op, nb, gl, n):10.3f} {gl / tf:6.2f} "
                      f"{min(per):5.2f}-{max(per):<5.2f}")


if __name__ == "__main__":
    main()
