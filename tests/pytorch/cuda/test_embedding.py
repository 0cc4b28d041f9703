"""nn.Embedding under torchfl (the "embedding" op family for the backward,
"index" for the lookup), float32, compared with PyTorch on the CPU.

The weight gradient is zeroed (a fill, elementwise family) before the
embedding kernel adds rows into it; without that family these tests
skip."""
import pytest
import torch


@pytest.fixture(scope="module")
def fill_ok(cuda):
    try:
        torch.zeros(4, device=cuda)
        torch.cuda.synchronize()
    except RuntimeError:
        pytest.skip("needs the elementwise family (fill) under torchfl")
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
