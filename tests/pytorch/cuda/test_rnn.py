"""Recurrent networks under torchfl: PyTorch 2.11 runs nn.RNN / nn.LSTM /
nn.GRU on cuda through cuDNN's v8 RNN API (cudnnRNNForward,
cudnnRNNBackwardData_v8, cudnnRNNBackwardWeights_v8), which torchfl
answers in src/intercept/cudnn/cudnn_rnn.c and runs as TFL_OP_RNN on the
host (sgemm + the cell equations).  Every case is computed on `cuda` and on
`cpu` from the same module weights and inputs (made on the CPU, copied):
the output, h_n, c_n, and the gradients of the input, h0 / c0 and every
weight and bias, over the cell kinds, layer counts, bidirectional,
batch_first, h0 given or not, packed sequences (sorted and unsorted),
float64, float16 / bfloat16 (and autocast), inference, dropout between layers in training (torchfl's own mask), and
what torchfl refuses (projections) fails with a clean error and the
process goes on.
"""
import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

RTOL, ATOL = 1e-4, 1e-5

KINDS = ["lstm", "gru", "rnn_tanh", "rnn_relu"]


def _module(kind, *args, **kw):
    if kind == "lstm":
        return torch.nn.LSTM(*args, **kw)
    if kind == "gru":
        return torch.nn.GRU(*args, **kw)
    return torch.nn.RNN(*args, nonlinearity=kind[4:], **kw)


def _pair(kind, inp, hid, seed, **kw):
    torch.manual_seed(seed)
    m = _module(kind, inp, hid, **kw)
    mc = _module(kind, inp, hid, **kw).cuda()
    mc.load_state_dict(m.state_dict())
    return m, mc


def _close(got, want, what):
    got = got.detach().cpu()
    assert got.shape == want.shape, what
    assert torch.allclose(got, want, rtol=RTOL, atol=ATOL), \
        "{}: max abs err {}".format(what, (got - want.detach()).abs().max().item())


def _run(m, x, h0, kind):
    if h0 is None:
        return m(x)
    return m(x, h0)


def _states(kind, layers, dirs, batch, hid, g):
    h = torch.randn(layers * dirs, batch, hid, generator=g)
    if kind == "lstm":
        return (h, torch.randn(layers * dirs, batch, hid, generator=g))
    return h


def _to(s, dev):
    if s is None:
        return None
    if isinstance(s, tuple):
        return tuple(t.to(dev).requires_grad_() for t in s)
    return s.to(dev).requires_grad_()


def _flat(s):
    if s is None:
        return []
    return list(s) if isinstance(s, tuple) else [s]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layers", [1, 2, 3])
@pytest.mark.parametrize("bidir", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_h0", [False, True])
def test_rnn_fwd_bwd(cuda, kind, layers, bidir, batch_first, with_h0):
    T, B, I, H = 5, 3, 4, 6
    m, mc = _pair(kind, I, H, 1000 + layers, num_layers=layers, bidirectional=bidir,
                  batch_first=batch_first)
    g = torch.Generator().manual_seed(7 * layers + bidir)
    x = torch.randn(B, T, I, generator=g) if batch_first else torch.randn(T, B, I, generator=g)
    dirs = 2 if bidir else 1
    s0 = _states(kind, layers, dirs, B, H, g) if with_h0 else None
    xc, sc = x.to(cuda).requires_grad_(), _to(s0, cuda)
    x.requires_grad_()
    s0 = _to(s0, "cpu")
    y, hn = _run(m, x, s0, kind)
    yc, hnc = _run(mc, xc, sc, kind)
    _close(yc, y, "output")
    for a, b, n in zip(_flat(hnc), _flat(hn), ["h_n", "c_n"]):
        _close(a, b, n)
    gy = torch.randn(y.shape, generator=g)
    gh = [torch.randn(t.shape, generator=g) for t in _flat(hn)]
    loss = (y * gy).sum() + sum((t * w).sum() for t, w in zip(_flat(hn), gh))
    lossc = (yc * gy.to(cuda)).sum() + sum((t * w.to(cuda)).sum() for t, w in zip(_flat(hnc), gh))
    loss.backward()
    lossc.backward()
    _close(xc.grad, x.grad, "grad input")
    for a, b, n in zip(_flat(sc), _flat(s0), ["grad h0", "grad c0"]):
        _close(a.grad, b.grad, n)
    for (n, p), (_, pc) in zip(m.named_parameters(), mc.named_parameters()):
        _close(pc.grad, p.grad, "grad " + n)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bidir", [False, True])
@pytest.mark.parametrize("sorted_", [True, False])
def test_rnn_packed(cuda, kind, bidir, sorted_):
    I, H, layers = 3, 5, 2
    lengths = [6, 4, 4, 1] if sorted_ else [2, 6, 1, 4]
    m, mc = _pair(kind, I, H, 77, num_layers=layers, bidirectional=bidir)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(max(lengths), len(lengths), I, generator=g)
    xc = x.to(cuda).requires_grad_()
    x.requires_grad_()
    p = pack_padded_sequence(x, lengths, enforce_sorted=sorted_)
    pc = pack_padded_sequence(xc, lengths, enforce_sorted=sorted_)
    y, hn = m(p)
    yc, hnc = mc(pc)
    out, _ = pad_packed_sequence(y)
    outc, _ = pad_packed_sequence(yc)
    _close(outc, out, "output")
    for a, b, n in zip(_flat(hnc), _flat(hn), ["h_n", "c_n"]):
        _close(a, b, n)
    gy = torch.randn(out.shape, generator=g)
    (out * gy).sum().backward()
    (outc * gy.to(cuda)).sum().backward()
    _close(xc.grad, x.grad, "grad input")
    for (n, q), (_, qc) in zip(m.named_parameters(), mc.named_parameters()):
        _close(qc.grad, q.grad, "grad " + n)


@pytest.mark.parametrize("kind", KINDS)
def test_rnn_inference(cuda, kind):
    # eval + no_grad: cudnnRNNForward in inference mode, no reserve space;
    # dropout between layers is off in eval, so it is accepted.
    m, mc = _pair(kind, 4, 7, 3, num_layers=2, bidirectional=True, dropout=0.5)
    m.eval()
    mc.eval()
    x = torch.randn(6, 2, 4, generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        y, hn = m(x)
        yc, hnc = mc(x.to(cuda))
    _close(yc, y, "output")
    for a, b, n in zip(_flat(hnc), _flat(hn), ["h_n", "c_n"]):
        _close(a, b, n)


def test_lstm_training_steps(cuda):
    # A few SGD steps of an LSTM + linear head: the losses must follow the CPU's.
    torch.manual_seed(11)
    m = torch.nn.LSTM(3, 8, num_layers=2, batch_first=True)
    head = torch.nn.Linear(8, 1)
    mc = torch.nn.LSTM(3, 8, num_layers=2, batch_first=True).cuda()
    headc = torch.nn.Linear(8, 1).cuda()
    mc.load_state_dict(m.state_dict())
    headc.load_state_dict(head.state_dict())
    g = torch.Generator().manual_seed(12)
    x = torch.randn(4, 10, 3, generator=g)
    t = torch.randn(4, 1, generator=g)
    opt = torch.optim.SGD(list(m.parameters()) + list(head.parameters()), lr=0.1)
    optc = torch.optim.SGD(list(mc.parameters()) + list(headc.parameters()), lr=0.1)
    for _ in range(4):
        for mod, hd, o, xx, tt in ((m, head, opt, x, t), (mc, headc, optc, x.to(cuda), t.to(cuda))):
            o.zero_grad()
            y, _ = mod(xx)
            loss = ((hd(y[:, -1]) - tt) ** 2).mean()
            loss.backward()
            o.step()
            if mod is m:
                lc = loss.item()
            else:
                assert abs(loss.item() - lc) <= 1e-4 * (1 + abs(lc)), (loss.item(), lc)


@pytest.mark.parametrize("kind", KINDS)
def test_rnn_dropout_training(cuda, kind):
    # Dropout between layers in training draws torchfl's own mask (not
    # cuDNN's RNG), so only what does not depend on the draw is compared
    # with the CPU: layer 0's final states (dropout acts after layer 0).
    # The rest: a new mask per call, the eval output differs, gradients
    # flow (finite, nonzero) into every parameter.
    m, mc = _pair(kind, 4, 6, 21, num_layers=3, bidirectional=True, dropout=0.5)
    x = torch.randn(5, 3, 4, generator=torch.Generator().manual_seed(2))
    y, hn = m(x)
    yc, hnc = mc(x.to(cuda))
    for a, b, n in zip(_flat(hnc), _flat(hn), ["h_n", "c_n"]):
        _close(a[:2], b[:2], n + " of layer 0")
    yc2, _ = mc(x.to(cuda))
    assert not torch.equal(yc.detach().cpu(), yc2.detach().cpu()), "same mask twice"
    mc.eval()
    with torch.no_grad():
        ye, _ = mc(x.to(cuda))
    mc.train()
    assert not torch.allclose(ye.cpu(), yc.detach().cpu()), "dropout had no effect"
    yc.sum().backward()
    for n, p in mc.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), n
        assert p.grad.abs().sum().item() > 0, n


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bidir", [False, True])
def test_rnn_double(cuda, kind, bidir):
    # float64 RNNs go to cuDNN too: computed in double (dgemm), so they
    # match the CPU to double rounding.
    torch.manual_seed(41)
    m = _module(kind, 3, 4, num_layers=2, bidirectional=bidir).double()
    mc = _module(kind, 3, 4, num_layers=2, bidirectional=bidir).cuda().double()
    mc.load_state_dict(m.state_dict())
    g = torch.Generator().manual_seed(8)
    x = torch.randn(5, 2, 3, generator=g, dtype=torch.float64)
    xc = x.to(cuda).requires_grad_()
    x.requires_grad_()
    y, hn = m(x)
    yc, hnc = mc(xc)
    assert yc.dtype == torch.float64

    def near(got, want, what):
        got = got.detach().cpu()
        assert torch.allclose(got, want.detach(), rtol=1e-11, atol=1e-12), \
            "{}: max abs err {}".format(what, (got - want.detach()).abs().max().item())

    near(yc, y, "output")
    for a, b, n in zip(_flat(hnc), _flat(hn), ["h_n", "c_n"]):
        near(a, b, n)
    gy = torch.randn(y.shape, generator=g, dtype=torch.float64)
    (y * gy).sum().backward()
    (yc * gy.to(cuda)).sum().backward()
    near(xc.grad, x.grad, "grad input")
    for (n, p), (_, pc) in zip(m.named_parameters(), mc.named_parameters()):
        near(pc.grad, p.grad, "grad " + n)


LOWP_TOL = {torch.float16: 3e-3, torch.bfloat16: 2e-2}


# (bfloat16 modules are not flattened by PyTorch: it warns and copies.)
@pytest.mark.filterwarnings("ignore:RNN module weights are not part")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("kind", KINDS)
def test_rnn_half(cuda, kind, dtype):
    # Half / bfloat16 storage, float math (cuDNN's math precision for half
    # RNNs): compared with the CPU in float32 from the same rounded
    # weights and inputs, to a few units of the storage type's rounding.
    torch.manual_seed(31)
    mc = _module(kind, 4, 5, num_layers=2, bidirectional=True).cuda().to(dtype)
    m = _module(kind, 4, 5, num_layers=2, bidirectional=True)
    m.load_state_dict({k: v.float().cpu() for k, v in mc.state_dict().items()})
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 3, 4, generator=g).to(dtype)
    xc = x.to(cuda).requires_grad_()
    xf = x.float().requires_grad_()
    y, hn = m(xf)
    yc, hnc = mc(xc)
    assert yc.dtype == dtype
    tol = LOWP_TOL[dtype]

    def near(got, want, what):
        got = got.detach().float().cpu()
        err = (got - want.detach()).abs().max().item()
        assert err <= tol * (1 + want.abs().max().item()), "{}: max abs err {}".format(what, err)

    near(yc, y, "output")
    for a, b, n in zip(_flat(hnc), _flat(hn), ["h_n", "c_n"]):
        near(a, b, n)
    gy = torch.randn(y.shape, generator=g).to(dtype)
    (y * gy.float()).sum().backward()
    (yc * gy.to(cuda)).sum().backward()
    near(xc.grad, xf.grad, "grad input")
    for (n, p), (_, pc) in zip(m.named_parameters(), mc.named_parameters()):
        near(pc.grad, p.grad, "grad " + n)


def test_lstm_autocast(cuda):
    # Under autocast PyTorch runs the LSTM in float16 through cuDNN.
    torch.manual_seed(4)
    mc = torch.nn.LSTM(4, 5).cuda()
    with torch.autocast("cuda"):
        y, (h, c) = mc(torch.randn(3, 2, 4).to(cuda))
    assert y.dtype == torch.float16 and torch.isfinite(y).all()
    assert torch.equal(y[-1].float(), h[0].float())


def test_rnn_refusals(cuda):
    # LSTM projections are not computed by torchfl: a clean cuDNN error,
    # and the process goes on.
    x = torch.randn(3, 2, 4).to(cuda)
    with pytest.raises(RuntimeError, match="CUDNN_STATUS_NOT_SUPPORTED"):
        torch.nn.LSTM(4, 6, proj_size=3).cuda()(x)
    y, _ = torch.nn.GRU(4, 6).cuda()(x)
    assert y.shape == (3, 2, 6)
