"""Elementwise kernels under torchfl (the "elementwise" op-table family).

Every op is computed on `cuda` (PyTorch's SASS-only kernels, recognised by
name and run natively by torchfl) and on `cpu` from the same inputs, and
the results compared: exactly for integer/bool results and copies, within
1e-5 relative (plus a small absolute floor for cancellation) for fp32 math.

Shapes cover the three kernel forms PyTorch picks: contiguous
(vectorized, vec 4/2/1 by alignment and length), type-converting
contiguous (unrolled with LoadWithCast) and strided/broadcast (legacy
elementwise_kernel with an OffsetCalculator).
"""
import pytest
import torch
import torch.nn.functional as F

SHAPES = {
    "one": (1,),
    "odd": (1023,),
    "vec": (4096,),
    "2d": (37, 65),
    "3d": (3, 5, 7),
}


def make(shape, dtype=torch.float32, seed=0, positive=False):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=torch.float32)
        if positive:
            x = x.abs() + 0.1
        return x.to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    return torch.randint(-50, 50, shape, generator=g).to(dtype)


def check(got, want, exact=False):
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    if exact or not want.dtype.is_floating_point:
        assert torch.equal(got, want), (got, want)
    else:
        tol = {torch.float32: 1e-5, torch.float64: 1e-12,
               torch.float16: 2e-3, torch.bfloat16: 1e-2}[want.dtype]
        torch.testing.assert_close(got, want, rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------- fill


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16,
                                   torch.bfloat16, torch.int64, torch.int32,
                                   torch.uint8, torch.bool])
@pytest.mark.parametrize("shape", [(0,), (1,), (5,), (1023,), (64, 33)])
def test_fill(cuda, dtype, shape):
    check(torch.zeros(shape, dtype=dtype, device=cuda), torch.zeros(shape, dtype=dtype), True)
    check(torch.ones(shape, dtype=dtype, device=cuda), torch.ones(shape, dtype=dtype), True)
    v = True if dtype == torch.bool else 7 if not dtype.is_floating_point else 2.5
    check(torch.full(shape, v, dtype=dtype, device=cuda), torch.full(shape, v, dtype=dtype), True)


def test_fill_inplace_and_strided(cuda):
    x = make((40, 30))
    g = x.to(cuda)
    g.fill_(-3.25)
    x.fill_(-3.25)
    check(g, x, True)
    g.zero_()
    check(g, torch.zeros(40, 30), True)
    # a strided view: legacy kernel with an OffsetCalculator
    y = make((40, 30))
    gy = y.to(cuda)
    gy[:, ::3].fill_(9.0)
    y[:, ::3].fill_(9.0)
    check(gy, y, True)
    big = 2 ** 40 + 3
    check(torch.full((9,), big, dtype=torch.int64, device=cuda),
          torch.full((9,), big, dtype=torch.int64), True)


# ---------------------------------------------------------------- copy / cast

CAST_TYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16,
              torch.int64, torch.int32, torch.bool, torch.uint8]


@pytest.mark.parametrize("src", CAST_TYPES)
@pytest.mark.parametrize("dst", CAST_TYPES)
def test_cast(cuda, src, dst):
    x = make((257,), src)
    if src.is_floating_point and dst == torch.uint8:
        x = x.abs()            # negative float -> uint8 is undefined in C
    check(x.to(cuda).to(dst), x.to(dst), True)


@pytest.mark.parametrize("shape", [(37, 65), (3, 5, 7), (128, 64)])
def test_contiguous_of_transpose(cuda, shape):
    x = make(shape)
    g = x.to(cuda)
    check(g.transpose(0, -1).contiguous(), x.transpose(0, -1).contiguous(), True)
    check(g.transpose(0, -1).clone(), x.transpose(0, -1).clone(), True)
    # a strided cast: legacy casting kernel
    check(g.transpose(0, -1).half(), x.transpose(0, -1).half(), True)
    check(g.transpose(0, -1).to(torch.float64), x.transpose(0, -1).to(torch.float64), True)


def test_copy_into_views(cuda):
    x = make((50, 40))
    g = x.to(cuda)
    src = make((40, 50), seed=1)
    g.copy_(src.to(cuda).t())
    x.copy_(src.t())
    check(g, x, True)
    g[10:20, 5:7] = 1.5
    x[10:20, 5:7] = 1.5
    check(g, x, True)


# ---------------------------------------------------------------- binary


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=0.5),
    "sub_alpha": lambda a, b: torch.sub(a, b, alpha=2),
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "pow": lambda a, b: torch.pow(a.abs() + 0.5, b),
}


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_binary(cuda, op, shape):
    f = BINARY[op]
    a, b = make(SHAPES[shape], seed=1), make(SHAPES[shape], seed=2)
    check(f(a.to(cuda), b.to(cuda)), f(a, b))


@pytest.mark.parametrize("op", list(BINARY))
def test_binary_broadcast_and_strided(cuda, op):
    f = BINARY[op]
    a, b, c = make((33, 17), seed=1), make((17,), seed=2), make((33, 1), seed=3)
    ga, gb, gc = a.to(cuda), b.to(cuda), c.to(cuda)
    check(f(ga, gb), f(a, b))
    check(f(ga, gc), f(a, c))
    check(f(ga.t(), gc.t()), f(a.t(), c.t()))
    check(f(ga[:, ::2], gc), f(a[:, ::2], c))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("scalar", [2.0, -0.75, 3])
def test_binary_scalar(cuda, op, scalar):
    f = BINARY[op]
    a = make((1023,), seed=4)
    g = a.to(cuda)
    check(f(g, scalar), f(a, scalar))
    check(f(scalar, g), f(scalar, a))
    # a 0-dim CPU tensor operand is a kernel-parameter scalar too
    s = torch.tensor(scalar)
    check(f(g, s), f(a, s))


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_binary_int(cuda, op, dtype):
    f = BINARY[op]
    a, b = make((300,), dtype, 1), make((300,), dtype, 2)
    check(f(a.to(cuda), b.to(cuda)), f(a, b), True)
    check(f(a.to(cuda), 3), f(a, 3), True)


def test_type_promotion(cuda):
    a = make((100,), torch.float32, 1)
    i = make((100,), torch.int64, 2)
    h = make((100,), torch.float16, 3)
    check(a.to(cuda) + i.to(cuda), a + i)
    check(i.to(cuda) * 0.5, i * 0.5)
    check(i.to(cuda) / 4, i / 4)
    check(a.to(cuda) * h.to(cuda), a * h)
    check(h.to(cuda) + h.to(cuda), h + h)
    check(i.to(cuda) + 1, i + 1, True)
    # strided operands of different dtypes: the legacy casting kernel
    m, j = make((20, 30), torch.float32, 4), make((30, 20), torch.int64, 5)
    check(m.to(cuda) + j.to(cuda).t(), m + j.t())
    check(m.to(cuda).t() * h.to(cuda)[:20], m.t() * h[:20])
    check(torch.maximum(m.to(cuda), j.to(cuda).t()), torch.maximum(m, j.t()))


def test_inplace(cuda):
    a, b = make((64, 32), seed=1), make((64, 32), seed=2)
    ga, gb = a.to(cuda), b.to(cuda)
    ga.add_(gb, alpha=-1.5)
    a.add_(b, alpha=-1.5)
    check(ga, a)
    ga.mul_(2.0)
    a.mul_(2.0)
    check(ga, a)
    ga.t().div_(gb.t() + 5)
    a.t().div_(b.t() + 5)
    check(ga, a)


# ---------------------------------------------------------------- unary

UNARY = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp,
    "log": lambda x: torch.log(x.abs() + 0.1), "sqrt": lambda x: torch.sqrt(x.abs()),
    "rsqrt": lambda x: torch.rsqrt(x.abs() + 0.1), "sin": torch.sin, "cos": torch.cos,
    "tanh": torch.tanh, "sigmoid": torch.sigmoid,
    "reciprocal": lambda x: torch.reciprocal(x.abs() + 0.5), "sign": torch.sign,
    "square": lambda x: x ** 2, "cube": lambda x: x ** 3,
    "inv_square": lambda x: (x.abs() + 0.5) ** -2, "pow_scalar": lambda x: (x.abs() + 0.1) ** 2.5,
    "pow_half": lambda x: x.abs() ** 0.5,
    "clamp": lambda x: torch.clamp(x, -0.5, 0.7), "clamp_min": lambda x: torch.clamp_min(x, 0.1),
    "clamp_max": lambda x: torch.clamp_max(x, -0.2),
    "relu": torch.relu, "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu, "softplus": F.softplus, "softplus_beta": lambda x: F.softplus(x, 2.0, 1.5),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
    "elu": F.elu, "selu": F.selu, "celu": lambda x: F.celu(x, 0.7),
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 1.2), "relu6": F.relu6,
    "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "logsigmoid": F.logsigmoid, "mish": F.mish,
}


@pytest.mark.parametrize("op", list(UNARY))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_unary(cuda, op, shape):
    f = UNARY[op]
    x = make(SHAPES[shape], seed=5) * 2
    check(f(x.to(cuda)), f(x))


@pytest.mark.parametrize("op", list(UNARY))
def test_unary_strided(cuda, op):
    f = UNARY[op]
    x = make((40, 24), seed=6) * 2
    g = x.to(cuda)
    check(f(g.t()), f(x.t()))
    check(f(g[:, ::3]), f(x[:, ::3]))


@pytest.mark.parametrize("op", ["neg", "abs", "sign", "square", "clamp", "relu"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_unary_int(cuda, op, dtype):
    f = UNARY[op] if op != "clamp" else (lambda x: torch.clamp(x, -10, 20))
    x = make((500,), dtype, 7)
    check(f(x.to(cuda)), f(x), True)


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "gelu", "silu", "relu", "neg"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_unary_low_precision(cuda, op, dtype):
    x = make((999,), dtype, 8)
    check(UNARY[op](x.to(cuda)), UNARY[op](x))


# ---------------------------------------------------------------- compare / where

COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
           "gt": torch.gt, "ge": torch.ge}


@pytest.mark.parametrize("op", list(COMPARE))
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_compare(cuda, op, dtype):
    f = COMPARE[op]
    a, b = make((37, 20), dtype, 1), make((37, 20), dtype, 2)
    b[::3] = a[::3]                 # some equal elements
    ga, gb = a.to(cuda), b.to(cuda)
    check(f(ga, gb), f(a, b))
    check(f(ga, 0), f(a, 0))
    check(f(ga.t(), gb.t()), f(a.t(), b.t()))
    check(f(ga, gb[0]), f(a, b[0]))


def test_logical_not_and_where(cuda):
    x = make((300,), seed=3)
    x[::4] = 0
    check(torch.logical_not(x.to(cuda)), torch.logical_not(x))
    m = make((30, 10), torch.bool, 1)
    a, b = make((30, 10), seed=2), make((30, 10), seed=3)
    check(torch.where(m.to(cuda), a.to(cuda), b.to(cuda)), torch.where(m, a, b), True)
    check(torch.where(m.to(cuda), a.to(cuda), 0.0), torch.where(m, a, 0.0), True)
    check(torch.where(m.to(cuda).t(), a.to(cuda).t(), b.to(cuda)[0:1].t()),
          torch.where(m.t(), a.t(), b[0:1].t()), True)
    c = make((30, 10), seed=4)
    check(torch.clamp(a.to(cuda), b.to(cuda), b.to(cuda) + c.to(cuda).abs()),
          torch.clamp(a, b, b + c.abs()))


def test_nan_propagation(cuda):
    x = torch.tensor([1.0, float("nan"), -2.0, float("inf"), -float("inf")])
    y = torch.tensor([float("nan"), 0.5, 3.0, 1.0, 2.0])
    g, h = x.to(cuda), y.to(cuda)
    check(torch.maximum(g, h), torch.maximum(x, y))
    check(torch.minimum(g, h), torch.minimum(x, y))
    check(torch.clamp(g, -1, 1), torch.clamp(x, -1, 1))
    check(torch.relu(g), torch.relu(x))
    check(g == h, x == y)


# ---------------------------------------------------------------- autograd


@pytest.mark.parametrize("act", ["relu", "gelu", "gelu_tanh", "silu", "tanh", "sigmoid",
                                 "softplus", "leaky_relu", "elu", "selu", "celu", "hardtanh",
                                 "relu6", "hardswish", "hardsigmoid", "logsigmoid", "mish"])
def test_activation_backward(cuda, act):
    f = UNARY[act]
    x = make((64, 48), seed=9) * 2
    gy = make((64, 48), seed=10)
    xc = x.clone().requires_grad_()
    f(xc).backward(gy)
    xg = x.to(cuda).requires_grad_()
    f(xg).backward(gy.to(cuda))
    check(xg.grad, xc.grad)


def test_mlp_like_elementwise_graph(cuda):
    # the pointwise part of a training step: ones_like grad, mul, add, relu
    w = make((32, 16), seed=11)
    x = make((32, 16), seed=12)
    wc, wg = w.clone().requires_grad_(), w.to(cuda).requires_grad_()
    for t, xx in ((wc, x), (wg, x.to(cuda))):
        y = torch.relu(t * xx + 0.5) * 2 - t / 3
        y.backward(torch.ones_like(y))   # sum() would need the reduce family
    check(wg.grad, wc.grad)


# ---------------------------------------------------------------- more pointwise ops

MORE_UNARY = {
    "erf": torch.erf, "log1p": lambda x: torch.log1p(x.abs()), "expm1": torch.expm1,
    "floor": torch.floor, "ceil": torch.ceil, "round": torch.round, "trunc": torch.trunc,
}


@pytest.mark.parametrize("op", list(MORE_UNARY))
@pytest.mark.parametrize("strided", [False, True])
def test_more_unary(cuda, op, strided):
    f = MORE_UNARY[op]
    x = make((40, 33), seed=13) * 3
    x[0, :4] = torch.tensor([0.5, 1.5, -2.5, 2.5])     # round: half to even
    g = x.to(cuda)
    if strided:
        x, g = x.t(), g.t()
    check(f(g), f(x))


MORE_BINARY = {
    "logical_and": torch.logical_and, "logical_or": torch.logical_or,
    "logical_xor": torch.logical_xor, "fmod": torch.fmod, "remainder": torch.remainder,
    "atan2": torch.atan2, "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
}


# atan2 promotes integers to float, so its int64 case is the float32 one
MORE_BINARY_CASES = [(op, dt) for op in MORE_BINARY for dt in (torch.float32, torch.int64)
                     if not (op == "atan2" and dt == torch.int64)]


@pytest.mark.parametrize("op,dtype", MORE_BINARY_CASES)
def test_more_binary(cuda, op, dtype):
    f = MORE_BINARY[op]
    a, b = make((31, 17), dtype, 1) * 3, make((31, 17), dtype, 2)
    b[b == 0] = 3                                   # no division by zero
    a[0, :3] = 0
    ga, gb = a.to(cuda), b.to(cuda)
    check(f(ga, gb), f(a, b))
    check(f(ga, gb[0]), f(a, b[0]))                 # broadcast: legacy kernel
    two = torch.tensor(2, dtype=dtype)              # 0-dim CPU tensor: a kernel scalar
    check(f(ga, two), f(a, two))


def test_bitwise(cuda):
    m, n = make((300,), torch.bool, 3), make((300,), torch.bool, 5)
    check(~m.to(cuda), ~m)
    i, j = make((300,), torch.int64, 4), make((300,), torch.int64, 6)
    check(~i.to(cuda), ~i)
    for f in (torch.bitwise_and, torch.bitwise_or, torch.bitwise_xor):
        check(f(m.to(cuda), n.to(cuda)), f(m, n))
        check(f(i.to(cuda), j.to(cuda)), f(i, j))
        check(f(i.to(cuda), 12), f(i, 12))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool])
def test_masked_fill(cuda, dtype):
    x = make((16, 24), dtype, 5)
    m = make((16, 24), torch.bool, 6)
    v = True if dtype == torch.bool else -7 if not dtype.is_floating_point else float("-inf")
    check(x.to(cuda).masked_fill(m.to(cuda), v), x.masked_fill(m, v), True)
    # a causal mask broadcast over a batch, as attention uses
    causal = torch.ones(24, 24, dtype=torch.bool).triu(1)
    s = make((2, 24, 24), dtype, 7)
    check(s.to(cuda).masked_fill(causal.to(cuda), v), s.masked_fill(causal, v), True)


def test_lerp_addcmul_addcdiv(cuda):
    a, b, c = make((50, 20), seed=1), make((50, 20), seed=2), make((50, 20), seed=3)
    w = torch.rand(50, 20, generator=torch.Generator().manual_seed(4))
    ga, gb, gc, gw = a.to(cuda), b.to(cuda), c.to(cuda), w.to(cuda)
    check(torch.lerp(ga, gb, gw), torch.lerp(a, b, w))
    check(torch.lerp(ga, gb, 0.3), torch.lerp(a, b, 0.3))
    check(torch.lerp(ga, gb, 0.9), torch.lerp(a, b, 0.9))
    check(torch.addcmul(ga, gb, gc, value=0.5), torch.addcmul(a, b, c, value=0.5))
    check(torch.addcdiv(ga, gb, gc.abs() + 1, value=-2), torch.addcdiv(a, b, c.abs() + 1, value=-2))
    check(torch.addcmul(ga.t(), gb.t(), gc[:, 0]), torch.addcmul(a.t(), b.t(), c[:, 0]))


@pytest.mark.parametrize("offset", [1, 2, 3])
def test_misaligned_views(cuda, offset):
    # a view starting `offset` floats in: PyTorch picks the vector width
    # from pointer alignment (offset 1/3: unrolled without casts, 2: vec 2)
    x = make((2051,), seed=21)
    g = x.to(cuda)
    check(g[offset:].exp(), x[offset:].exp())
    check(g[offset:] * g[:-offset], x[offset:] * x[:-offset])
    check(torch.where(g[offset:] > 0, g[offset:], g[:-offset]),
          torch.where(x[offset:] > 0, x[offset:], x[:-offset]))
    h = x.half()
    check(h.to(cuda)[offset:] + 1, h[offset:] + 1)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.int8,
                                   torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_arange(cuda, dtype):
    check(torch.arange(100, dtype=dtype, device=cuda), torch.arange(100, dtype=dtype), True)
    check(torch.arange(3, 90, 7, dtype=dtype, device=cuda), torch.arange(3, 90, 7, dtype=dtype), True)
    if dtype.is_floating_point:
        check(torch.arange(-1.5, 2.5, 0.25, dtype=dtype, device=cuda),
              torch.arange(-1.5, 2.5, 0.25, dtype=dtype), True)
    elif dtype != torch.uint8:
        check(torch.arange(10, -20, -3, dtype=dtype, device=cuda),
              torch.arange(10, -20, -3, dtype=dtype), True)


MATH_UNARY = {
    "log2": lambda x: torch.log2(x.abs() + 0.1), "log10": lambda x: torch.log10(x.abs() + 0.1),
    "tan": lambda x: torch.tan(x / 2), "atan": torch.atan, "asin": lambda x: torch.asin(x / 4),
    "acos": lambda x: torch.acos(x / 4), "sinh": torch.sinh, "cosh": torch.cosh,
    "asinh": torch.asinh, "acosh": lambda x: torch.acosh(x.abs() + 1), "atanh": lambda x: torch.atanh(x / 4),
    "frac": torch.frac, "mish": F.mish, "logsigmoid": F.logsigmoid,
}
MATH_BINARY = {
    "hypot": torch.hypot, "copysign": torch.copysign, "logaddexp": torch.logaddexp,
    "fmax": torch.fmax, "fmin": torch.fmin, "xlogy": lambda a, b: torch.xlogy(a, b.abs()),
}


@pytest.mark.parametrize("op", list(MATH_UNARY))
def test_math_unary(cuda, op):
    f = MATH_UNARY[op]
    x = make((45, 23), seed=30) * 3
    check(f(x.to(cuda)), f(x))
    check(f(x.to(cuda).t()), f(x.t()))


@pytest.mark.parametrize("op", list(MATH_BINARY))
def test_math_binary(cuda, op):
    f = MATH_BINARY[op]
    a, b = make((45, 23), seed=31) * 3, make((45, 23), seed=32) * 3
    a[0, :3] = 0
    a[1, 0], b[1, 1] = float("nan"), float("nan")
    a[2, 0] = b[2, 0] = float("inf")
    check(f(a.to(cuda), b.to(cuda)), f(a, b))
    check(f(a.to(cuda), b.to(cuda)[0]), f(a, b[0]))


def test_elu_inplace_backward(cuda):
    # in-place elu saves its result: the backward kernel's is_result form
    x = make((40, 30), seed=40) * 2
    gy = make((40, 30), seed=41)
    for dev in ("cpu", cuda):
        xx = x.clone().to(dev).requires_grad_()
        y = xx * 1.0
        F.elu(y, alpha=0.8, inplace=True).backward(gy.to(dev))
        if dev == "cpu":
            want = xx.grad
        else:
            check(xx.grad, want)


def test_more_pointwise(cuda):
    a, b = make((40, 25), seed=50) * 2, make((40, 25), seed=51) * 2
    a[0, :3] = torch.tensor([0.0, -0.0, float("inf")])
    a[1, :2] = torch.tensor([-float("inf"), float("nan")])
    ga, gb = a.to(cuda), b.to(cuda)
    check(torch.signbit(ga), torch.signbit(a))
    check(torch.isposinf(ga), torch.isposinf(a))
    check(torch.isneginf(ga), torch.isneginf(a))
    check(torch.heaviside(ga, gb), torch.heaviside(a, b))
    check(torch.special.xlog1py(ga, gb.abs()), torch.special.xlog1py(a, b.abs()))
    check(F.mse_loss(ga, gb, reduction="none"), F.mse_loss(a, b, reduction="none"))
    w = torch.tensor([0.25])
    check(F.prelu(ga, w.to(cuda)), F.prelu(a, w))
    c = make((40, 26), seed=52)
    check(F.glu(c.to(cuda)), F.glu(c))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
def test_nan_to_num(cuda, dtype):
    x = make((30, 20), dtype, 60)
    x[0, :3] = torch.tensor([float("nan"), float("inf"), -float("inf")], dtype=dtype)
    g = x.to(cuda)
    check(torch.nan_to_num(g), torch.nan_to_num(x), True)
    check(torch.nan_to_num(g, 0.5, 100.0, -7.0), torch.nan_to_num(x, 0.5, 100.0, -7.0), True)
    check(torch.nan_to_num(g.t(), 1.0), torch.nan_to_num(x.t(), 1.0), True)
