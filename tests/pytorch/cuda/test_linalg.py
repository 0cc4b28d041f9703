"""torch.linalg on `cuda` under torchfl (cuSOLVER dense routines and
cuBLAS's batched LAPACK-style ones), against PyTorch on the CPU.

Inputs are made on the CPU (float64 for the well-conditioned references)
and copied, so the CPU result is an independent LAPACK run.  Results that
are unique only up to sign/phase (eigenvectors) are checked through the
reconstruction A V = V diag(w) and orthonormality instead.
"""
import pytest
import torch

DTYPES = [(torch.float32, 1e-4), (torch.float64, 1e-10)]


def close(got, want, tol):
    assert got.device.type == "cpu"
    assert got.shape == want.shape and got.dtype == want.dtype
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)


def well_conditioned(*shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    n = shape[-1]
    a = torch.randn(*shape, generator=g, dtype=torch.float64)
    return (a + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def spd(*shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    n = shape[-1]
    a = torch.randn(*shape, generator=g, dtype=torch.float64)
    return (a @ a.mT + n * torch.eye(n, dtype=torch.float64)).to(dtype)


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,)])
def test_inv(cuda, dtype, tol, batch):
    a = well_conditioned(*batch, 6, 6, dtype=dtype, seed=1)
    close(torch.linalg.inv(a.to(cuda)).cpu(), torch.linalg.inv(a), tol)


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("batch", [(), (2,)])
def test_solve(cuda, dtype, tol, batch):
    a = well_conditioned(*batch, 5, 5, dtype=dtype, seed=2)
    b = torch.randn(*batch, 5, 3, generator=torch.Generator().manual_seed(3),
                    dtype=torch.float64).to(dtype)
    close(torch.linalg.solve(a.to(cuda), b.to(cuda)).cpu(), torch.linalg.solve(a, b), tol)


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,)])
def test_det_slogdet(cuda, dtype, tol, batch):
    a = well_conditioned(*batch, 4, 4, dtype=dtype, seed=4) / 4
    close(torch.linalg.det(a.to(cuda)).cpu(), torch.linalg.det(a), tol * 10)
    s, l = torch.linalg.slogdet(a.to(cuda))
    s0, l0 = torch.linalg.slogdet(a)
    close(s.cpu(), s0, tol)
    close(l.cpu(), l0, tol * 10)


def test_inv_singular_raises(cuda):
    a = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
    with pytest.raises(RuntimeError):
        torch.linalg.inv(a)            # the CPU reference raises too
    with pytest.raises(RuntimeError, match="singular"):
        torch.linalg.inv(a.to(cuda))
    _, info = torch.linalg.inv_ex(a.to(cuda))
    _, info0 = torch.linalg.inv_ex(a)
    assert int(info.cpu()) == int(info0) != 0


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(cuda, dtype, tol, batch, upper):
    a = spd(*batch, 5, 5, dtype=dtype, seed=5)
    close(torch.linalg.cholesky(a.to(cuda), upper=upper).cpu(),
          torch.linalg.cholesky(a, upper=upper), tol)


def test_cholesky_not_pd(cuda):
    a = torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=torch.float64)
    _, info = torch.linalg.cholesky_ex(a.to(cuda))
    _, info0 = torch.linalg.cholesky_ex(a)
    assert int(info.cpu()) == int(info0) == 2
    with pytest.raises(RuntimeError, match="positive-definite"):
        torch.linalg.cholesky(a.to(cuda))


@pytest.mark.parametrize("dtype,tol", DTYPES)
def test_cholesky_solve(cuda, dtype, tol):
    a = spd(4, 4, dtype=dtype, seed=6)
    b = torch.randn(4, 2, generator=torch.Generator().manual_seed(7),
                    dtype=torch.float64).to(dtype)
    l = torch.linalg.cholesky(a)
    close(torch.cholesky_solve(b.to(cuda), l.to(cuda)).cpu(), torch.cholesky_solve(b, l), tol)


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("batch", [(), (2,)])
def test_eigh(cuda, dtype, tol, batch):
    a = spd(*batch, 6, 6, dtype=dtype, seed=8)
    w, v = torch.linalg.eigh(a.to(cuda))
    w0 = torch.linalg.eigvalsh(a)
    w, v = w.cpu(), v.cpu()
    close(w, w0, tol * 100)
    close(torch.linalg.eigvalsh(a.to(cuda)).cpu(), w0, tol * 100)
    close(a @ v, v * w.unsqueeze(-2), tol * 100)
    eye = torch.eye(6, dtype=dtype).expand(*batch, 6, 6)
    close(v.mT @ v, eye, tol * 10)


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 5, 5)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(cuda, dtype, tol, shape, mode):
    a = torch.randn(*shape, generator=torch.Generator().manual_seed(10),
                    dtype=torch.float64).to(dtype)
    q, r = torch.linalg.qr(a.to(cuda), mode=mode)
    q0, r0 = torch.linalg.qr(a, mode=mode)
    # same Householder convention as LAPACK, so Q and R match, not only QR = A
    close(r.cpu(), r0, tol * 10)
    close(q.cpu(), q0, tol * 10)
