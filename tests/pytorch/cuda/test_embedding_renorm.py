"""F.embedding(..., max_norm=...) under torchfl: embedding_renorm_'s
renorm_kernel (the "embedding" op family), compared with PyTorch on the
CPU (which computes each row's norm in double)."""
import pytest
import torch
import torch.nn.functional as F


# (PyTorch's GPU kernel sums pow(x, p) without abs for p other than 1 and 2,
# so for odd p it differs from the CPU's norm; even p agree)
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 4.0])
@pytest.mark.parametrize("dtype,rtol", [(torch.float32, 2e-6), (torch.float64, 1e-12)])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("vocab,dim,nidx", [(10, 4, 20), (50, 33, 7), (5, 1, 3)])
def test_embedding_max_norm(cuda, norm_type, dtype, rtol, index_dtype, vocab, dim, nidx):
    g = torch.Generator().manual_seed(vocab * dim + nidx)
    w = (torch.randn(vocab, dim, generator=g) * 1.5).to(dtype)
    idx = torch.randint(0, vocab, (nidx,), generator=g).to(index_dtype)
    w[idx[0]] = 2.0                       # at least one row over the bound
    max_norm = 1.25
    wc = w.clone()
    ref = F.embedding(idx, wc, max_norm=max_norm, norm_type=norm_type)
    wd = w.to(cuda)
    out = F.embedding(idx.to(cuda), wd, max_norm=max_norm, norm_type=norm_type).cpu()
    # the rows looked up are renormalised in place, the others untouched
    assert torch.allclose(wd.cpu(), wc, rtol=rtol, atol=0)
    assert torch.allclose(out, ref, rtol=rtol, atol=0)
    norms = wc[idx.long().unique()].double().norm(p=norm_type, dim=1)
    assert (norms <= max_norm * (1 + 1e-5)).all()
    assert not torch.equal(wc, w)         # some row was over the bound


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_embedding_max_norm_lowp(cuda, dtype):
    g = torch.Generator().manual_seed(5)
    w = (torch.randn(30, 16, generator=g) * 2).to(dtype)
    idx = torch.randint(0, 30, (40,), generator=g)
    wd = w.to(cuda)
    out = F.embedding(idx.to(cuda), wd, max_norm=1.0).cpu()
    wc = w.clone()
    ref = F.embedding(idx, wc, max_norm=1.0)
    tol = 4e-3 if dtype == torch.float16 else 2e-2
    assert torch.allclose(out.float(), ref.float(), rtol=tol, atol=tol * 1e-2)
    assert torch.allclose(wd.cpu().float(), wc.float(), rtol=tol, atol=tol * 1e-2)


# From 2.13, embedding_renorm_ wraps negative indices on the GPU as the CPU
# does (embedding_renorm_wrap_indices_kernel, before the sort and
# renorm_kernel); earlier releases have no wrap (a negative index is out of
# bounds on a GPU too).
# The tests of that behaviour exist only for those releases (before 2.13
# the GPU reads out of bounds: there is nothing to compare).
WRAPS = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 13)


@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_renorm_negative_indices(cuda, index_dtype, norm_type):
    g = torch.Generator().manual_seed(17)
    w = torch.randn(12, 6, generator=g) * 2
    # -1 and 11 name the same row, -12 is row 0; repeats included
    idx = torch.tensor([-1, 3, -12, 11, -5, 3, 0, -7], dtype=index_dtype)
    wc = w.clone()
    torch.embedding_renorm_(wc, idx, 1.5, norm_type)
    wd = w.to(cuda)
    torch.embedding_renorm_(wd, idx.to(cuda), 1.5, norm_type)
    assert torch.allclose(wd.cpu(), wc, rtol=2e-6, atol=0)
    assert not torch.equal(wc, w)


# An index outside [-num_weights, num_weights) trips the wrap kernel's
# device-side assert: the launch fails and the CUDA context is poisoned
# (sticky, as on a GPU), so it runs in a child process, which inherits
# torchfl's preload from this one.  torchfl reports the fault at the launch
# (a GPU at the next synchronisation); 2.13's device guard then rethrows the
# sticky error from its destructor while the first one unwinds, which
# terminates the child with the CUDA error (2.14 on only warn there), so a
# child killed with the CUDA error counts as the failure too.
OUT_OF_RANGE = r"""
import sys, torch
w = torch.randn(5, 3, device="cuda")
try:
    torch.embedding_renorm_(w, torch.tensor([0, int(sys.argv[1])], device="cuda"), 1.0, 2.0)
    torch.cuda.synchronize()
except RuntimeError as e:
    print("raised:", str(e).splitlines()[0])
else:
    print("no error")
"""


@pytest.mark.parametrize("bad", [5, -6])
def test_embedding_renorm_index_out_of_range(cuda, bad):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", OUT_OF_RANGE, str(bad)], capture_output=True,
                       text=True, timeout=300)
    if r.returncode == 0:
        assert r.stdout.startswith("raised:"), r.stdout + r.stderr[-2000:]
    else:
        assert "CUDA error" in r.stderr and "no error" not in r.stdout, r.stderr[-2000:]
    # torchfl said why
    assert "outside [-5, 5)" in r.stderr, r.stderr[-2000:]


if not WRAPS:
    del test_embedding_renorm_negative_indices, test_embedding_renorm_index_out_of_range
