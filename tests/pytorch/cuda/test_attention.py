"""F.scaled_dot_product_attention on cuda under torchfl (the attention
family: PyTorch's memory-efficient kernels fmha_cutlassF/fmha_cutlassB,
which it picks for float32 on compute capability 8.0), against the same
call on cpu from the same inputs: output and the gradients of q, k, v
(and of an additive mask).

The forward alone launches only the attention kernel; the backward and
the masks also launch elementwise (copy, fill, mul, where) and reduce
(sum) kernels, which the needs_families fixture checks first.
"""
import pytest
import torch
import torch.nn.functional as F

TOL = 1e-5


def close(got, want, tol=TOL):
    """Within tol relative to the tensor's scale (fp32 sums over up to
    256 keys differ from the cpu's in the last bits)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = max(1.0, want.abs().max().item()) if want.numel() else 1.0
    torch.testing.assert_close(got, want, rtol=tol, atol=tol * scale)


def make(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g)


@pytest.fixture(scope="module")
def needs_families(cuda):
    """Autograd and masks launch elementwise and reduce kernels."""
    x = torch.ones(4, device=cuda).mul(2)
    assert x.sum().item() == 8.0
    assert torch.equal(torch.where(x > 1, x, 0.0).cpu(), torch.full((4,), 2.0))


def sdpa_both(cuda, tensors, grad_of=(), out_grad_seed=None, **kw):
    """Run F.scaled_dot_product_attention on cpu and cuda.  tensors are
    cpu tensors (q, k, v, optional mask); grad_of: indices that get a
    gradient.  Returns (cpu results, cuda results), each [out, grads...]."""
    res = []
    for dev in ("cpu", cuda):
        ins = [t.to(dev).detach().clone() for t in tensors]
        for i in grad_of:
            ins[i].requires_grad_()
        q, k, v = ins[:3]
        mask = ins[3] if len(ins) > 3 else kw.pop("attn_mask", None)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)
        got = [out.detach().cpu()]
        if grad_of:
            g = make(out.shape, out_grad_seed or 99).to(dev)
            out.backward(g)
            got += [ins[i].grad.cpu() for i in grad_of]
        res.append(got)
    return res


SHAPES = [  # (B, H, L, S, D)
    (2, 3, 64, 64, 32),
    (1, 2, 100, 77, 16),
    (2, 2, 256, 256, 64),
    (1, 4, 1, 50, 64),       # one query
    (3, 1, 17, 200, 16),
    (1, 1, 5, 9, 32),
]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_forward(cuda, shape, causal):
    B, H, L, S, D = shape
    q, k, v = make((B, H, L, D), 1), make((B, H, S, D), 2), make((B, H, S, D), 3)
    want, got = sdpa_both(cuda, [q, k, v], is_causal=causal)
    close(got[0], want[0])


def test_forward_scale_and_dv(cuda):
    """An explicit scale and a value width different from the query's."""
    q, k, v = make((2, 2, 40, 32), 4), make((2, 2, 60, 32), 5), make((2, 2, 60, 64), 6)
    want, got = sdpa_both(cuda, [q, k, v], scale=0.37)
    close(got[0], want[0])


def test_forward_mha_layout(cuda):
    """q, k, v as a transformer makes them: (B, L, H, D) viewed as
    (B, H, L, D) -- non-contiguous, heads interleaved in each row."""
    B, L, H, D = 2, 48, 4, 16
    q, k, v = (make((B, L, H, D), s).transpose(1, 2) for s in (7, 8, 9))
    want, got = sdpa_both(cuda, [q, k, v], is_causal=True)
    close(got[0], want[0])


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_backward(cuda, needs_families, shape, causal):
    B, H, L, S, D = shape
    q, k, v = make((B, H, L, D), 11), make((B, H, S, D), 12), make((B, H, S, D), 13)
    want, got = sdpa_both(cuda, [q, k, v], grad_of=(0, 1, 2), is_causal=causal)
    for g, w in zip(got, want):
        close(g, w)


def test_backward_mha_layout(cuda, needs_families):
    B, L, H, D = 2, 48, 4, 32
    x = [make((B, L, H, D), s) for s in (14, 15, 16)]
    res = []
    for dev in ("cpu", cuda):
        leaves = [t.to(dev).detach().clone().requires_grad_() for t in x]
        q, k, v = (t.transpose(1, 2) for t in leaves)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.backward(make(out.shape, 17).to(dev))
        res.append([out.detach().cpu()] + [t.grad.cpu() for t in leaves])
    for g, w in zip(res[1], res[0]):
        close(g, w)


def test_backward_scale(cuda, needs_families):
    q, k, v = make((1, 3, 30, 64), 18), make((1, 3, 45, 64), 19), make((1, 3, 45, 64), 20)
    want, got = sdpa_both(cuda, [q, k, v], grad_of=(0, 1, 2), scale=0.05)
    for g, w in zip(got, want):
        close(g, w)


@pytest.mark.parametrize("mask_shape", [(2, 3, 33, 47), (33, 47), (2, 1, 1, 47)], ids=str)
def test_additive_mask(cuda, needs_families, mask_shape):
    """A float mask is added to the scores (PyTorch pads it to a multiple
    of 16 keys for the kernel); its gradient too."""
    q, k, v = make((2, 3, 33, 32), 21), make((2, 3, 47, 32), 22), make((2, 3, 47, 32), 23)
    mask = make(mask_shape, 24)
    want, got = sdpa_both(cuda, [q, k, v, mask], grad_of=(0, 1, 2, 3))
    for g, w in zip(got, want):
        close(g, w)


def test_boolean_mask(cuda, needs_families):
    """True = attend.  Row 3 attends to nothing: output and gradients 0."""
    q, k, v = make((2, 2, 40, 16), 25), make((2, 2, 50, 16), 26), make((2, 2, 50, 16), 27)
    mask = make((40, 50), 28) > 0.3
    mask[3] = False
    want, got = sdpa_both(cuda, [q, k, v, mask], grad_of=(0, 1, 2))
    for g, w in zip(got, want):
        close(g, w)
    assert torch.equal(got[0][:, :, 3], torch.zeros_like(got[0][:, :, 3]))


@pytest.mark.parametrize("L,S", [(70, 20), (20, 70)])
def test_causal_rectangular(cuda, needs_families, L, S):
    """is_causal aligns the diagonal top-left (query i sees keys <= i)."""
    q, k, v = make((1, 2, L, 32), 29), make((1, 2, S, 32), 30), make((1, 2, S, 32), 31)
    want, got = sdpa_both(cuda, [q, k, v], grad_of=(0, 1, 2), is_causal=True)
    for g, w in zip(got, want):
        close(g, w)


def test_causal_lower_right(cuda, needs_families):
    """causal_lower_right aligns it bottom-right (the kernel's mask type 2)."""
    from torch.nn.attention.bias import causal_lower_right
    q, k, v = make((2, 2, 20, 64), 32), make((2, 2, 70, 64), 33), make((2, 2, 70, 64), 34)
    res = []
    for dev in ("cpu", cuda):
        ins = [t.to(dev).detach().clone().requires_grad_() for t in (q, k, v)]
        out = F.scaled_dot_product_attention(*ins, attn_mask=causal_lower_right(20, 70))
        out.backward(make(out.shape, 35).to(dev))
        res.append([out.detach().cpu()] + [t.grad.cpu() for t in ins])
    for g, w in zip(res[1], res[0]):
        close(g, w)


def test_dropout_refused_cleanly(cuda):
    """Dropout is not mapped: the launch fails with an error, the process
    and later launches are fine."""
    q = make((1, 2, 16, 32), 36).to(cuda)
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
        torch.cuda.synchronize()
    want, got = sdpa_both(cuda, [make((1, 2, 16, 32), s) for s in (37, 38, 39)])
    close(got[0], want[0])


@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)],
                         ids=["f16", "bf16"])
def test_half_with_mask(cuda, needs_families, dtype, tol):
    """fp16/bf16 with a mask run the memory-efficient kernels too (without
    one PyTorch picks flash attention, not mapped).  Checked against a
    float64 evaluation of the same rounded inputs, to about the dtype's
    rounding (the cpu's own fp16 result is no closer)."""
    q, k, v = (make((2, 2, n, 32), s).to(dtype) for n, s in ((40, 40), (48, 41), (48, 42)))
    mask = make((40, 48), 43).to(dtype)
    g = make((2, 2, 40, 32), 44).to(dtype)
    ins = [t.to(cuda).requires_grad_() for t in (q, k, v)]
    out = F.scaled_dot_product_attention(*ins, attn_mask=mask.to(cuda))
    out.backward(g.to(cuda))
    got = [out.detach().cpu()] + [t.grad.cpu() for t in ins]
    ref_in = [t.double().requires_grad_() for t in (q, k, v)]
    ref = F.scaled_dot_product_attention(*ref_in, attn_mask=mask.double())
    ref.backward(g.double())
    want = [ref.detach()] + [t.grad for t in ref_in]
    for a, w in zip(got, want):
        assert a.dtype == dtype
        scale = max(1.0, w.abs().max().item())
        assert (a.double() - w).abs().max().item() <= tol * scale
