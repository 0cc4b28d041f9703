"""nn.Embedding under torchfl (the "embedding" op family for the backward,
"index" for the lookup), float32, compared with PyTorch on the CPU.

The weight gradient is zeroed (a fill, elementwise family) before the
embedding kernel adds rows into it."""
import pytest
import torch


@pytest.fixture(scope="module")
def fill_ok(cuda):
    # the weight gradient is zeroed by a fill first: it must run (a
    # failure here is a failure of these tests, not a reason to skip them)
    torch.zeros(4, device=cuda)
    torch.cuda.synchronize()
    return True


@pytest.mark.parametrize("vocab,dim,padding_idx", [
    (64, 32, None),     # GPT-style token table
    (1000, 128, None),
    (100, 33, 0),       # a padding row gets no gradient
    (50, 64, 7),
    (5, 1, None),
])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_embedding_backward(cuda, fill_ok, vocab, dim, padding_idx, index_dtype):
    g = torch.Generator().manual_seed(vocab + dim)
    weight = torch.randn(vocab, dim, generator=g)
    idx = torch.randint(0, vocab, (8, 64), generator=g).to(index_dtype)
    if padding_idx is not None:
        idx[0, :5] = padding_idx
    dy = torch.randn(8, 64, dim, generator=g)
    grads = []
    for dev in (cuda, torch.device("cpu")):
        emb = torch.nn.Embedding(vocab, dim, padding_idx=padding_idx, _weight=weight.clone())
        emb = emb.to(dev)
        y = emb(idx.to(dev))
        y.backward(dy.to(dev))
        grads.append((y.detach().cpu(), emb.weight.grad.cpu()))
    (y, gw), (ry, rgw) = grads
    assert torch.equal(y, ry)
    # rows sum up to 512 gradient rows: order of the adds differs
    torch.testing.assert_close(gw, rgw, rtol=1e-5, atol=1e-5)
    if padding_idx is not None:
        assert torch.equal(gw[padding_idx], torch.zeros(dim))


def test_tiny_lm_training_steps(cuda, fill_ok):
    # token + position embeddings, layer norms, an MLP, cross-entropy, SGD:
    # five steps on cuda and cpu from the same weights and batches; the
    # losses, accuracy and picked logits must agree
    import torch.nn as nn
    import torch.nn.functional as F
    V, D, T, B = 64, 32, 16, 8

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(V, D), nn.Embedding(T, D)
            self.ln, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.fc, self.head = nn.Linear(D, D), nn.Linear(D, V)

        def forward(self, idx):
            pos = torch.arange(idx.shape[1], device=idx.device)
            x = self.tok(idx) + self.pos(pos)
            x = x + F.gelu(self.fc(self.ln(x)))
            return self.head(self.ln2(x))

    out = {}
    for dev in (cuda, torch.device("cpu")):
        torch.manual_seed(0)
        m = M().to(dev)
        opt = torch.optim.SGD(m.parameters(), lr=0.5, foreach=False)
        g = torch.Generator().manual_seed(1)
        losses = []
        for _ in range(5):
            x = torch.randint(0, V, (B, T + 1), generator=g).to(dev)
            logits = m(x[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, V), x[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        acc = (logits.argmax(-1) == x[:, 1:]).float().mean().item()
        picked = logits.reshape(-1, V).gather(1, x[:, 1:].reshape(-1, 1)).detach().cpu()
        out[dev.type] = (losses, acc, picked, m.tok.weight.detach().cpu())
    (l, a, p, w), (rl, ra, rp, rw) = out["cuda"], out["cpu"]
    for x, y in zip(l, rl):
        assert abs(x - y) <= 1e-5 * abs(y) + 1e-5, (l, rl)
    assert a == ra
    torch.testing.assert_close(p, rp, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(w, rw, rtol=1e-4, atol=1e-5)
