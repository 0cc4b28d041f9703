"""Layer norm under torchfl (the "norm" op family): forward (mean/rstd and
output), backward (input, weight and bias gradients), float32, compared
with PyTorch on the CPU from the same inputs.

Shapes cover the vectorized kernels (last dim a multiple of 4), the
generic ones (odd last dims), row counts on each side of the thresholds
that pick GammaBetaBackward's tile shapes (64, 128, 256), and no affine
parameters.  Every tensor is made on the CPU and copied, so no other op
family is needed."""
import pytest
import torch

RTOL, ATOL = 1e-5, 1e-5

SHAPES = [
    (8, 64, 128),   # GPT-style: 512 rows of 128
    (2, 3, 32),
    (5, 1024),
    (1, 36),
    (10, 30),       # not a multiple of 4: RowwiseMoments + LayerNormForward
    (63, 7),
    (100, 33),
    (200, 96),
    (300, 17),
    (257, 160),     # over the pool threshold: rows and columns split unevenly
    (1000, 33),
    (1, 1),
]


def _close(a, b, rtol=RTOL, atol=ATOL):
    torch.testing.assert_close(a.cpu(), b, rtol=rtol, atol=atol)


def _inputs(shape, seed):
    g = torch.Generator().manual_seed(seed)
    n = shape[-1]
    x = torch.randn(shape, generator=g) * 3 + 0.5
    w = torch.randn(n, generator=g)
    b = torch.randn(n, generator=g)
    dy = torch.randn(shape, generator=g)
    return x, w, b, dy


@pytest.mark.parametrize("shape", SHAPES)
def test_layer_norm_forward_stats(cuda, shape):
    x, w, b, _ = _inputs(shape, 1)
    n = shape[-1]
    y, mean, rstd = torch.native_layer_norm(x.to(cuda), [n], w.to(cuda), b.to(cuda), 1e-5)
    ry, rmean, rrstd = torch.native_layer_norm(x, [n], w, b, 1e-5)
    _close(y, ry)
    _close(mean, rmean)
    _close(rstd, rrstd, rtol=1e-4)
    assert mean.shape == rmean.shape and rstd.shape == rrstd.shape


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_backward(cuda, shape, affine):
    x, w, b, dy = _inputs(shape, 2)
    n = shape[-1]
    out = []
    for dev in (cuda, torch.device("cpu")):
        xd = x.to(dev).requires_grad_()
        if affine:
            wd = w.to(dev).requires_grad_()
            bd = b.to(dev).requires_grad_()
        else:
            wd = bd = None
        y = torch.nn.functional.layer_norm(xd, [n], wd, bd, 1e-5)
        y.backward(dy.to(dev))
        out.append((y, xd.grad, wd.grad if affine else None, bd.grad if affine else None))
    (y, gx, gw, gb), (ry, rgx, rgw, rgb) = out
    _close(y.detach(), ry.detach())
    # dx mixes row sums of N terms: relative error grows with N
    _close(gx, rgx, rtol=1e-4, atol=1e-4)
    if affine:
        _close(gw, rgw, rtol=1e-4, atol=1e-4)
        _close(gb, rgb, rtol=1e-4, atol=1e-4)


def test_layer_norm_module_eps_and_mean(cuda):
    # a large eps and a constant row: rstd = 1/sqrt(eps), y = beta
    ln = torch.nn.LayerNorm(16, eps=0.25)
    x = torch.full((3, 16), 7.0)
    x[1] = torch.arange(16.0)
    y = ln.to(cuda)(x.to(cuda))
    ln_cpu = torch.nn.LayerNorm(16, eps=0.25)
    _close(y.detach(), ln_cpu(x).detach())
    assert torch.equal(y[0].detach().cpu(), torch.zeros(16))



@pytest.mark.parametrize("shape", [(6, 40), (8, 64, 128), (10, 30), (130, 12)])
def test_rms_norm_forward_backward(cuda, shape):
    # the same kernels with their rms_norm template flag set
    x, w, _, dy = _inputs(shape, 4)
    n = shape[-1]
    out = []
    for dev in (cuda, torch.device("cpu")):
        xd = x.to(dev).requires_grad_()
        wd = w.to(dev).requires_grad_()
        y = torch.nn.functional.rms_norm(xd, [n], wd, 1e-5)
        y.backward(dy.to(dev))
        out.append((y.detach(), xd.grad, wd.grad))
    for a, b in zip(*out):
        _close(a, b, rtol=1e-4, atol=1e-4)


def test_layer_norm_backward_many_rows(cuda):
    # more than 64K rows of a normalized shape narrower than 32 (N / 32 <
    # SM count / 2): GammaBetaBackward writes per-block partial sums that
    # PyTorch then reduces with sum(0) (reduce family)
    x, w, b, dy = _inputs((70000, 16), 5)
    out = []
    for dev in (cuda, torch.device("cpu")):
        xd = x.to(dev).requires_grad_()
        wd = w.to(dev).requires_grad_()
        bd = b.to(dev).requires_grad_()
        torch.nn.functional.layer_norm(xd, [16], wd, bd).backward(dy.to(dev))
        out.append((xd.grad, wd.grad, bd.grad))
    (gx, gw, gb), (rgx, rgw, rgb) = out
    _close(gx, rgx, rtol=1e-4, atol=1e-4)
    # sums of 70000 terms: float accumulation order differs
    _close(gw, rgw, rtol=1e-3, atol=2e-2)
    _close(gb, rgb, rtol=1e-3, atol=2e-2)
