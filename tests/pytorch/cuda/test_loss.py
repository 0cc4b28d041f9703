"""nll_loss / cross_entropy (Loss.cu nll_loss_* kernels, with the softmax
family for cross_entropy) on cuda under torchfl, compared with PyTorch on
cpu from the same inputs."""
import pytest
import torch
import torch.nn.functional as F


def inputs(n, c, seed, dtype=torch.float32, ignore=True):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, c, generator=g) * 3
    target = torch.randint(0, c, (n,), generator=g)
    if ignore and n > 2:
        target[1] = -100
        target[n - 1] = 3 % c if c > 3 else 0
    weight = torch.rand(c, generator=g) + 0.1
    return logits.to(dtype), target, weight.to(dtype)


def close(got, want, rtol=1e-5, atol=1e-6):
    assert got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("n,c", [(8, 5), (1, 3), (64, 10), (300, 1000), (7, 1)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_forward(cuda, n, c, reduction, weighted):
    logits, target, weight = inputs(n, c, n * 31 + c)
    x = F.log_softmax(logits, 1)
    w = weight if weighted else None
    want = F.nll_loss(x, target, weight=w, reduction=reduction)
    got = F.nll_loss(x.to(cuda), target.to(cuda), reduction=reduction,
                     weight=None if w is None else w.to(cuda)).cpu()
    close(got, want)


@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_nll_loss_ignore_index(cuda, ignore_index):
    logits, target, weight = inputs(16, 4, 5, ignore=False)
    target[::3] = ignore_index
    x = F.log_softmax(logits, 1)
    for red in ("mean", "sum"):
        want = F.nll_loss(x, target, ignore_index=ignore_index, reduction=red)
        got = F.nll_loss(x.to(cuda), target.to(cuda), ignore_index=ignore_index, reduction=red).cpu()
        close(got, want)
    # every row ignored: mean is nan, sum is 0
    t = torch.full((4,), ignore_index)
    for red in ("mean", "sum"):
        close(F.nll_loss(x[:4].to(cuda), t.to(cuda), ignore_index=ignore_index, reduction=red).cpu(),
              F.nll_loss(x[:4], t, ignore_index=ignore_index, reduction=red))


def test_nll_loss_1d_input(cuda):
    logits, target, weight = inputs(1, 6, 9, ignore=False)
    x = F.log_softmax(logits[0], 0)
    for t in (torch.tensor(4), torch.tensor(-100)):
        for red in ("mean", "sum"):
            if t.item() == -100 and red == "mean":
                # CUDA's 1-d kernel returns 0 here where the cpu returns nan
                # (Loss.cu: "If the only element was omitted, we get 0")
                continue
            for w in (None, weight):
                want = F.nll_loss(x, t, weight=w, reduction=red)
                got = F.nll_loss(x.to(cuda), t.to(cuda), reduction=red,
                                 weight=None if w is None else w.to(cuda)).cpu()
                close(got, want)


def test_nll_loss_uint8_target(cuda):
    logits, target, _ = inputs(12, 7, 3, ignore=False)
    x = F.log_softmax(logits, 1)
    t8 = target.to(torch.uint8)
    close(F.nll_loss(x.to(cuda), t8.to(cuda)).cpu(), F.nll_loss(x, t8))


@pytest.mark.parametrize("n,c", [(8, 5), (32, 1000), (4, 3000)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_forward(cuda, n, c, reduction):
    logits, target, weight = inputs(n, c, n + c)
    for w in (None, weight):
        want = F.cross_entropy(logits, target, weight=w, reduction=reduction)
        got = F.cross_entropy(logits.to(cuda), target.to(cuda), reduction=reduction,
                              weight=None if w is None else w.to(cuda)).cpu()
        close(got, want)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_nll_loss_half(cuda, dtype):
    logits, target, weight = inputs(40, 9, 21, dtype)
    x = F.log_softmax(logits.float(), 1).to(dtype)
    eps = torch.finfo(dtype).eps
    for red in ("mean", "sum"):
        want = F.nll_loss(x.double(), target, weight=weight.double(), reduction=red)
        got = F.nll_loss(x.to(cuda), target.to(cuda), weight=weight.to(cuda), reduction=red).cpu()
        assert got.dtype == dtype
        torch.testing.assert_close(got.double(), want, rtol=2 * eps, atol=2 * eps)


OUT_OF_RANGE = '''
import torch, torch.nn.functional as F
x = F.log_softmax(torch.randn(4, 3), 1)
t = torch.tensor([0, 1, 5, 2])
try:
    F.nll_loss(x.to("cuda"), t.to("cuda")).cpu()
    torch.cuda.synchronize()
    print("no error")
except RuntimeError as e:
    print("raised:", str(e).splitlines()[0])
'''


def test_target_out_of_range_is_an_error(cuda):
    # its own process: on a GPU (and on torchfl's asynchronous backends) a
    # device-side assert poisons the process, as it must
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", OUT_OF_RANGE], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("raised:"), r.stdout + r.stderr[-2000:]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n,c", [(8, 5), (64, 10), (300, 1000)])
def test_cross_entropy_backward(cuda, reduction, weighted, n, c):
    logits, target, weight = inputs(n, c, n * 7 + c)
    w = weight if weighted else None
    xr = logits.clone().requires_grad_()
    lr = F.cross_entropy(xr, target, weight=w, reduction=reduction)
    xd = logits.to(cuda).requires_grad_()
    ld = F.cross_entropy(xd, target.to(cuda), weight=None if w is None else w.to(cuda),
                         reduction=reduction)
    close(ld.detach().cpu(), lr.detach())
    go = torch.ones_like(lr) if reduction != "none" else torch.linspace(0.5, 1.5, n)
    (gr,) = torch.autograd.grad(lr, xr, go)
    (gd,) = torch.autograd.grad(ld, xd, go.to(cuda))
    close(gd.cpu(), gr, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_backward_1d_and_none(cuda, reduction):
    logits, target, weight = inputs(10, 6, 77)
    x = F.log_softmax(logits, 1)
    for xin, tin in ((x, target), (x[0], target[0])):
        if xin.dim() == 1 and reduction == "none":
            continue
        xr = xin.clone().requires_grad_()
        xd = xin.to(cuda).requires_grad_()
        lr = F.nll_loss(xr, tin, weight=weight, reduction=reduction)
        ld = F.nll_loss(xd, tin.to(cuda), weight=weight.to(cuda), reduction=reduction)
        close(ld.detach().cpu(), lr.detach())
        (gr,) = torch.autograd.grad(lr.sum(), xr)
        (gd,) = torch.autograd.grad(ld.sum(), xd)
        close(gd.cpu(), gr)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_backward_half(cuda, dtype, reduction):
    logits, target, weight = inputs(24, 11, 41, dtype)
    xr = logits.double().requires_grad_()
    lr = F.cross_entropy(xr, target, weight=weight.double(), reduction=reduction)
    xd = logits.to(cuda).requires_grad_()
    ld = F.cross_entropy(xd, target.to(cuda), weight=weight.to(cuda), reduction=reduction)
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(ld.detach().cpu().double(), lr.detach(), rtol=4 * eps, atol=4 * eps)
    (gr,) = torch.autograd.grad(lr.sum(), xr)
    (gd,) = torch.autograd.grad(ld.sum(), xd)
    assert gd.dtype == dtype
    torch.testing.assert_close(gd.cpu().double(), gr, rtol=8 * eps, atol=8 * eps * gr.abs().max().item())


@pytest.mark.parametrize("shape", [(2, 5, 3, 4), (3, 7, 11), (1, 4, 1, 300)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_spatial_cross_entropy(cuda, shape, reduction, weighted):
    # inputs with spatial dimensions go through the nll_loss2d kernels
    g = torch.Generator().manual_seed(sum(shape))
    logits = torch.randn(*shape, generator=g) * 2
    tshape = (shape[0],) + shape[2:]
    target = torch.randint(0, shape[1], tshape, generator=g)
    target.view(-1)[::5] = -100
    weight = torch.rand(shape[1], generator=g) + 0.1 if weighted else None
    xr = logits.clone().requires_grad_()
    lr = F.cross_entropy(xr, target, weight=weight, reduction=reduction)
    xd = logits.to(cuda).requires_grad_()
    ld = F.cross_entropy(xd, target.to(cuda), reduction=reduction,
                         weight=None if weight is None else weight.to(cuda))
    close(ld.detach().cpu(), lr.detach())
    go = torch.ones_like(lr) if reduction != "none" else torch.rand(lr.shape, generator=g)
    (gr,) = torch.autograd.grad(lr, xr, go)
    (gd,) = torch.autograd.grad(ld, xd, go.to(cuda))
    close(gd.cpu(), gr)


def test_spatial_nll_noncontiguous(cuda):
    g = torch.Generator().manual_seed(3)
    x = F.log_softmax(torch.randn(2, 6, 5, 4, generator=g), 1).transpose(2, 3)   # strided view
    t = torch.randint(0, 6, (2, 5, 4), generator=g).transpose(1, 2)
    for red in ("none", "sum", "mean"):
        close(F.nll_loss(x.to(cuda), t.to(cuda), reduction=red).cpu(), F.nll_loss(x, t, reduction=red))
