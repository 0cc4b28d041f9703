#!/usr/bin/env python3
"""Small convolutional classifier trained with SGD (momentum) on images it generates.

An ordinary PyTorch script (it knows nothing of torchfl): run it on a GPU, on
the CPU, or on torchfl's preload, e.g.
    python examples/cnn_classifier.py --device cpu
    LD_PRELOAD=build/libtorchfl.so python examples/cnn_classifier.py

Data: 16x16 single-channel images, each the sum of a few oriented stripes
and blobs; the label is which of CLASSES pattern templates contributes most,
so a small CNN can learn it.  Model: conv-BatchNorm-ReLU-maxpool twice,
global average pool, linear; the convolutions have no bias, as usual
before a BatchNorm (which cancels it: its gradient would be rounding
noise that momentum keeps adding up).  On CUDA that exercises cuDNN convolutions
and batch norm, PyTorch's pooling kernels and the fused SGD path.  Data and
initial weights are made on the CPU from --seed and moved to --device, so
runs on different devices start from identical numbers.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SIZE, CLASSES = 16, 5
TRAIN, TEST = 2048, 512


def make_data(seed):
    g = torch.Generator().manual_seed(seed)
    templates = torch.randn(CLASSES, 1, SIZE, SIZE, generator=g)
    templates = F.avg_pool2d(templates, 3, stride=1, padding=1)   # smooth patterns
    n = TRAIN + TEST
    mix = torch.rand(n, CLASSES, generator=g)
    x = torch.einsum("nc,cihw->nihw", mix, templates) + 0.3 * torch.randn(n, 1, SIZE, SIZE, generator=g)
    y = mix.argmax(dim=1)
    return x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]


def make_model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, CLASSES),
    )


def train(device="cuda", steps=200, seed=0, batch_size=64, lr=0.05, log_every=50, log=print):
    """Trains and returns (losses per step, test accuracy)."""
    device = torch.device(device)
    xtr, ytr, xte, yte = make_data(seed)
    model = make_model(seed + 1).to(device)      # initialised on the CPU, then copied
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
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
    model.eval()
    with torch.no_grad():
        acc = (model(xte).argmax(dim=1) == yte).float().mean().item()
    return losses, acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--log-every", type=int, default=50)
    args = ap.parse_args()
    t0 = time.time()
    losses, acc = train(args.device, args.steps, args.seed, args.batch_size, args.lr, args.log_every)
    print(f"final loss {losses[-1]:.9g}  test accuracy {acc:.4f}  "
          f"({args.steps} steps on {args.device}, {time.time() - t0:.1f} s)")


if __name__ == "__main__":
    main()
