"""split_with_sizes_copy and _chunk_cat under torchfl (the "jagged" op
family: the byte copies FSDP2 packs and unpacks its all-gathers and
reduce-scatters with), compared with PyTorch on the CPU.  Pure copies and
bf16 -> fp32 widening: every result is exact."""
import pytest
import torch

SPLIT_CASES = [
    # (shape, split sizes, dim, dtype)
    ((12,), [5, 0, 7], 0, torch.float32),
    ((4, 10), [3, 3, 4], 1, torch.float32),
    ((3, 7, 5), [1, 6], 1, torch.float16),
    ((2, 3, 9), [2, 2, 2, 3], 2, torch.int64),
    ((64, 33), [33], 1, torch.bfloat16),
    ((1000, 17), [500, 1, 499], 0, torch.uint8),      # odd byte counts, unaligned
]


def data(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    return torch.randint(0, 200, shape, generator=g).to(dtype)


@pytest.mark.parametrize("shape,sizes,dim,dtype", SPLIT_CASES)
def test_split_with_sizes_copy(cuda, shape, sizes, dim, dtype):
    x = data(shape, dtype, 1)
    outs = {}
    for dev in (cuda, torch.device("cpu")):
        xi = x.to(dev)
        out = [torch.full([s if d == dim else n for d, n in enumerate(shape)], -1, dtype=dtype,
                          device=dev) for s in sizes]
        torch.split_with_sizes_copy(xi, sizes, dim, out=out)
        outs[dev.type] = [o.cpu() for o in out]
    for g, c in zip(outs["cuda"], outs["cpu"]):
        assert torch.equal(g, c)


CAT_CASES = [
    # (shapes, dim, num_chunks, dtype)
    ([(10,), (3,), (7,)], 0, 2, torch.float32),            # padding: 3 and 7 over 2 chunks
    ([(4, 6), (4, 5)], 1, 3, torch.float32),               # leading dim 4
    ([(9, 3), (1, 3), (16, 3)], 0, 4, torch.bfloat16),
    ([(5,), (11,)], 0, 8, torch.int32),                    # chunks past the end: zeros
    ([(2, 3, 7)], 2, 2, torch.float16),
]


@pytest.mark.parametrize("shapes,dim,chunks,dtype", CAT_CASES)
def test_chunk_cat(cuda, shapes, dim, chunks, dtype):
    xs = [data(s, dtype, 10 + i) for i, s in enumerate(shapes)]
    got = torch._chunk_cat([x.to(cuda) for x in xs], dim, chunks).cpu()
    ref = torch._chunk_cat(xs, dim, chunks)
    assert got.shape == ref.shape and torch.equal(got, ref)


@pytest.mark.parametrize("shapes,dim,chunks", [([(10,), (3,)], 0, 2), ([(4, 6), (4, 5)], 1, 3)])
def test_chunk_cat_bf16_into_fp32(cuda, shapes, dim, chunks):
    """The out= form FSDP2's reduce-scatter uses for bf16 gradients with an
    fp32 reduce dtype: widened while packing."""
    xs = [data(s, torch.bfloat16, 20 + i) for i, s in enumerate(shapes)]
    ref = torch._chunk_cat(xs, dim, chunks).float()
    out = torch.full(ref.shape, float("nan"), device=cuda)
    torch._chunk_cat([x.to(cuda) for x in xs], dim, chunks, out=out)
    assert torch.equal(out.cpu(), ref)
