"""scripts/wheel_kernels.py reads the wheel's kernels and parameter layouts correctly.

The parameter layout comes from the cubins' .nv.info records; the reference it
is checked against is independent of that: the C ABI layout computed from the
demangled parameter list (each parameter aligned to its own size), for every
kernel whose parameters are all scalars or pointers.
"""
import re

import pytest

wheel_kernels = pytest.importorskip("wheel_kernels")

SCALARS = {
    "bool": 1, "char": 1, "signed char": 1, "unsigned char": 1,
    "short": 2, "unsigned short": 2,
    "int": 4, "unsigned int": 4, "float": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "double": 8,
}


@pytest.fixture(scope="module")
def data():
    import wheel_common
    return wheel_kernels.collect(wheel_common.torch_lib_dir(), 80)


def abi_layout(demangled):
    """[(offset, size)] for `void f<...>(T1, T2, ...)` when every Ti is a scalar or pointer."""
    m = re.search(r"\(([^()]*)\)$", demangled)
    if not m:
        return None
    args = [a.strip() for a in m.group(1).split(",")] if m.group(1).strip() else []
    layout, off = [], 0
    for a in args:
        if a.endswith("*"):
            size = 8
        else:
            t = re.sub(r"\bconst\b", "", a).strip()
            if t not in SCALARS:
                return None
            size = SCALARS[t]
        off = (off + size - 1) // size * size
        layout.append((off, size))
        off += size
    return layout


def test_no_ptx_and_all_archs(data):
    st = data["libraries"]["libtorch_cuda.so"]
    assert st["fatbin_containers"] > 100
    for arch in ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"):
        assert st["elf_by_arch"].get(arch, 0) >= st["fatbin_containers"]
    # torch 2.11.0+cu130 to 2.15.0+cu132 ship SASS only; if this fails the wheel changed and
    # docs/pytorch-wheel.md (and the executor plan) must be revisited.
    assert sum(st["ptx_by_arch"].values()) == 0


def test_param_layout_matches_c_abi(data):
    checked, bad = 0, []
    for name, k in data["kernels"].items():
        want = abi_layout(k["demangled"])
        if want is None:
            continue
        got = [(o, z) for _, o, z in k["params"]]
        ordinals = [i for i, _, _ in k["params"]]
        if got != want or ordinals != list(range(len(want))):
            bad.append(f"{k['demangled']}: cubin {got} vs ABI {want}")
        checked += 1
    assert checked > 300, f"only {checked} kernels with plain parameters found"
    assert not bad, f"{len(bad)} of {checked} layouts differ:\n" + "\n".join(bad[:20])


def test_known_kernels_and_families(data):
    by_short = {wheel_kernels.short_name(k["demangled"]): k for k in data["kernels"].values()}
    # 2.15 added a trailing bool template argument ("..., false>"); the
    # parameters are the same in every release
    fill = [k for n, k in by_short.items()
            if re.fullmatch(r"vectorized_elementwise_kernel<4, FillFunctor<float>, "
                            r"std::array<char\*, 1ul>(, false)? ?>", n)]
    assert len(fill) == 1, "no (or several) vec-4 FillFunctor<float> kernels"
    k = fill[0]
    # (int N, FillFunctor<float> f, std::array<char*, 1> data): 4 + 4 + 8
    assert [(o, z) for _, o, z in k["params"]] == [(0, 4), (4, 4), (8, 8)]
    assert k["family"] == "elementwise/vectorized"
    fams = {k["family"] for k in data["kernels"].values()}
    for f in ("reduce", "softmax", "nll / cross-entropy", "layer norm", "embedding",
              "multi_tensor_apply (foreach optimizers)", "attention (SDPA)", "dropout / philox RNG"):
        assert f in fams
