"""torch.cdist / F.pdist under torchfl (the "distance" op-table family).

cdist (small row counts, where PyTorch uses its DistanceKernel.cu kernels
rather than the matmul form) and pdist are computed on `cuda` and on `cpu`
from the same inputs; distances and the input gradients are compared.
"""
import pytest
import torch
import torch.nn.functional as F

TOL = {torch.float32: 1e-5, torch.float64: 1e-12}
PS = [0.0, 1.0, 1.5, 2.0, 3.0, float("inf")]


def make(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def run_both(cuda, fn, *inputs):
    res = []
    for dev in ("cpu", cuda):
        xs = [t.detach().to(dev).requires_grad_(True) for t in inputs]
        out = fn(*xs)
        gout = make(out.shape, out.dtype, 99).to(dev)
        out.backward(gout)
        res.append((out.detach().cpu(), [x.grad.cpu() for x in xs]))
    (want, wg), (got, gg) = res
    tol = TOL[want.dtype]
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)
    for a, b in zip(gg, wg):
        torch.testing.assert_close(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("shapes", [((6, 7), (5, 7)), ((1, 3), (4, 3)), ((2, 5, 4), (2, 3, 4)),
                                    ((9, 1), (9, 1))])
def test_cdist(cuda, shapes, p, dtype):
    a, b = make(shapes[0], dtype, 1), make(shapes[1], dtype, 2)
    run_both(cuda, lambda x, y: torch.cdist(x, y, p=p), a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("shape", [(6, 7), (2, 3), (10, 1), (5, 33)])
def test_pdist(cuda, shape, p, dtype):
    run_both(cuda, lambda x: F.pdist(x, p=p), make(shape, dtype, 3))


def test_cdist_same_points(cuda):
    """Zero distances: the backward's r == 0 branches."""
    a = make((4, 3), torch.float32, 4)
    for p in [1.0, 1.5, 2.0, 3.0]:
        run_both(cuda, lambda x, y: torch.cdist(x, y, p=p), a, a.clone())
