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
