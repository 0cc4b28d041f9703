"""Matrix products through cuBLAS/cuBLASLt under torchfl, against PyTorch
on the CPU.  Inputs are made on the CPU and copied, so no other kernel is
involved."""
import pytest
import torch


def close(got, want, rtol=1e-5, atol=1e-5):
    assert got.device.type == "cpu"
    assert got.shape == want.shape and got.dtype == want.dtype
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("m,k,n", [(64, 32, 16), (1, 7, 3), (33, 65, 17), (128, 256, 64)])
def test_mm(cuda, m, k, n):
    torch.manual_seed(m * 1000 + n)
    a, b = torch.randn(m, k), torch.randn(k, n)
    close((a.to(cuda) @ b.to(cuda)).cpu(), a @ b)


@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_mm_transposed_views(cuda, ta, tb):
    torch.manual_seed(1)
    a = torch.randn(24, 40) if not ta else torch.randn(40, 24)
    b = torch.randn(40, 12) if not tb else torch.randn(12, 40)
    a_, b_ = (a.t() if ta else a), (b.t() if tb else b)
    da = a.to(cuda).t() if ta else a.to(cuda)
    db = b.to(cuda).t() if tb else b.to(cuda)
    close((da @ db).cpu(), a_ @ b_)


@pytest.mark.parametrize("batch", [1, 3])
def test_linear_with_bias(cuda, batch):
    # addmm with a 1-D bias takes PyTorch's cuBLASLt path (epilogue BIAS)
    torch.manual_seed(batch)
    x, w, b = torch.randn(batch * 16, 48), torch.randn(24, 48), torch.randn(24)
    got = torch.nn.functional.linear(x.to(cuda), w.to(cuda), b.to(cuda)).cpu()
    close(got, torch.nn.functional.linear(x, w, b))


def test_addmm_alpha_beta(cuda):
    torch.manual_seed(2)
    c, a, b = torch.randn(20, 30), torch.randn(20, 10), torch.randn(10, 30)
    got = torch.addmm(c.to(cuda), a.to(cuda), b.to(cuda), beta=0.5, alpha=2.0).cpu()
    close(got, torch.addmm(c, a, b, beta=0.5, alpha=2.0))


def test_bmm_and_batched_matmul(cuda):
    torch.manual_seed(3)
    x, z = torch.randn(4, 8, 16), torch.randn(4, 16, 5)
    close(torch.bmm(x.to(cuda), z.to(cuda)).cpu(), torch.bmm(x, z))
    close(torch.matmul(x.to(cuda), z.to(cuda)).cpu(), torch.matmul(x, z))


def test_matrix_vector(cuda):
    torch.manual_seed(4)
    a, v = torch.randn(50, 30), torch.randn(30)
    close(torch.mv(a.to(cuda), v.to(cuda)).cpu(), torch.mv(a, v))


def test_double(cuda):
    torch.manual_seed(5)
    a, b = torch.randn(30, 20, dtype=torch.float64), torch.randn(20, 10, dtype=torch.float64)
    close((a.to(cuda) @ b.to(cuda)).cpu(), a @ b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_low_precision(cuda, dtype):
    # fp32 accumulation, rounded once to dtype: compare with an fp32 product
    torch.manual_seed(6)
    a, b = torch.randn(32, 64).to(dtype), torch.randn(64, 16).to(dtype)
    got = (a.to(cuda) @ b.to(cuda)).cpu()
    want = (a.float() @ b.float()).to(dtype)
    tol = 1e-2 if dtype == torch.float16 else 2e-2
    close(got, want, rtol=tol, atol=tol)
