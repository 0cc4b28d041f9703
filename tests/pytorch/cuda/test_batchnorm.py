"""Batch norm, instance norm and group norm under torchfl (the "batchnorm"
op family), float32, compared with PyTorch on the CPU from the same inputs
and the same upstream gradient.

With cuDNN enabled PyTorch sends affine batch norm of 3-d..5-d inputs to
cuDNN's batch norm (cudnnBatchNormalizationForwardTrainingEx ...), which
torchfl runs through the same op (src/intercept/cudnn/cudnn_batchnorm.c);
most tests here run with torch.backends.cudnn disabled so that PyTorch
uses its native kernels (Normalization.cuh), and the module and instance
norm tests run both ways.  2-d inputs and non-affine ones take the native
kernels either way.

Layouts: (N, C) and channels-last inputs use the channels-last kernels,
contiguous (N, C, L...) ones the accessor kernels; group norm covers
HxW == 1 (GroupNorm1d*), affine or not, and channels-last inputs (torch
2.15's ChannelsLast kernels)."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

RTOL, ATOL = 1e-5, 1e-5


def _close(a, b, rtol=RTOL, atol=ATOL):
    torch.testing.assert_close(a.detach().cpu(), b.detach(), rtol=rtol, atol=atol)


@pytest.fixture(autouse=True)
def _native_batch_norm():
    with torch.backends.cudnn.flags(enabled=False):
        yield


BN_SHAPES = [
    (8, 3),            # (N, C): channels-last kernels
    (5, 7),
    (2, 1),
    (4, 3, 10),        # (N, C, L)
    (3, 5, 1),
    (1, 4, 9),
    (6, 3, 5, 7),      # (N, C, H, W)
    (2, 16, 4, 4),
    (1, 2, 3, 3),
]


def _inputs(shape, seed):
    g = torch.Generator().manual_seed(seed)
    c = shape[1]
    x = torch.randn(shape, generator=g) * 2 + 0.7
    w = torch.randn(c, generator=g)
    b = torch.randn(c, generator=g)
    rm = torch.randn(c, generator=g)
    rv = torch.rand(c, generator=g) + 0.5
    dy = torch.randn(shape, generator=g)
    return x, w, b, rm, rv, dy


def _bn_both(cuda, x, w, b, rm, rv, dy, training, momentum=0.1, eps=1e-5, fmt=None):
    """F.batch_norm forward + backward on cuda and cpu; returns pairs."""
    res = []
    for dev in (cuda, torch.device("cpu")):
        xd = x.to(dev)
        if fmt is not None:
            xd = xd.contiguous(memory_format=fmt)
        xd = xd.detach().requires_grad_()
        wd = w.to(dev).requires_grad_() if w is not None else None
        bd = b.to(dev).requires_grad_() if b is not None else None
        rmd = rm.to(dev).clone() if rm is not None else None
        rvd = rv.to(dev).clone() if rv is not None else None
        y = F.batch_norm(xd, rmd, rvd, wd, bd, training=training, momentum=momentum, eps=eps)
        y.backward(dy.to(dev))
        res.append((y, xd.grad, wd.grad if wd is not None else None,
                    bd.grad if bd is not None else None, rmd, rvd))
    return res


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("running", [True, False])
def test_batch_norm_train(cuda, shape, affine, running):
    x, w, b, rm, rv, dy = _inputs(shape, 1)
    got, ref = _bn_both(cuda, x, w if affine else None, b if affine else None,
                        rm if running else None, rv if running else None, dy, training=True)
    for a, r in zip(got, ref):
        if r is None:
            assert a is None
        else:
            _close(a, r)


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval(cuda, shape, affine):
    x, w, b, rm, rv, dy = _inputs(shape, 2)
    got, ref = _bn_both(cuda, x, w if affine else None, b if affine else None, rm, rv, dy,
                        training=False)
    for a, r in zip(got, ref):
        if r is None:
            assert a is None
        else:
            _close(a, r)


@pytest.mark.parametrize("shape", [(6, 3, 5, 7), (2, 16, 4, 4), (3, 5, 2, 1)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_channels_last(cuda, shape, training):
    x, w, b, rm, rv, dy = _inputs(shape, 3)
    got, ref = _bn_both(cuda, x, w, b, rm, rv, dy, training=training,
                        fmt=torch.channels_last)
    for a, r in zip(got, ref):
        _close(a, r)


@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batch_norm_momentum_eps(cuda, momentum):
    x, w, b, rm, rv, dy = _inputs((7, 4, 6), 4)
    got, ref = _bn_both(cuda, x, w, b, rm, rv, dy, training=True, momentum=momentum, eps=1e-3)
    for a, r in zip(got, ref):
        _close(a, r)


@pytest.mark.parametrize("cls,shape,fmt", [
    (nn.BatchNorm1d, (8, 5), None), (nn.BatchNorm1d, (4, 5, 9), None),
    (nn.BatchNorm2d, (4, 3, 6, 5), None), (nn.BatchNorm2d, (4, 3, 6, 5), torch.channels_last),
    (nn.BatchNorm3d, (2, 4, 3, 2, 5), None)])
@pytest.mark.parametrize("cudnn", [False, True])
def test_batch_norm_module_steps(cuda, cls, shape, fmt, cudnn):
    """Several training steps, then eval: running statistics (unbiased
    variance, momentum), num_batches_tracked, outputs and parameter grads.
    With cuDNN enabled, 3-d+ inputs go through cuDNN's batch norm calls
    (src/intercept/cudnn/cudnn_batchnorm.c)."""
    with torch.backends.cudnn.flags(enabled=cudnn):
        _module_steps(cuda, cls, shape, fmt)


def _module_steps(cuda, cls, shape, fmt):
    torch.manual_seed(0)
    ref = cls(shape[1])
    with torch.no_grad():
        ref.weight.normal_()
        ref.bias.normal_()
    dev = cls(shape[1]).to(cuda)
    dev.load_state_dict(ref.state_dict())
    g = torch.Generator().manual_seed(5)
    for step in range(4):
        x = torch.randn(shape, generator=g) * (step + 1) + step
        dy = torch.randn(shape, generator=g)
        ref.zero_grad()
        dev.zero_grad()
        xr = x.clone().requires_grad_()
        ry = ref(xr)
        ry.backward(dy)
        xd = x.to(cuda)
        if fmt is not None:
            xd = xd.contiguous(memory_format=fmt)
        xd.requires_grad_()
        y = dev(xd)
        y.backward(dy.to(cuda))
        _close(y, ry)
        _close(xd.grad, xr.grad)
        _close(dev.weight.grad, ref.weight.grad)
        _close(dev.bias.grad, ref.bias.grad)
    _close(dev.running_mean, ref.running_mean)
    _close(dev.running_var, ref.running_var)
    assert int(dev.num_batches_tracked.cpu()) == int(ref.num_batches_tracked) == 4
    ref.eval()
    dev.eval()
    x = torch.randn(shape, generator=g)
    _close(dev(x.to(cuda)), ref(x))


@pytest.mark.parametrize("shape", [(4, 3, 10), (2, 5, 3, 4), (1, 2, 7)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("cudnn", [False, True])
def test_instance_norm(cuda, shape, affine, cudnn):
    x, w, b, _, _, dy = _inputs(shape, 6)
    out = []
    for dev in (cuda, torch.device("cpu")):
        with torch.backends.cudnn.flags(enabled=cudnn):
            xd = x.to(dev).requires_grad_()
            wd = w.to(dev).requires_grad_() if affine else None
            bd = b.to(dev).requires_grad_() if affine else None
            y = F.instance_norm(xd, weight=wd, bias=bd)
            y.backward(dy.to(dev))
            out.append([y, xd.grad] + ([wd.grad, bd.grad] if affine else []))
    for a, r in zip(*out):
        _close(a, r)


GN_CASES = [
    ((4, 6, 5, 5), 3),
    ((2, 8, 7), 4),
    ((3, 4, 2, 3), 1),
    ((2, 6, 3, 3), 6),     # instance-norm-like
    ((5, 6), 2),           # HxW == 1: GroupNorm1d kernels
    ((3, 8, 1), 2),        # (groups of 2 elements would normalise to +-1: dx is pure rounding)
    ((1, 3, 9), 3),
    ((2, 6, 4, 4), 3),     # HxW % 4 == 0: torch 2.15's vec-4 Contiguous kernels
]


@pytest.mark.parametrize("shape,groups", GN_CASES)
# (bias without weight is left out: PyTorch 2.11's own backward raises
# "tensor does not have a device" for it, on the CPU as well)
@pytest.mark.parametrize("affine", ["both", "none", "weight"])
def test_group_norm(cuda, shape, groups, affine):
    x, w, b, _, _, dy = _inputs(shape, 7)
    use_w = affine in ("both", "weight")
    use_b = affine in ("both", "bias")
    out = []
    for dev in (cuda, torch.device("cpu")):
        xd = x.to(dev).requires_grad_()
        wd = w.to(dev).requires_grad_() if use_w else None
        bd = b.to(dev).requires_grad_() if use_b else None
        y = F.group_norm(xd, groups, wd, bd, eps=1e-5)
        y.backward(dy.to(dev))
        out.append([y, xd.grad] + ([wd.grad] if use_w else []) + ([bd.grad] if use_b else []))
    for a, r in zip(*out):
        _close(a, r)


# Channels-last inputs (channels_last / channels_last_3d).  Torch 2.15 has
# kernels of its own for them - moments RowwiseMomentsChannelsLast[SmallD],
# sums ComputeInternalGradientsChannelsLast[Fallback], dx
# GroupNormBackwardChannelsLast; earlier releases normalise a contiguous
# copy.  The comments say which 2.15 kernels each case takes (its launcher:
# SmallD when D <= 2, G >= 4 and D * HxW >= 512; 16 channels per block
# when C >= 16 and HxW >= 512, else the Fallback).
GN_CL_CASES = [
    ((2, 8, 4, 4), 4),       # generic moments (D * HxW < 512), Fallback sums
    ((2, 16, 8, 8), 2),      # generic moments with 512-thread blocks
    ((2, 8, 24, 24), 4),     # SmallD moments (D = 2), Fallback sums
    ((2, 6, 16, 32), 6),     # SmallD, D = 1, G = 6: a partly used block of 4 groups
    ((2, 24, 16, 32), 6),    # sums 16 channels per block, the last block half used
    ((2, 8, 3, 4, 5), 4),    # 5-d
]


@pytest.mark.parametrize("shape,groups", GN_CL_CASES)
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_channels_last(cuda, shape, groups, affine):
    x, w, b, _, _, dy = _inputs(shape, 9)
    fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    x, dy = x.to(memory_format=fmt), dy.to(memory_format=fmt)
    out = []
    for dev in (cuda, torch.device("cpu")):
        xd = x.to(dev).requires_grad_()
        wd = w.to(dev).requires_grad_() if affine else None
        bd = b.to(dev).requires_grad_() if affine else None
        y = F.group_norm(xd, groups, wd, bd, eps=1e-5)
        y.backward(dy.to(dev))
        out.append([y, xd.grad] + ([wd.grad, bd.grad] if affine else []))
    # (dgamma sums up to 2 * 576 products: float rounding of the order
    # reaches 2e-5 on 2.11's contiguous kernels as on 2.15's)
    for a, r in zip(*out):
        _close(a, r, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,groups", [((4, 6, 5, 5), 3), ((5, 6), 2)])
def test_group_norm_stats(cuda, shape, groups):
    x, w, b, _, _, _ = _inputs(shape, 8)
    n, c = shape[0], shape[1]
    hxw = x.numel() // (n * c)
    y, mean, rstd = torch.native_group_norm(x.to(cuda), w.to(cuda), b.to(cuda), n, c, hxw,
                                            groups, 1e-5)
    ry, rmean, rrstd = torch.native_group_norm(x, w, b, n, c, hxw, groups, 1e-5)
    _close(y, ry)
    _close(mean, rmean)
    _close(rstd, rrstd)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_strided(cuda, training):
    """A non-contiguous input (neither NCHW- nor channels-last-contiguous):
    PyTorch's Impl::General - var_mean, then the batch_norm_elementwise
    lambda over broadcast statistics, and the accessor backward kernel."""
    x, w, b, rm, rv, dy = _inputs((5, 4, 3, 6), 9)
    xs = x.permute(1, 0, 2, 3).contiguous().permute(1, 0, 2, 3)   # (N, C, H, W), C outermost
    assert not xs.is_contiguous() and not xs.is_contiguous(memory_format=torch.channels_last)
    got, ref = _bn_both(cuda, xs, w, b, rm, rv, dy, training=training)
    for a, r in zip(got, ref):
        _close(a, r)


def _ref_stats(x):
    """Per-channel mean and biased variance in double, from the definition."""
    dims = [0] + list(range(2, x.dim()))
    xd = x.double()
    return xd.mean(dims), xd.var(dims, unbiased=False)


@pytest.mark.parametrize("shape,fmt", [((4, 3, 10), None), ((6, 3, 5, 7), None), ((8, 5), None),
                                       ((6, 3, 5, 7), torch.channels_last)])
def test_sync_bn_primitives(cuda, shape, fmt):
    """The public pieces SyncBatchNorm is built from (batch_norm_stats with
    InvStd, batch_norm_elemt, batch_norm_backward_reduce,
    batch_norm_backward_elemt with per-rank counts), checked against the
    definitions computed in double on the CPU."""
    x, w, b, _, _, dy = _inputs(shape, 10)
    eps = 1e-5
    xd, dyd = x.to(cuda), dy.to(cuda)
    if fmt is not None:
        xd, dyd = xd.contiguous(memory_format=fmt), dyd.contiguous(memory_format=fmt)
    mean, invstd = torch.batch_norm_stats(xd, eps)
    rmean, rvar = _ref_stats(x)
    rinv = 1.0 / torch.sqrt(rvar + eps)
    _close(mean, rmean.float())
    _close(invstd, rinv.float(), rtol=1e-5, atol=1e-4)
    y = torch.batch_norm_elemt(xd, w.to(cuda), b.to(cuda), mean, invstd, eps)
    shp = [1, -1] + [1] * (x.dim() - 2)
    ry = (x.double() - rmean.view(shp)) * rinv.view(shp) * w.double().view(shp) + b.double().view(shp)
    _close(y, ry.float(), atol=1e-4)
    sum_dy, sum_dy_xmu, gw, gb = torch.batch_norm_backward_reduce(dyd, xd, mean, invstd, w.to(cuda),
                                                                 True, True, True)
    dims = [0] + list(range(2, x.dim()))
    rsdy = dy.double().sum(dims)
    rsdx = (dy.double() * (x.double() - rmean.view(shp))).sum(dims)
    _close(sum_dy, rsdy.float(), atol=1e-4)
    _close(sum_dy_xmu, rsdx.float(), rtol=1e-4, atol=1e-4)
    _close(gw, (rsdx * rinv).float(), rtol=1e-4, atol=1e-4)
    _close(gb, rsdy.float(), atol=1e-4)
    cnt = x.numel() // shape[1]
    counts = torch.tensor([cnt], dtype=torch.int32, device=cuda)
    dx = torch.batch_norm_backward_elemt(dyd, xd, mean, invstd, w.to(cuda), sum_dy, sum_dy_xmu, counts)
    rdx = (dy.double() - (rsdy / cnt).view(shp)
           - (x.double() - rmean.view(shp)) * (rinv ** 2 * rsdx / cnt).view(shp)) * (rinv * w.double()).view(shp)
    _close(dx, rdx.float(), rtol=1e-4, atol=1e-4)


LOWP = [(torch.float16, 1e-2), (torch.bfloat16, 4e-2)]


@pytest.mark.parametrize("dtype,tol", LOWP)
@pytest.mark.parametrize("params", ["float", "same"])   # mixed precision, or all in dtype
@pytest.mark.parametrize("shape,fmt", [((8, 3), None), ((4, 3, 10), None), ((6, 3, 5, 7), None),
                                       ((6, 3, 5, 7), torch.channels_last)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("cudnn", [False, True])
def test_batch_norm_lowp(cuda, dtype, tol, params, shape, fmt, training, cudnn):
    """Half / bfloat16 inputs (statistics in float): against the float
    computation on the CPU from the same (rounded) values.  With cuDNN
    enabled, half data with float parameters goes through cuDNN's calls."""
    with torch.backends.cudnn.flags(enabled=cudnn):
        _lowp_case(cuda, dtype, tol, params, shape, fmt, training)


def _lowp_case(cuda, dtype, tol, params, shape, fmt, training):
    x, w, b, rm, rv, dy = _inputs(shape, 11)
    pt = torch.float32 if params == "float" else dtype
    x, dy = x.to(dtype), dy.to(dtype)
    w, b, rm, rv = w.to(pt), b.to(pt), rm.to(pt), rv.to(pt)
    xd = x.to(cuda)
    if fmt is not None:
        xd = xd.contiguous(memory_format=fmt)
    xd.requires_grad_()
    wd, bd = w.to(cuda).requires_grad_(), b.to(cuda).requires_grad_()
    rmd, rvd = rm.to(cuda), rv.to(cuda)
    y = F.batch_norm(xd, rmd, rvd, wd, bd, training=training, momentum=0.1, eps=1e-5)
    y.backward(dy.to(cuda))
    xr = x.float().requires_grad_()
    wr, br = w.float().requires_grad_(), b.float().requires_grad_()
    rmr, rvr = rm.float(), rv.float()
    yr = F.batch_norm(xr, rmr, rvr, wr, br, training=training, momentum=0.1, eps=1e-5)
    yr.backward(dy.float())
    assert y.dtype == dtype and wd.grad.dtype == pt and rmd.dtype == pt
    for a, r in [(y, yr), (xd.grad, xr.grad), (wd.grad, wr.grad), (bd.grad, br.grad),
                 (rmd, rmr), (rvd, rvr)]:
        torch.testing.assert_close(a.detach().float().cpu(), r.detach(), rtol=tol, atol=tol)
