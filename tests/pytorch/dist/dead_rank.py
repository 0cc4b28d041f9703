"""A rank that dies mid-job: its peer's next collective must fail within a
bounded time (an NCCL error PyTorch raises), not hang.  Started by
tests/pytorch/test_distributed.py as two plain processes (not torchrun,
whose agent would kill the survivor as soon as one rank exits).

Env: RANK, WORLD_SIZE=2, MASTER_ADDR, MASTER_PORT, LOCAL_RANK.
Rank 1 exits with status 3 after one all_reduce; rank 0 prints
"survivor: <exception type>: <first line>" and "after <s> s", exits 0.
"""
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    rank = int(os.environ["RANK"])
    dev = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev)
    t = torch.ones(1000, device=dev)
    dist.all_reduce(t)
    torch.cuda.synchronize()
    assert t[0].item() == 2.0
    if rank == 1:
        sys.stdout.flush()
        os._exit(3)
    time.sleep(1.0)              # the peer is gone by now
    t0 = time.monotonic()
    try:
        for _ in range(3):
            dist.all_reduce(t)
            torch.cuda.synchronize()
            t[0].item()
    except Exception as e:       # DistBackendError / RuntimeError, as PyTorch raises it
        print(f"survivor: {type(e).__name__}: {str(e).splitlines()[0]}", flush=True)
        print(f"after {time.monotonic() - t0:.2f} s", flush=True)
        os._exit(0)
    print("survivor: no error", flush=True)
    os._exit(1)


if __name__ == "__main__":
    main()
