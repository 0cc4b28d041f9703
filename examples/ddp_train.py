"""Data-parallel training of the tiny GPT (examples/gpt_tiny.py) with the
`nccl` backend: an ordinary torchrun script, nothing torchfl-specific.

    torchrun --nproc-per-node 2 examples/ddp_train.py --steps 20            # DDP
    torchrun --nproc-per-node 2 examples/ddp_train.py --steps 20 --fsdp     # FSDP2
    python examples/ddp_train.py --steps 20                                 # one process

Every rank draws the same global batch (--batch-size rows, positions drawn
on the CPU from one seed) and trains on its contiguous share of it; DDP
averages the gradients and the logged loss is the mean over all ranks, so
the losses equal those of one process training on the whole global batch
(up to the order of floating-point sums).  Without torchrun it runs in one
process on --device, the reference the tests compare with.
"""
import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt_tiny  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--fsdp", action="store_true", help="FSDP2 fully_shard instead of DDP")
    args = ap.parse_args()

    distributed = "RANK" in os.environ
    if distributed:
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
        dist.init_process_group("nccl", device_id=device)
        rank, world = dist.get_rank(), dist.get_world_size()
    else:
        device, rank, world = torch.device(args.device), 0, 1
    if args.batch_size % world:
        sys.exit(f"--batch-size {args.batch_size} is not a multiple of {world} ranks")

    p, _ = gpt_tiny.make_chain(args.seed)
    data = gpt_tiny.make_stream(p, args.seed + 1).to(device)
    torch.manual_seed(args.seed + 2)
    model = gpt_tiny.TinyGPT(0.0).to(device)     # same initial weights on every rank
    if distributed and args.fsdp:
        from torch.distributed.fsdp import fully_shard
        for blk in model.blocks:
            fully_shard(blk)
        fully_shard(model)
    elif distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device.index])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)
    offsets = torch.Generator().manual_seed(args.seed + 3)
    span = torch.arange(gpt_tiny.BLOCK + 1)
    share = args.batch_size // world
    for step in range(1, args.steps + 1):
        start = torch.randint(0, gpt_tiny.STREAM - gpt_tiny.BLOCK - 1, (args.batch_size, 1),
                              generator=offsets)
        mine = start[rank * share:(rank + 1) * share]
        chunk = data[(mine + span).to(device)]
        x, y = chunk[:, :-1], chunk[:, 1:]
        loss = F.cross_entropy(model(x).reshape(-1, gpt_tiny.VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        shown = loss.detach().clone()
        if distributed:
            dist.all_reduce(shown, op=dist.ReduceOp.AVG)
        if rank == 0:
            print(f"step {step:5d}  loss {shown.item():.9g}", flush=True)
    if distributed:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
