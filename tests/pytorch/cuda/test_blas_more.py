"""More of PyTorch's cuBLAS calls under torchfl, against PyTorch on the CPU:
fp16/bf16 dot (cublasDotEx), complex mm/mv/dot/vdot (Cgemm, Cgemv, Cdotu,
Cdotc), double mv, addmm with alpha/beta, low-precision bmm and Linear.
Inputs are made on the CPU and copied, so no other kernel is involved.

Also guards the preload's BLAS isolation: with OpenBLAS's symbols in the
global scope, libtorch_cpu's own cdotc_ was interposed and CPU vdot gave 0.
"""
import pytest
import torch
import torch.nn.functional as F


def close(got, want, rtol=1e-5, atol=1e-5):
    assert got.device.type == "cpu"
    assert got.shape == want.shape and got.dtype == want.dtype
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


def test_cpu_complex_dot_not_interposed():
    torch.manual_seed(3)
    x = torch.randn(9, dtype=torch.complex64)
    y = torch.randn(9, dtype=torch.complex64)
    # elementwise reference: no BLAS involved
    close(torch.vdot(x, y), (x.conj() * y).sum(), rtol=1e-5, atol=1e-5)
    close(torch.dot(x, y), (x * y).sum(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,tol", [(torch.float16, 1e-2), (torch.bfloat16, 5e-2)])
def test_dot_low_precision(cuda, dtype, tol):
    torch.manual_seed(4)
    v, w = torch.randn(50).to(dtype), torch.randn(50).to(dtype)
    close(torch.dot(v.to(cuda), w.to(cuda)).cpu(), torch.dot(v, w), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_mm_mv_dot(cuda, dtype):
    torch.manual_seed(5)
    a, b = torch.randn(7, 5, dtype=dtype), torch.randn(5, 6, dtype=dtype)
    v, w = torch.randn(5, dtype=dtype), torch.randn(5, dtype=dtype)
    tol = 1e-5 if dtype == torch.complex64 else 1e-12
    close((a.to(cuda) @ b.to(cuda)).cpu(), a @ b, rtol=tol, atol=tol)
    close((a.to(cuda) @ v.to(cuda)).cpu(), a @ v, rtol=tol, atol=tol)
    close(torch.dot(v.to(cuda), w.to(cuda)).cpu(), torch.dot(v, w), rtol=tol, atol=tol)
    close(torch.vdot(v.to(cuda), w.to(cuda)).cpu(), torch.vdot(v, w), rtol=tol, atol=tol)


def test_mv_double(cuda):
    torch.manual_seed(6)
    a, v = torch.randn(33, 17, dtype=torch.float64), torch.randn(17, dtype=torch.float64)
    close((a.to(cuda) @ v.to(cuda)).cpu(), a @ v, rtol=1e-12, atol=1e-12)


def test_addmm_alpha_beta(cuda):
    torch.manual_seed(7)
    c, a, b = torch.randn(20, 12), torch.randn(20, 9), torch.randn(9, 12)
    got = torch.addmm(c.to(cuda), a.to(cuda), b.to(cuda), beta=0.5, alpha=-2.0).cpu()
    close(got, torch.addmm(c, a, b, beta=0.5, alpha=-2.0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-3), (torch.bfloat16, 2e-2)])
def test_bmm_and_linear_low_precision(cuda, dtype, tol):
    torch.manual_seed(8)
    x, y = torch.randn(3, 10, 16).to(dtype), torch.randn(3, 16, 8).to(dtype)
    want = torch.bmm(x.float(), y.float()).to(dtype)
    close(torch.bmm(x.to(cuda), y.to(cuda)).cpu(), want, rtol=tol, atol=tol)
    a, w, bias = torch.randn(12, 16).to(dtype), torch.randn(8, 16).to(dtype), torch.randn(8).to(dtype)
    want = F.linear(a.float(), w.float(), bias.float()).to(dtype)
    close(F.linear(a.to(cuda), w.to(cuda), bias.to(cuda)).cpu(), want, rtol=tol, atol=tol)
