"""torch.distributed with the `nccl` backend on cuda under torchfl, one
rank of a torchrun job: every collective PyTorch exposes, checked against
the value each rank computes on the CPU from what every rank holds (the
inputs are a function of the rank, so each rank knows all of them).

    torchrun --nproc-per-node 3 tests/pytorch/dist/collectives.py

Prints "rank R ok: N checks" and exits 0, or raises on the first mismatch.
"""
import os
import sys

import torch
import torch.distributed as dist

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32,
          torch.int64, torch.uint8, torch.int8]


def inp(rank, n, dtype):
    """Rank r's input: small values so sums and products stay exact."""
    base = torch.arange(n, dtype=torch.int64) % 5 + rank + 1
    return base.to(dtype)


def main():
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    rank, world = dist.get_rank(), dist.get_world_size()
    checks = 0

    def check(name, got, want):
        nonlocal checks
        got = got.cpu()
        if got.dtype.is_floating_point and got.dtype != want.dtype:
            want = want.to(got.dtype)
        if not torch.equal(got, want):
            raise AssertionError(f"rank {rank}: {name}: got {got[:8].tolist()} want {want[:8].tolist()}")
        checks += 1
        if os.environ.get("DIST_VERBOSE"):
            print(f"rank {rank}: {name} ok", flush=True)

    n = 1000
    all_in = [inp(r, n, torch.float64) for r in range(world)]
    for dt in DTYPES:
        ops = [(dist.ReduceOp.SUM, sum(all_in)), (dist.ReduceOp.MAX, torch.stack(all_in).amax(0)),
               (dist.ReduceOp.MIN, torch.stack(all_in).amin(0))]
        if dt not in (torch.uint8, torch.int8):   # 5^3 * ... overflows 8 bits
            ops.append((dist.ReduceOp.PRODUCT, torch.stack(all_in).prod(0)))
        if dt.is_floating_point:
            ops.append((dist.ReduceOp.AVG, sum(all_in) / world))
        for op, want in ops:
            t = inp(rank, n, dt).to(dev)
            dist.all_reduce(t, op=op)
            check(f"all_reduce {dt} {op}", t, want.to(dt) if not dt.is_floating_point else want)
        # all_gather_into_tensor / reduce_scatter_tensor / broadcast / all_to_all
        t = inp(rank, n, dt).to(dev)
        out = torch.empty(world * n, dtype=dt, device=dev)
        dist.all_gather_into_tensor(out, t)
        check(f"all_gather_into_tensor {dt}", out, torch.cat([a.to(dt) for a in all_in]))
        big = torch.cat([inp(rank, n, dt) + i for i in range(world)]).to(dev)
        out = torch.empty(n, dtype=dt, device=dev)
        dist.reduce_scatter_tensor(out, big)
        check(f"reduce_scatter_tensor {dt}", out,
              sum(inp(r, n, torch.float64) + rank for r in range(world)).to(dt))
        t = inp(rank, n, dt).to(dev)
        dist.broadcast(t, src=world - 1)
        check(f"broadcast {dt}", t, all_in[world - 1].to(dt))
        src = torch.cat([inp(rank, n, dt) * 0 + (rank * world + i) for i in range(world)]).to(dev)
        out = torch.empty_like(src)
        dist.all_to_all_single(out, src)
        check(f"all_to_all_single {dt}", out,
              torch.cat([torch.full((n,), r * world + rank, dtype=torch.float64) for r in range(world)]).to(dt))

    # PreMulSum (what FSDP's gradient division uses): sum of 0.5 * x
    t = inp(rank, n, torch.float32).to(dev)
    dist.all_reduce(t, op=dist._make_nccl_premul_sum(0.5))
    check("all_reduce premul_sum 0.5", t, (sum(all_in) * 0.5).float())
    # reduce to a root; all_gather into a list; scatter-free p2p ring
    t = inp(rank, n, torch.float32).to(dev)
    dist.reduce(t, dst=0)
    if rank == 0:
        check("reduce", t, sum(all_in).float())
    outs = [torch.empty(n, device=dev) for _ in range(world)]
    dist.all_gather(outs, inp(rank, n, torch.float32).to(dev))
    for r in range(world):
        check("all_gather list", outs[r], all_in[r].float())
    send = torch.full((n,), float(rank), device=dev)
    recv = torch.empty(n, device=dev)
    reqs = [dist.isend(send, (rank + 1) % world), dist.irecv(recv, (rank - 1) % world)]
    for q in reqs:
        q.wait()
    check("isend/irecv ring", recv, torch.full((n,), float((rank - 1) % world)))
    if world >= 2:       # blocking send/recv between ranks 0 and 1
        if rank == 0:
            dist.send(torch.arange(7.0, device=dev), 1)
        elif rank == 1:
            r = torch.empty(7, device=dev)
            dist.recv(r, 0)
            check("send/recv", r, torch.arange(7.0))
    # a subgroup (ncclCommSplit underneath) of the even ranks
    evens = dist.new_group([r for r in range(world) if r % 2 == 0])
    if rank % 2 == 0:
        t = torch.ones(4, device=dev)
        dist.all_reduce(t, group=evens)
        check("all_reduce on a subgroup", t, torch.full((4,), float((world + 1) // 2)))
    dist.barrier()
    sys.stdout.write(f"rank {rank} ok: {checks} checks\n")   # one write per line
    sys.stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
