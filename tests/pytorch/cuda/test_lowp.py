"""float16 / bfloat16 ("low precision") coverage of the op-table families:
the ops one mixed-precision training step of a transformer or MLP launches
(`.half()` / `.bfloat16()` models, torch.autocast, GradScaler), forward and
backward, on cuda under torchfl.

Reference and tolerance.  PyTorch's CUDA kernels load half/bfloat16 into
float32, compute, and round the result once to the storage type.  So the
reference here is the same op evaluated in float64 on the cpu from the same
rounded inputs (and the same rounded output gradient), and a result may
differ from it by about one rounding of its dtype plus float32 noise:

    |got - ref| <= ulps * eps * (|ref| + max|ref|)

eps = 2^-10 ~ 9.8e-4 for float16 and 2^-7 ~ 7.8e-3 for bfloat16 (the
"~1e-3 fp16 / ~1e-2 bf16" of half-precision practice): each element is
allowed a unit of its own magnitude plus a unit of the tensor's largest
magnitude, since entries that cancel (gradients) carry the absolute error
of the float32 sums they come from.  PyTorch's own cpu kernels in half are
no closer to this reference than the cuda ones (their backward passes round
intermediates), so comparing cuda with cpu-in-the-same-dtype would need a
looser bound.  Where a check chains several rounded steps (a backward
through a half matmul, optimiser steps, a training run) the factor is
stated at the check.  Integer, mask and index results are exact.
"""
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

LOWP = [torch.float16, torch.bfloat16]
IDS = ["f16", "bf16"]
EPS = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7, torch.float32: 2.0 ** -23}


def make(shape, dtype=torch.float32, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(tuple(shape), generator=g) * scale).to(dtype)


def close(got, want, dtype=None, ulps=1.0):
    """got (a result from cuda) against want (the float64 reference, or an
    exactly comparable cpu result) by the module docstring's rule, with
    the eps of `dtype` (default: got's dtype)."""
    got = got.detach().cpu()
    want = want.detach().cpu()
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.numel() == 0:
        return
    g, w = got.double(), want.double()
    assert torch.equal(torch.isnan(g), torch.isnan(w))
    fin = ~torch.isnan(w)
    g, w = g[fin], w[fin]
    eps = EPS[dtype or got.dtype]
    bound = ulps * eps * (w.abs() + w.abs().max())
    err = (g - w).abs()
    bad = err > bound
    assert not bad.any(), (f"max err {err.max().item():.3g} (scale {w.abs().max().item():.3g}, "
                           f"eps {eps:.3g}); {int(bad.sum())} of {err.numel()} bad")


def vs_ref(fn, inputs, cuda, grad=True, out_grad_seed=99, ulps=1.0, out_dtype=None):
    """fn on cuda copies of inputs (cpu tensors) and on float64 copies of
    the same rounded values on cpu; when grad, also backward a random
    output gradient (rounded to the cuda output's dtype) into every
    floating input.  Checks out and gradients with close()."""
    got, want = [], []
    for dev in (cuda, "ref"):
        if dev == "ref":
            ins = [t.detach().double() if t.is_floating_point() else t for t in inputs]
        else:
            ins = [t.detach().clone().to(dev) for t in inputs]
        if grad:
            ins = [t.requires_grad_() if t.is_floating_point() else t for t in ins]
        out = fn(*ins)
        row = [out.detach()]
        if grad:
            gdt = got[0].dtype if dev == "ref" else out.dtype
            g = make(out.shape, torch.float32, out_grad_seed).to(gdt).to(out.dtype)
            out.backward(g.to(out.device))
            row += [t.grad for t in ins if t.is_floating_point()]
        (want if dev == "ref" else got).extend(r.cpu() for r in row)
    assert out_dtype is None or got[0].dtype == out_dtype
    for i, (g, w) in enumerate(zip(got, want)):
        close(g, w, ulps=ulps)
    return got, want


# ------------------------------------------------------------------ norm

@pytest.mark.parametrize("shape", [(4, 33), (3, 5, 64), (2, 1024), (1, 7)],
                         ids=["odd", "3d", "wide", "tiny"])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_layer_norm(cuda, dtype, shape):
    n = shape[-1]
    x = make(shape, dtype, 1, 3.0) + 1
    w = make((n,), dtype, 2) + 1
    b = make((n,), dtype, 3)
    vs_ref(lambda x, w, b: F.layer_norm(x, (n,), w, b), [x, w, b], cuda, out_dtype=dtype)


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_layer_norm_no_affine(cuda, dtype):
    vs_ref(lambda x: F.layer_norm(x, (40,)), [make((6, 40), dtype, 4)], cuda)


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_layer_norm_under_autocast(cuda, dtype):
    """A LayerNorm with float32 weights after a half linear layer: cuda
    autocast runs layer_norm in float32 (its fp32 op list: the half input
    is cast up; PyTorch's cuda layer_norm refuses a half input with float32
    weights outside autocast), cpu autocast in the half dtype.  So the two
    differ by the rounding of the cpu output and a differently ordered half
    matmul: four units of the dtype."""
    torch.manual_seed(5)
    lin = nn.Linear(24, 48)
    ln = nn.LayerNorm(48)
    x = make((10, 24), torch.float32, 6)
    res = []
    for dev in ("cpu", cuda):
        l1, l2 = [m_copy(m, dev) for m in (lin, ln)]
        with torch.autocast(torch.device(dev).type, dtype=dtype):
            h = l1(x.to(dev))
            y = l2(h)
        assert h.dtype == dtype and y.dtype == (dtype if dev == "cpu" else torch.float32)
        y.backward(make(y.shape, dtype, 7).to(y.dtype).to(dev))
        res.append([y.detach().cpu().float(), l2.weight.grad.cpu(), l1.weight.grad.cpu()])
    for g, r in zip(res[1], res[0]):
        close(g, r, dtype=dtype, ulps=4)


def m_copy(m, dev):
    import copy
    return copy.deepcopy(m).to(dev)


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_rms_norm(cuda, dtype):
    x = make((5, 3, 64), dtype, 11)
    w = make((64,), dtype, 12) + 1
    vs_ref(lambda x, w: F.rms_norm(x, (64,), w, eps=1e-6), [x, w], cuda, out_dtype=dtype)


# --------------------------------------------------------------- softmax

@pytest.mark.parametrize("shape,dim", [((7, 33), -1), ((4, 1500), -1), ((6, 5, 9), 1),
                                       ((3, 64), 0)], ids=["odd", "long", "mid", "outer"])
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_softmax(cuda, dtype, log, shape, dim):
    f = F.log_softmax if log else F.softmax
    vs_ref(lambda x: f(x, dim), [make(shape, dtype, 13, 3.0)], cuda, out_dtype=dtype)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_softmax_to_float(cuda, dtype, log):
    """half input, float32 result (dtype=torch.float32), as autocast's
    softmax does: the output is float32 math on exact inputs (a few float32
    units); the input gradient is rounded once to the half dtype."""
    f = F.log_softmax if log else F.softmax
    x = make((9, 130), dtype, 14, 3.0)
    got, want = vs_ref(lambda x: f(x, -1, dtype=torch.float32), [x], cuda, ulps=1e9)
    assert got[0].dtype == torch.float32 and got[1].dtype == dtype
    close(got[0], want[0], ulps=16)
    close(got[1], want[1])


# ------------------------------------------------------------------ loss

@pytest.mark.parametrize("kw", [{}, {"label_smoothing": 0.1}, {"ignore_index": 3},
                                {"reduction": "sum"}, {"reduction": "none"}],
                         ids=["mean", "smooth", "ignore", "sum", "none"])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_cross_entropy(cuda, dtype, kw):
    """log_softmax (rounded to the dtype) then nll_loss: two roundings in
    the loss, and the gradient is computed from the rounded log-probs."""
    logits = make((37, 50), dtype, 15, 2.0)
    tgt = torch.randint(0, 50, (37,), generator=torch.Generator().manual_seed(16))
    tgt[::5] = 3
    vs_ref(lambda x, t: F.cross_entropy(x, t, **kw), [logits, tgt], cuda, ulps=2,
           out_dtype=dtype)


# ----------------------------------------------------------- elementwise

ACTS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
}


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_activation(cuda, dtype, act):
    # tanh/sigmoid backward use the rounded output: a second rounding
    vs_ref(ACTS[act], [make((3, 1001), dtype, 17, 3.0)], cuda, ulps=2, out_dtype=dtype)


BINARY = {
    "add": lambda a, b: a + b,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=0.5),
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "bcast_mul": lambda a, b: a * b[:1],
    "scalar_mul": lambda a, b: a * 0.3 + b,
    "where": lambda a, b: torch.where(a > 0, a, b),
    "masked_fill": lambda a, b: a.masked_fill(b < 0, -1e4) + b,
    "maximum": torch.maximum,
    "pow2": lambda a, b: a.pow(2) + b,
}


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_binary(cuda, dtype, op):
    a = make((17, 65), dtype, 18)
    b = make((17, 65), dtype, 19) + (3.0 if op == "div" else 0.0)
    # up to two ops, each rounded
    vs_ref(BINARY[op], [a, b], cuda, ulps=2, out_dtype=dtype)


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_binary_transposed(cuda, dtype):
    a = make((40, 33), dtype, 20)
    b = make((33, 40), dtype, 21)
    vs_ref(lambda a, b: a * b.t() + a, [a, b], cuda, ulps=2, out_dtype=dtype)


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_mixed_with_float(cuda, dtype):
    """half op float32 promotes to float32 (the computation autocast leaves
    between a half matmul and a float32 residual): float32 results within
    float32 units, the half input's gradient within the half's."""
    a = make((9, 31), dtype, 22)
    b = make((9, 31), torch.float32, 23)
    got, want = vs_ref(lambda a, b: a + b * a, [a, b], cuda, ulps=1e9)
    assert [t.dtype for t in got] == [torch.float32, dtype, torch.float32]
    close(got[0], want[0], ulps=4)
    close(got[1], want[1])
    close(got[2], want[2], ulps=4)


@pytest.mark.parametrize("to", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_casts(cuda, dtype, to):
    x = make((1000,), dtype, 24, 100.0)
    got = x.to(cuda).to(to).cpu()
    assert torch.equal(got, x.to(to))


# --------------------------------------------------------------- reduce

REDUCE = {
    "sum": lambda t: t.sum(),
    "sum_dim": lambda t: t.sum(1),
    "mean": lambda t: t.mean(0),
    "max": lambda t: t.max(),
    "max_dim": lambda t: t.max(1)[0],
    "amax": lambda t: t.amax(0),
    "var": lambda t: t.var(1),
    "norm": lambda t: t.norm(),
    "sum_f32": lambda t: t.sum(0, dtype=torch.float32),
}


@pytest.mark.parametrize("op", list(REDUCE))
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_reduce(cuda, dtype, op):
    """cuda accumulates half in float32 and rounds once (fp32 accumulation:
    a half accumulator would be off by far more than a unit here)."""
    x = make((23, 301), dtype, 25)
    got = REDUCE[op](x.to(cuda)).cpu()
    want = REDUCE[op](x.double())
    assert got.dtype == (torch.float32 if op == "sum_f32" else dtype)
    close(got, want, ulps=1 if op != "sum_f32" else 64)


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_reduce_backward(cuda, dtype):
    x = make((12, 70), dtype, 26)
    vs_ref(lambda t: (t.sum(1) + t.mean(0).sum() + t.norm()), [x], cuda, ulps=3)


# ------------------------------------------------------------ embedding

@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_embedding(cuda, dtype):
    w = make((50, 24), dtype, 27)
    idx = torch.randint(0, 50, (6, 13), generator=torch.Generator().manual_seed(28))
    idx[0, :5] = 7          # repeated rows: their gradients add up (in float)
    got, _ = vs_ref(lambda w, i: F.embedding(i, w), [w, idx], cuda, out_dtype=dtype)
    assert torch.equal(got[0], F.embedding(idx, w))


# --------------------------------------------------------------- random

@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_dropout_train(cuda, dtype):
    """Values differ from cpu's generator: check the semantics - each
    element kept (scaled by 1/(1-p), rounded) or zeroed, a plausible kept
    fraction, and the backward uses the same mask."""
    p = 0.25
    x = (make((64, 257), dtype, 29).abs() + 0.5).to(cuda).requires_grad_()
    y = F.dropout(x, p, training=True)
    y.backward(torch.ones_like(y))
    xc, yc, gc = x.detach().cpu(), y.detach().cpu(), x.grad.cpu()
    assert yc.dtype == dtype
    kept = yc != 0
    frac = kept.float().mean().item()
    assert abs(frac - (1 - p)) < 0.02, frac
    scaled = (xc.float() * (1 / (1 - p))).to(dtype)
    assert torch.equal(yc[kept], scaled[kept])
    assert torch.equal(gc[kept], torch.full_like(gc[kept], 1 / (1 - p)))
    assert torch.equal(gc[~kept], torch.zeros_like(gc[~kept]))


FILLS = {
    "rand": (lambda t: t.uniform_(), (0.0, 1.0)),
    "uniform": (lambda t: t.uniform_(-2.0, 3.0), (-2.0, 3.0)),
    "randn": (lambda t: t.normal_(), None),
    "normal": (lambda t: t.normal_(0.5, 2.0), None),
    "bernoulli": (lambda t: t.bernoulli_(0.3), None),
}


@pytest.mark.parametrize("fill", list(FILLS))
@pytest.mark.parametrize("shape", [(10000,), (37, 129)], ids=["flat", "2d"])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_random_fill(cuda, dtype, shape, fill):
    """uniform_ / normal_ into half: PyTorch draws the same float Philox
    stream as for float32 (same grid, 4 draws per thread) and rounds each
    result once (uniform: a value that rounds up to `to` becomes `from`).
    So under one seed the half tensor is the float32 one rounded - and the
    float32 path is checked against an independent Philox in
    test_random.py.  Plus the moments of the distribution."""
    fn, bounds = FILLS[fill]
    torch.manual_seed(30)
    f = fn(torch.empty(shape, device=cuda)).cpu()
    torch.manual_seed(30)
    h = fn(torch.empty(shape, device=cuda, dtype=dtype)).cpu()
    assert h.dtype == dtype
    want = f.to(dtype)
    if bounds:
        lo, hi = bounds
        want = torch.where(want == hi, torch.tensor(lo, dtype=dtype), want)
        assert h.min() >= lo and h.max() < hi
        assert abs(h.float().mean().item() - (lo + hi) / 2) < 0.03 * (hi - lo)
    elif fill == "bernoulli":
        assert set(h.unique().tolist()) <= {0.0, 1.0}
        assert abs(h.float().mean().item() - 0.3) < 0.03
    else:
        mean, std = (0.0, 1.0) if fill == "randn" else (0.5, 2.0)
        assert abs(h.float().mean().item() - mean) < 0.06 * std
        assert abs(h.float().std().item() - std) < 0.06 * std
    assert torch.equal(h, want)


# ------------------------------------------------------------ attention

SDPA_SHAPES = {
    # (batch, heads, q len, k len, head dim, kv heads)
    "small": (2, 4, 40, 40, 32, 4),
    "tiles": (1, 2, 300, 300, 64, 2),       # several 128-row query tiles
    "cross": (2, 2, 37, 70, 32, 2),         # q len != k len
    "gqa": (1, 4, 48, 48, 32, 2),           # grouped-query (enable_gqa)
}


# is_causal with q len != k len: PyTorch's mask is top-left there and it
# does not pick flash attention, so that case is left out
SDPA_CASES = [(c, s) for c in (False, True) for s in SDPA_SHAPES
              if not (c and SDPA_SHAPES[s][2] != SDPA_SHAPES[s][3])]


@pytest.mark.parametrize("causal,shape", SDPA_CASES,
                         ids=[("causal-" if c else "full-") + s for c, s in SDPA_CASES])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_sdpa(cuda, dtype, causal, shape):
    """Without a mask PyTorch picks flash attention for half at cc 8.0
    (pytorch_flash::flash_fwd_kernel; backward: flash_bwd_dot_do_o,
    flash_bwd_dq_dk_dv_loop_seqk_parallel, flash_bwd_convert_dq).
    Reference: float64 evaluation of the same rounded inputs; the bound is
    two roundings of the dtype relative to the largest value (the output
    is rounded once, the backward works from the rounded output)."""
    b, h, m, n, d, hk = SDPA_SHAPES[shape]
    gqa = {"enable_gqa": True} if hk != h else {}
    q = make((b, h, m, d), dtype, 31)
    k, v = (make((b, hk, n, d), dtype, s) for s in (32, 33))
    g = make((b, h, m, d), dtype, 34)
    ins = [t.to(cuda).requires_grad_() for t in (q, k, v)]
    out = F.scaled_dot_product_attention(*ins, is_causal=causal, **gqa)
    out.backward(g.to(cuda))
    got = [out.detach().cpu()] + [t.grad.cpu() for t in ins]
    ref_in = [t.double().requires_grad_() for t in (q, k, v)]
    ref = F.scaled_dot_product_attention(*ref_in, is_causal=causal, **gqa)
    ref.backward(g.double())
    want = [ref.detach()] + [t.grad for t in ref_in]
    for a, w in zip(got, want):
        assert a.dtype == dtype and a.shape == w.shape
        scale = max(1.0, w.abs().max().item())
        assert (a.double() - w).abs().max().item() <= 2 * EPS[dtype] * scale


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_sdpa_dropout(cuda, dtype, causal):
    """Flash attention with dropout_p: the mask is torchfl's own (PyTorch's
    GPU bit pattern is not observable), so check the semantics.  With V
    the identity (head dim = key count) the output row is P * Z / (1 - p),
    which exposes the mask Z; then out and all gradients must equal a
    float64 evaluation with that Z (the backward used the same mask), the
    kept fraction must be about 1 - p, and the same seed gives the same
    result, another seed another mask."""
    p, b, h, n = 0.3, 2, 2, 32
    q, k = (make((b, h, n, n), dtype, s) for s in (40, 41))
    v = torch.eye(n).expand(b, h, n, n).to(dtype).contiguous()
    g = make((b, h, n, n), dtype, 42)

    def run(seed):
        torch.manual_seed(seed)
        ins = [t.to(cuda).requires_grad_() for t in (q, k, v)]
        out = F.scaled_dot_product_attention(*ins, dropout_p=p, is_causal=causal)
        out.backward(g.to(cuda))
        return [out.detach().cpu()] + [t.grad.cpu() for t in ins]

    got = run(7)
    assert all(torch.equal(a, c) for a, c in zip(got, run(7)))
    other = run(8)[0]
    z = (got[0] != 0).double()
    assert not torch.equal(z, (other != 0).double())
    visible = torch.ones(n, n).tril() if causal else torch.ones(n, n)
    frac = (z.sum() / (visible.sum() * b * h)).item()
    assert abs(frac - (1 - p)) < 0.05, frac
    ref_in = [t.double().requires_grad_() for t in (q, k, v)]
    s_ = ref_in[0] @ ref_in[1].transpose(-1, -2) / math.sqrt(n)
    if causal:
        s_ = s_.masked_fill(visible == 0, -math.inf)
    ref = (torch.softmax(s_, -1) * z / (1 - p)) @ ref_in[2]
    ref.backward(g.double())
    want = [ref.detach()] + [t.grad for t in ref_in]
    for a, w in zip(got, want):
        assert a.dtype == dtype
        scale = max(1.0, w.abs().max().item())
        assert (a.double() - w).abs().max().item() <= 2 * EPS[dtype] * scale


# ---------------------------------------------------------------- index

INDEX = {
    "index_select": lambda x, i: x.index_select(0, i),
    "adv_index": lambda x, i: x[i, 1:7],
    "gather": lambda x, i: x.gather(1, i.view(-1, 1).expand(-1, 4) % x.shape[1]),
    "scatter_add": lambda x, i: torch.zeros(20, 12, dtype=x.dtype, device=x.device)
    .scatter_add(0, i.view(-1, 1).expand(-1, 12), x[:i.numel()]),
    "cat": lambda x, i: torch.cat([x, x[:3] * 2, x[:, :6].t().reshape(-1, 12)], 0),
    "stack_t": lambda x, i: torch.stack([x.t(), x.t()], 1),
    "narrow_copy": lambda x, i: x[2:9, 3:].contiguous(),
}


@pytest.mark.parametrize("op", list(INDEX))
@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_index(cuda, dtype, op):
    x = make((20, 12), dtype, 35)
    i = torch.randint(0, 20, (9,), generator=torch.Generator().manual_seed(36))
    # data movement is exact (scatter_add: one rounded add per element);
    # the gradient sums repeated indices in float.  adv_index: forward only
    # (its backward sorts the indices with cub first, not an op-table family
    # of this file's)
    got, _ = vs_ref(INDEX[op], [x, i], cuda, out_dtype=dtype, grad=op != "adv_index")
    if op != "scatter_add":
        assert torch.equal(got[0], INDEX[op](x, i))


# ----------------------------------------------------- optimiser / amp

def _params(dtype, n=3, seed=40):
    return [make(s, dtype, seed + j) for j, s in enumerate([(17, 9), (9,), (129,)][:n])]


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_clip_grad_norm(cuda, dtype):
    res = []
    for dev in ("cpu", cuda):
        ps = [nn.Parameter(t.to(dev)) for t in _params(dtype)]
        for j, p in enumerate(ps):
            p.grad = make(p.shape, dtype, 50 + j, 3.0).to(dev)
        total = torch.nn.utils.clip_grad_norm_(ps, 1.0)
        res.append([total.cpu()] + [p.grad.cpu() for p in ps])
    for g, r in zip(res[1], res[0]):
        close(g, r, ulps=2)


OPTS = {
    "adamw_foreach": lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1, foreach=True),
    "adamw_fused": lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1, fused=True),
    "adam_foreach": lambda ps: torch.optim.Adam(ps, lr=1e-2, foreach=True),
    "adam_fused": lambda ps: torch.optim.Adam(ps, lr=1e-2, fused=True),
    "sgd_foreach": lambda ps: torch.optim.SGD(ps, lr=1e-2, momentum=0.9, foreach=True),
    "sgd_fused": lambda ps: torch.optim.SGD(ps, lr=1e-2, momentum=0.9, fused=True),
    "adamw_fused_amsgrad": lambda ps: torch.optim.AdamW(ps, lr=1e-2, amsgrad=True, fused=True),
    "adam_foreach_amsgrad": lambda ps: torch.optim.Adam(ps, lr=1e-2, amsgrad=True, foreach=True),
}


@pytest.mark.parametrize("opt", list(OPTS))
@pytest.mark.parametrize("dtype", LOWP + [torch.float32], ids=IDS + ["f32master"])
def test_optimizer(cuda, dtype, opt):
    """Three steps on half/bf16 params (optimizer state in the param dtype,
    math in float32 per element), or float32 master params (autocast).
    Reference: the cpu optimiser (fused=True is cpu-supported too; the
    cpu's foreach falls back to the per-tensor loop, same math).  Each
    step is one float32 update rounded once, so a few units of the dtype."""
    res = []
    for dev in ("cpu", cuda):
        ps = [nn.Parameter(t.to(dev)) for t in _params(dtype)]
        # PyTorch 2.11's cpu fused SGD gives wrong half momentum buffers for
        # some of these parameters (seen: an entry of -402 after two steps,
        # where its foreach and single-tensor SGD agree with cuda); its
        # foreach SGD is the same math and serves as the reference
        ref_opt = "sgd_foreach" if dev == "cpu" and opt == "sgd_fused" else opt
        o = OPTS[ref_opt](ps)
        for step in range(3):
            for j, p in enumerate(ps):
                p.grad = make(p.shape, dtype, 60 + 10 * step + j).to(dev)
            o.step()
        res.append([p.detach().cpu() for p in ps])
    for g, r in zip(res[1], res[0]):
        close(g, r, ulps=2)


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_grad_scaler(cuda, dtype):
    """GradScaler on float32 master params (autocast): unscale with the
    non-finite check, skipped step on inf and the scale update."""
    torch.manual_seed(70)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4)).to(cuda)
    ref = m_copy(model, "cpu")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda", init_scale=1024.0, growth_interval=1)
    x = make((8, 16), torch.float32, 71).to(cuda)
    before = [p.detach().cpu().clone() for p in model.parameters()]
    # step 1: finite grads
    with torch.autocast("cuda", dtype=dtype):
        loss = model(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    grads = [p.grad.detach().cpu().clone() for p in model.parameters()]
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 2048.0          # grown after a good step
    after = [p.detach().cpu() for p in model.parameters()]
    assert all(not torch.equal(a, b) for a, b in zip(after, before))
    # the unscaled gradient is the plain one: cpu autocast, no scaling
    with torch.autocast("cpu", dtype=dtype):
        rl = ref(x.cpu()).float().pow(2).mean()
    rl.backward()
    for g, p in zip(grads, ref.parameters()):
        # half backward through two linears: a few units of the dtype
        close(g, p.grad, ulps=8, dtype=dtype)
    # step 2: an inf gradient: the step is skipped and the scale backs off
    with torch.autocast("cuda", dtype=dtype):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    list(model.parameters())[0].grad[0, 0] = float("inf")
    kept = [p.detach().cpu().clone() for p in model.parameters()]
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 1024.0
    assert all(torch.equal(p.detach().cpu(), k) for p, k in zip(model.parameters(), kept))


def test_unscale_non_finite_check(cuda):
    """torch._amp_foreach_non_finite_check_and_unscale_ directly on float16
    and float32 grads (PyTorch's cuda kernel has no bfloat16 instance):
    found_inf set exactly when any is inf/nan, values scaled in float and
    rounded once."""
    for dtype in (torch.float16, torch.float32):
        gs = [make((33,), dtype, 80), make((5, 7), dtype, 81)]
        for bad in (None, float("inf"), float("nan")):
            gc = [g.clone().to(cuda) for g in gs]
            if bad is not None:
                gc[1][2, 3] = bad
            found = torch.zeros(1, device=cuda)
            inv = torch.full((1,), 0.3, device=cuda)
            torch._amp_foreach_non_finite_check_and_unscale_(gc, found, inv)
            assert found.item() == (0.0 if bad is None else 1.0)
            if bad is None:
                for g, r in zip(gc, gs):
                    assert torch.equal(g.cpu(), (r.float() * torch.tensor(0.3)).to(dtype))


# ----------------------------------------------------- whole training

def _gpt(dropout=0.0):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[3] / "examples" / "gpt_tiny.py"
    spec = importlib.util.spec_from_file_location("gpt_tiny", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("dtype", LOWP, ids=IDS)
def test_gpt_autocast_training(cuda, dtype):
    """A few AdamW steps of examples/gpt_tiny.py's model under autocast on
    cuda and under cpu autocast, from the same weights and batches.  The
    two sides launch different kernels (cpu and cuda autocast differ in
    which ops they keep in float32), so losses agree to about the
    accumulation-order noise (bounds below), and both must fall."""
    gpt = _gpt()
    torch.manual_seed(90)
    model = gpt.TinyGPT()
    g = torch.Generator().manual_seed(91)
    batches = [torch.randint(0, gpt.VOCAB, (8, gpt.BLOCK + 1), generator=g) for _ in range(6)]
    # the first batch is reused so a falling loss is guaranteed
    batches = [batches[0]] * 6
    losses = {}
    for dev in ("cpu", "cuda"):
        m = m_copy(model, dev)
        opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.1)
        ls = []
        for b in batches:
            b = b.to(dev)
            with torch.autocast(dev, dtype=dtype):
                logits = m(b[:, :-1])
                loss = F.cross_entropy(logits.reshape(-1, gpt.VOCAB).float(), b[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            ls.append(loss.item())
        losses[dev] = ls
    # the two sides round the same half values but sum differently (cpu and
    # cuda autocast also keep different ops in float32); observed agreement
    # is ~1e-5 (fp16) / ~5e-5 (bf16) relative per step over six steps, so
    # these bounds leave a 10-20x margin yet catch any wrong kernel (a
    # mis-rounded op or a wrong gradient moves the loss by >1e-2)
    tol = 1e-3 if dtype == torch.bfloat16 else 2e-4
    for a, b in zip(losses["cuda"], losses["cpu"]):
        assert math.isfinite(a) and abs(a - b) <= tol * abs(b), (losses)
    assert losses["cuda"][-1] < losses["cuda"][0] - 0.1
