#!/usr/bin/env python3
"""Small GPT-style language model trained with AdamW on synthetic token streams.

An ordinary PyTorch script (it knows nothing of torchfl): run it on a GPU, on
the CPU, or on torchfl's preload, e.g.
    python examples/gpt_tiny.py --device cpu
    LD_PRELOAD=build/libtorchfl.so python examples/gpt_tiny.py

Model: token + learned position embeddings, pre-LayerNorm transformer blocks
with causal F.scaled_dot_product_attention and a GELU MLP, final LayerNorm,
linear head; loss is next-token cross-entropy. Data: a token stream drawn
from a random sparse Markov chain (each token has a few likely successors),
so the loss can fall from ln(VOCAB) towards the chain's entropy rate, which
is printed for reference. Data and initial weights are made on the CPU from
--seed and moved to --device, so runs on different devices start from
identical numbers. Dropout defaults to 0 so that runs are deterministic and
comparable across devices.
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, BLOCK, D_MODEL, HEADS, LAYERS = 64, 32, 64, 4, 2
STREAM = 50_000
SUCCESSORS = 3


def make_chain(seed):
    """Transition matrix with SUCCESSORS likely next tokens per token, and its entropy rate."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.full((VOCAB, VOCAB), -4.0)
    for t in range(VOCAB):
        nxt = torch.randperm(VOCAB, generator=g)[:SUCCESSORS]
        logits[t, nxt] = torch.randn(SUCCESSORS, generator=g) + 2.0
    p = logits.double().softmax(dim=1)
    # Stationary distribution by power iteration, then H = sum_i pi_i H(p_i).
    pi = torch.full((VOCAB,), 1.0 / VOCAB, dtype=torch.float64)
    for _ in range(500):
        pi = pi @ p
    entropy = float(-(pi[:, None] * p * p.log()).sum())
    return p, entropy


def make_stream(p, seed):
    g = torch.Generator().manual_seed(seed)
    out = torch.empty(STREAM, dtype=torch.long)
    tok = 0
    u = torch.rand(STREAM, generator=g, dtype=torch.float64)
    cdf = p.cumsum(dim=1)
    for i in range(STREAM):
        tok = min(int(torch.searchsorted(cdf[tok], u[i])), VOCAB - 1)
        out[i] = tok
    return out


class Block(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(D_MODEL)
        self.qkv = nn.Linear(D_MODEL, 3 * D_MODEL)
        self.proj = nn.Linear(D_MODEL, D_MODEL)
        self.ln2 = nn.LayerNorm(D_MODEL)
        self.fc = nn.Linear(D_MODEL, 4 * D_MODEL)
        self.fc_out = nn.Linear(4 * D_MODEL, D_MODEL)
        self.dropout = dropout

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        x = x + F.dropout(self.proj(y.transpose(1, 2).reshape(b, t, c)), self.dropout, self.training)
        x = x + F.dropout(self.fc_out(F.gelu(self.fc(self.ln2(x)))), self.dropout, self.training)
        return x


class TinyGPT(nn.Module):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(BLOCK, D_MODEL)
        self.blocks = nn.ModuleList(Block(dropout) for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB, bias=False)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


def train(device="cuda", steps=300, seed=0, batch_size=32, lr=3e-3, dropout=0.0,
          log_every=50, log=print):
    """Trains and returns (losses per step, chain entropy rate in nats)."""
    device = torch.device(device)
    p, entropy = make_chain(seed)
    data = make_stream(p, seed + 1)
    torch.manual_seed(seed + 2)
    model = TinyGPT(dropout).to(device)            # initialised on the CPU, then copied
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
    data = data.to(device)
    offsets = torch.Generator().manual_seed(seed + 3)  # batch positions drawn on the CPU
    span = torch.arange(BLOCK + 1)
    losses = []
    for step in range(1, steps + 1):
        start = torch.randint(0, STREAM - BLOCK - 1, (batch_size, 1), generator=offsets)
        chunk = data[(start + span).to(device)]
        x, y = chunk[:, :-1], chunk[:, 1:]
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if log_every and (step % log_every == 0 or step == 1):
            log(f"step {step:5d}  loss {losses[-1]:.9g}")
    return losses, entropy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--log-every", type=int, default=50)
    args = ap.parse_args()
    t0 = time.time()
    losses, entropy = train(args.device, args.steps, args.seed, args.batch_size, args.lr,
                            args.dropout, args.log_every)
    print(f"final loss {losses[-1]:.9g}  (uniform {math.log(VOCAB):.4f}, chain entropy rate "
          f"{entropy:.4f} nats; {args.steps} steps on {args.device}, {time.time() - t0:.1f} s)")


if __name__ == "__main__":
    main()
