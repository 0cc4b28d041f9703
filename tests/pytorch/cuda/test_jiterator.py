"""Kernels PyTorch compiles at run time (the jiterator, through NVRTC) run
under torchfl: NVRTC is asked for PTX instead of SASS
(src/intercept/nvrtc), the driver loads it, the host executor runs it.
Compared with PyTorch on the CPU."""
import pytest
import torch

OPS = {
    "exp2": torch.exp2,
    "erfc": torch.special.erfc,
    "erfinv": lambda t: torch.erfinv(t / 3),
    "i0": torch.special.i0,
    "erfcx": torch.special.erfcx,
}


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("n", [1, 37, 1000])
def test_jiterator_op(cuda, name, n):
    f = OPS[name]
    x = torch.linspace(-2, 2, n)
    torch.testing.assert_close(f(x.to(cuda)).cpu(), f(x), rtol=2e-6, atol=2e-6)


# prod is a jiterator *reduction*: its NVRTC PTX uses the predefined
# constant WARP_SZ, and it reduces across warps and blocks.
@pytest.mark.parametrize("shape,dim", [((6, 7), 1), ((6, 7), 0), ((300, 70), 1),
                                       ((5000,), None), ((3, 4, 5), 1)])
def test_jiterator_prod(cuda, shape, dim):
    g = torch.Generator().manual_seed(sum(shape))
    x = 1 + 0.1 * torch.randn(shape, generator=g)
    got = x.to(cuda).prod() if dim is None else x.to(cuda).prod(dim)
    want = x.double().prod() if dim is None else x.double().prod(dim)
    torch.testing.assert_close(got.cpu().double(), want, rtol=2e-5, atol=0)
