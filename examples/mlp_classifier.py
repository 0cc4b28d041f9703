#!/usr/bin/env python3
"""MLP classifier trained with Adam on data it generates.

An ordinary PyTorch script (it knows nothing of torchfl): run it on a GPU, on
the CPU, or on torchfl's preload, e.g.
    python examples/mlp_classifier.py --device cpu
    LD_PRELOAD=build/libtorchfl.so python examples/mlp_classifier.py

The data are points in FEATURES dimensions labelled by a fixed random
"teacher" network, so a small MLP can learn them well. Data and initial
weights are made on the CPU from --seed and then moved to --device, so runs
on different devices start from identical numbers (tests/pytorch/test_examples.py
relies on that).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

FEATURES, CLASSES, HIDDEN = 20, 4, 128
TRAIN, TEST = 4096, 1024


def make_data(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(TRAIN + TEST, FEATURES, generator=g)
    w1 = torch.randn(FEATURES, 32, generator=g) / FEATURES ** 0.5
    w2 = torch.randn(32, CLASSES, generator=g)
    y = (torch.tanh(x @ w1) @ w2).argmax(dim=1)
    return x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]


def make_model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(FEATURES, HIDDEN), nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
        nn.Linear(HIDDEN, CLASSES),
    )


def train(device="cuda", steps=300, seed=0, batch_size=128, lr=3e-3, log_every=50, log=print):
    """Trains and returns (losses per step, test accuracy)."""
    device = torch.device(device)
    xtr, ytr, xte, yte = make_data(seed)
    model = make_model(seed + 1).to(device)      # initialised on the CPU, then copied
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    xtr, ytr, xte, yte = (t.to(device) for t in (xtr, ytr, xte, yte))
    order = torch.Generator().manual_seed(seed + 2)  # batch order drawn on the CPU
    losses = []
    for step in range(1, steps + 1):
        idx = torch.randint(0, TRAIN, (batch_size,), generator=order).to(device)
        loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if log_every and (step % log_every == 0 or step == 1):
            log(f"step {step:5d}  loss {losses[-1]:.9g}")
    with torch.no_grad():
        acc = (model(xte).argmax(dim=1) == yte).float().mean().item()
    return losses, acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--log-every", type=int, default=50)
    args = ap.parse_args()
    t0 = time.time()
    losses, acc = train(args.device, args.steps, args.seed, args.batch_size, args.lr, args.log_every)
    print(f"final loss {losses[-1]:.9g}  test accuracy {acc:.4f}  "
          f"({args.steps} steps on {args.device}, {time.time() - t0:.1f} s)")


if __name__ == "__main__":
    main()
