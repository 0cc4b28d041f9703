"""torch._foreach_* ops (multi_tensor_apply kernels) under torchfl, compared
with the same ops on CPU (the reference cannot share torchfl's bugs).

Lists mix sizes: 1 element, sizes not a multiple of 4, and tensors longer
than one 65536-element chunk; the long-list case (more tensors than one
launch's metadata holds) checks that every launch covers its own chunks.
"""
import pytest
import torch

SIZES = [1, 3, 130, 65536 + 7, 5]
LONG = [17] * 150 + [70000, 2]          # > 110 tensors: several launches


def lists(sizes, k, seed=0, positive=False):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(k):
        ts = [torch.randn(n, generator=g) for n in sizes]
        if positive:
            ts = [t.abs() + 0.5 for t in ts]
        out.append(ts)
    return out


def to(ts, dev):
    return [t.to(dev) for t in ts]


def close(got, want, rtol=1e-5, atol=1e-6):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.device.type == "cuda"
        torch.testing.assert_close(g.cpu(), w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "pow"])
def test_binary_scalar(cuda, sizes, op):
    (x,) = lists(sizes, 1, positive=op == "pow")
    s = 1.75
    fn = getattr(torch, f"_foreach_{op}")
    close(fn(to(x, cuda), s), fn(x, s))
    xc = to(x, cuda)
    if op in ("add", "sub", "mul", "div", "pow"):
        getattr(torch, f"_foreach_{op}_")(xc, s)
        close(xc, fn(x, s))


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum"])
def test_binary_scalar_list(cuda, sizes, op):
    (x,) = lists(sizes, 1, seed=1)
    scalars = [0.5 + i * 0.25 for i in range(len(sizes))]
    fn = getattr(torch, f"_foreach_{op}")
    close(fn(to(x, cuda), scalars), fn(x, scalars))


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
@pytest.mark.parametrize("op,alpha", [("add", 1.0), ("add", -0.3), ("sub", 2.0), ("mul", None),
                                      ("div", None), ("maximum", None), ("minimum", None)])
def test_binary_list(cuda, sizes, op, alpha):
    x, y = lists(sizes, 2, seed=2, positive=op == "div")
    fn = getattr(torch, f"_foreach_{op}")
    kw = {} if alpha is None else {"alpha": alpha}
    close(fn(to(x, cuda), to(y, cuda), **kw), fn(x, y, **kw))
    if op in ("add", "sub", "mul", "div"):
        xc = to(x, cuda)
        getattr(torch, f"_foreach_{op}_")(xc, to(y, cuda), **kw)
        close(xc, fn(x, y, **kw))


@pytest.mark.parametrize("op", ["add", "mul", "div"])
def test_binary_scalar_tensor(cuda, op):
    (x,) = lists(SIZES, 1, seed=3)
    s = torch.tensor(0.37)
    fn = getattr(torch, f"_foreach_{op}")
    close(fn(to(x, cuda), s.to(cuda)), fn(x, s))
    if op == "add":
        close(fn(to(x, cuda), s.to(cuda), alpha=2.5), fn(x, s, alpha=2.5))


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
def test_unary_and_zero(cuda, sizes):
    (x,) = lists(sizes, 1, seed=4, positive=True)
    close(torch._foreach_sqrt(to(x, cuda)), torch._foreach_sqrt(x))
    xc = to(x, cuda)
    torch._foreach_sqrt_(xc)
    close(xc, torch._foreach_sqrt(x))
    torch._foreach_zero_(xc)
    assert all(torch.equal(t.cpu(), torch.zeros_like(t.cpu())) for t in xc)
    dst = to([torch.zeros_like(t) for t in x], cuda)
    torch._foreach_copy_(dst, to(x, cuda))
    close(dst, x, rtol=0, atol=0)


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_pointwise(cuda, sizes, op):
    x, a, b = lists(sizes, 3, seed=5)
    b = [t.abs() + 0.5 for t in b]
    fn = getattr(torch, f"_foreach_{op}")
    close(fn(to(x, cuda), to(a, cuda), to(b, cuda), value=-0.7), fn(x, a, b, value=-0.7))
    scalars = [0.1 * (i + 1) for i in range(len(sizes))]
    close(fn(to(x, cuda), to(a, cuda), to(b, cuda), scalars), fn(x, a, b, scalars))
    xc = to(x, cuda)
    getattr(torch, f"_foreach_{op}_")(xc, to(a, cuda), to(b, cuda), value=0.3)
    close(xc, fn(x, a, b, value=0.3))


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
def test_lerp(cuda, sizes):
    x, y, w = lists(sizes, 3, seed=6)
    for weight in (0.1, 0.9):
        close(torch._foreach_lerp(to(x, cuda), to(y, cuda), weight),
              torch._foreach_lerp(x, y, weight))
    close(torch._foreach_lerp(to(x, cuda), to(y, cuda), to(w, cuda)),
          torch._foreach_lerp(x, y, w))
    xc = to(x, cuda)
    torch._foreach_lerp_(xc, to(y, cuda), 0.25)
    close(xc, torch._foreach_lerp(x, y, 0.25))


def test_empty_tensors_in_list(cuda):
    x = [torch.randn(4), torch.randn(0), torch.randn(9)]
    y = [torch.randn(4), torch.randn(0), torch.randn(9)]
    close(torch._foreach_add(to(x, cuda), to(y, cuda)), torch._foreach_add(x, y))


@pytest.mark.parametrize("adamw", [False, True], ids=["adam", "adamw"])
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("variant", ["plain", "maximize", "grad_scale", "found_inf", "lr_tensor"])
def test_fused_adam(cuda, adamw, amsgrad, variant):
    sizes = [5, 65536 + 3, 1]
    p, g, m, v, vm = lists(sizes, 5, seed=7)
    v = [t.abs() for t in v]
    vm = [t.abs() + 0.1 for t in vm]
    steps = [torch.tensor(float(k + 2)) for k in range(len(sizes))]
    state = [p, g, m, v, vm, steps]
    cpu = [[t.clone() for t in L] for L in state]
    dev = [to(L, cuda) for L in state]
    fn = torch._fused_adamw_ if adamw else torch._fused_adam_
    kw = dict(lr=1e-2, beta1=0.9, beta2=0.99, weight_decay=0.1, eps=1e-8,
              amsgrad=amsgrad, maximize=variant == "maximize")

    def call(L, where):
        extra = {}
        if variant == "grad_scale":
            extra["grad_scale"] = torch.tensor(4.0).to(where)
        if variant == "found_inf":
            extra["found_inf"] = torch.tensor(1.0).to(where)
        args = dict(kw)
        if variant == "lr_tensor":
            args["lr"] = torch.tensor(3e-3).to(where)
        fn(L[0], L[1], L[2], L[3], L[4] if amsgrad else [], L[5], **args, **extra)

    call(cpu, "cpu")
    call(dev, cuda)
    for got, want in zip(dev, cpu):
        close(got, want)
    if variant == "found_inf":      # a skipped step leaves everything as it was
        for got, orig in zip(dev[:5], state[:5]):
            close(got, orig, rtol=0, atol=0)


def _optimizer_case(make_opt, init_state, steps=3, step_on_device=False):
    """Run `steps` optimizer steps on cuda and on cpu from the same start.

    Gradients are made on CPU and copied; optimizer state is created up
    front (from CPU tensors) so that the step itself is the only thing on
    the device.
    """
    g = torch.Generator().manual_seed(21)
    shapes = [(16, 8), (3,), (70000,), (1,)]
    params = [torch.randn(*s, generator=g) for s in shapes]
    grads = [[torch.randn(*s, generator=g) for s in shapes] for _ in range(steps)]
    results = {}
    for dev in ("cpu", "cuda"):
        ps = [torch.nn.Parameter(p.clone().to(dev)) for p in params]
        opt = make_opt(ps)
        for p in ps:
            opt.state[p] = {k: v.clone().to(dev) if v.dim() or step_on_device else v.clone()
                            for k, v in init_state(p).items()}
        for k in range(steps):
            for p, gr in zip(ps, grads[k]):
                p.grad = gr.clone().to(dev)
            opt.step()
        results[dev] = ps
    for got, want in zip(results["cuda"], results["cpu"]):
        torch.testing.assert_close(got.detach().cpu(), want.detach(), rtol=1e-5, atol=1e-6)


def _adam_state(p, amsgrad=False):
    st = {"step": torch.tensor(0.0), "exp_avg": torch.zeros(p.shape),
          "exp_avg_sq": torch.zeros(p.shape)}
    if amsgrad:
        st["max_exp_avg_sq"] = torch.zeros(p.shape)
    return st


def test_sgd_foreach(cuda):
    _optimizer_case(lambda ps: torch.optim.SGD(ps, lr=0.1, foreach=True), lambda p: {})


def test_sgd_momentum_foreach(cuda):
    _optimizer_case(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1,
                                                weight_decay=1e-2, nesterov=False, foreach=True),
                    lambda p: {"momentum_buffer": torch.full(p.shape, 0.01)})


def test_sgd_nesterov_foreach(cuda):
    _optimizer_case(lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, nesterov=True,
                                                foreach=True),
                    lambda p: {"momentum_buffer": torch.full(p.shape, -0.02)})


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("weight_decay", [0.0, 0.05])
def test_adam_foreach(cuda, amsgrad, weight_decay):
    _optimizer_case(lambda ps: torch.optim.Adam(ps, lr=1e-2, weight_decay=weight_decay,
                                                 amsgrad=amsgrad, foreach=True),
                    lambda p: _adam_state(p, amsgrad))


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adamw_foreach(cuda, amsgrad):
    _optimizer_case(lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1,
                                                  amsgrad=amsgrad, foreach=True),
                    lambda p: _adam_state(p, amsgrad))


@pytest.mark.parametrize("cls", [torch.optim.Adam, torch.optim.AdamW])
def test_adam_fused_optimizer(cuda, cls):
    _optimizer_case(lambda ps: cls(ps, lr=1e-2, weight_decay=0.05, fused=True),
                    lambda p: _adam_state(p), step_on_device=True)


@pytest.mark.parametrize("op", ["neg", "abs", "reciprocal", "exp", "expm1", "log", "log1p",
                                "log2", "log10", "sigmoid", "tanh", "sin", "cos", "erf",
                                "floor", "ceil", "round", "trunc", "sqrt"])
def test_unary(cuda, op):
    (x,) = lists(SIZES, 1, seed=8)
    if op in ("log", "log1p", "log2", "log10", "sqrt", "reciprocal"):
        x = [t.abs() + 0.25 for t in x]
    if op == "round":                      # exact halves: ties go to even
        x = [t * 4 for t in x]
        x[0] = torch.tensor([2.5])
    fn = getattr(torch, f"_foreach_{op}")
    close(fn(to(x, cuda)), fn(x), rtol=2e-6, atol=1e-6)
    xc = to(x, cuda)
    getattr(torch, f"_foreach_{op}_")(xc)
    close(xc, fn(x), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
@pytest.mark.parametrize("variant", ["plain", "maximize", "grad_scale", "found_inf",
                                     "first_step", "lr_tensor"])
def test_fused_sgd(cuda, momentum, nesterov, variant):
    sizes = [5, 65536 + 3, 1]
    p, g, b = lists(sizes, 3, seed=9)
    state = [p, g, b]
    cpu = [[t.clone() for t in L] for L in state]
    dev = [to(L, cuda) for L in state]

    def call(L, where):
        kw = dict(weight_decay=0.01, momentum=momentum, lr=0.05, dampening=0.1,
                  nesterov=nesterov, maximize=variant == "maximize",
                  is_first_step=variant == "first_step" and momentum != 0)
        if variant == "grad_scale":
            kw["grad_scale"] = torch.tensor(8.0).to(where)
        if variant == "found_inf":
            kw["found_inf"] = torch.tensor(1.0).to(where)
        if variant == "lr_tensor":
            kw["lr"] = torch.tensor(0.02).to(where)
        torch._fused_sgd_(L[0], L[1], L[2] if momentum else [], **kw)

    call(cpu, "cpu")
    call(dev, cuda)
    for got, want in zip(dev, cpu):
        close(got, want)
    if variant == "found_inf":
        for got, orig in zip(dev, state):
            close(got, orig, rtol=0, atol=0)


def test_sgd_fused_optimizer(cuda):
    _optimizer_case(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-2,
                                                fused=True),
                    lambda p: {"momentum_buffer": torch.full(p.shape, 0.01)})


@pytest.mark.parametrize("inject", [None, "inf", "nan"])
@pytest.mark.parametrize("inv", [1.0, 0.125])
def test_amp_unscale(cuda, inject, inv):
    (g,) = lists(SIZES, 1, seed=10)
    if inject:
        g[3][65536 + 3] = float(inject)      # in the second chunk of the long tensor
    results = {}
    for dev in ("cpu", cuda):
        gs = [t.clone().to(dev) for t in g]
        found = torch.zeros(1).to(dev)
        torch._amp_foreach_non_finite_check_and_unscale_(gs, found, torch.tensor([inv]).to(dev))
        results[str(dev)] = ([t.cpu() for t in gs], found.cpu())
    (gc, fc), (gd, fd) = results["cpu"], results[str(cuda)]
    assert torch.equal(fd, fc) and fd.item() == (1.0 if inject else 0.0)
    for a, b in zip(gd, gc):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("found,tracker,interval", [(1.0, 3, 5), (0.0, 3, 5), (0.0, 4, 5),
                                                    (0.0, 0, 1)])
def test_amp_update_scale(cuda, found, tracker, interval):
    results = {}
    for dev in ("cpu", cuda):
        scale = torch.tensor([1024.0]).to(dev)
        tr = torch.tensor([tracker], dtype=torch.int32).to(dev)
        torch._amp_update_scale_(scale, tr, torch.tensor([found]).to(dev), 2.0, 0.5, interval)
        results[str(dev)] = (scale.cpu(), tr.cpu())
    assert torch.equal(results[str(cuda)][0], results["cpu"][0])
    assert torch.equal(results[str(cuda)][1], results["cpu"][1])


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
@pytest.mark.parametrize("ord", [2, 1, float("inf")])
def test_norm(cuda, sizes, ord):
    # "long": more tensors than one launch holds, so later launches write
    # their partial sums after start_tensor_this_launch
    (x,) = lists(sizes, 1, seed=11)
    x[-1][0] = -5.0                         # the inf-norm must see signs
    close(torch._foreach_norm(to(x, cuda), ord), torch._foreach_norm(x, ord))


@pytest.mark.parametrize("sizes", [SIZES, LONG], ids=["mixed", "long"])
@pytest.mark.parametrize("dtype,out", [(torch.float32, None), (torch.float16, None),
                                       (torch.bfloat16, None), (torch.float16, torch.float32),
                                       (torch.bfloat16, torch.float32)])
def test_norm_l0(cuda, sizes, dtype, out):
    # ord=0 counts the nonzeros: from 2.12 the foreach L0 kernels (NormType
    # L0: partial counts, then a cleanup without root), before that one
    # vector_norm per tensor.  Zeros of both signs are not counted, NaN is.
    (x,) = lists(sizes, 1, seed=13)
    for i, t in enumerate(x):
        t[i % 3::3] = 0.0
        t[-1] = -0.0
    x[2][1] = float("nan")
    x = [t.to(dtype) for t in x]
    got = torch._foreach_norm(to(x, cuda), 0, dtype=out)
    want = torch._foreach_norm([t.float() for t in x], 0, dtype=None)
    want = [w.to(out or dtype) for w in want]   # the float count, rounded once
    close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("foreach", [True, False])
def test_clip_grad_norm(cuda, foreach):
    (x,) = lists(SIZES, 1, seed=12)
    results = {}
    for dev in ("cpu", cuda):
        ps = [torch.nn.Parameter(t.clone().to(dev)) for t in x]
        for p in ps:
            p.grad = p.detach() * 3
        total = torch.nn.utils.clip_grad_norm_(ps, 1.0, foreach=foreach)
        results[str(dev)] = (total.cpu(), [p.grad.cpu() for p in ps])
    (tc, gc), (td, gd) = results["cpu"], results[str(cuda)]
    torch.testing.assert_close(td, tc, rtol=1e-5, atol=0)
    for a, b in zip(gd, gc):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name,make", [
    ("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1)),
    ("sgd_momentum", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-2)),
    ("adam", lambda ps: torch.optim.Adam(ps, lr=1e-2)),
    ("adamw", lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1)),
    ("adam_fused", lambda ps: torch.optim.Adam(ps, lr=1e-2, fused=True)),
    ("adamw_fused", lambda ps: torch.optim.AdamW(ps, lr=1e-2, fused=True)),
    ("sgd_fused", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, fused=True)),
])
def test_training_steps(cuda, name, make):
    """A few steps of a small bias-free MLP with the optimizers' default
    CUDA paths (state created by the optimizer itself, gradient clipping)."""
    torch.manual_seed(13)
    ref = torch.nn.Sequential(torch.nn.Linear(8, 16, bias=False), torch.nn.ReLU(),
                              torch.nn.Linear(16, 3, bias=False))
    dev = torch.nn.Sequential(torch.nn.Linear(8, 16, bias=False), torch.nn.ReLU(),
                              torch.nn.Linear(16, 3, bias=False))
    dev.load_state_dict(ref.state_dict())
    dev.to(cuda)
    o_ref, o_dev = make(ref.parameters()), make(dev.parameters())
    x, y = torch.randn(32, 8), torch.randn(32, 3)
    for _ in range(3):
        for m, o, xx, yy in ((ref, o_ref, x, y), (dev, o_dev, x.to(cuda), y.to(cuda))):
            o.zero_grad()
            out = m(xx)
            out.backward(out - yy)             # d/dout of 0.5 * ||out - y||^2
            torch.nn.utils.clip_grad_norm_(m.parameters(), 5.0)
            o.step()
    for a, b in zip(dev.parameters(), ref.parameters()):
        torch.testing.assert_close(a.detach().cpu(), b.detach(), rtol=1e-5, atol=1e-6)
