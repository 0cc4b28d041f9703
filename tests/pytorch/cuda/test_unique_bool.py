"""torch.unique of a bool tensor on `cuda` under torchfl (the "misc" family:
the cub count of true values over MapNumberOfTrueValues, then
unique_bool_write_output / unique_bool_write_inverse_indices), compared with
PyTorch on cpu from the same input.
"""
import pytest
import torch


def cases():
    g = torch.Generator().manual_seed(0)
    return {
        "mixed3": torch.tensor([True, False, True]),
        "all_true": torch.ones(5, dtype=torch.bool),
        "all_false": torch.zeros(7, dtype=torch.bool),
        "one_false": torch.tensor([False]),
        "one_true": torch.tensor([True]),
        "empty": torch.zeros(0, dtype=torch.bool),
        "big": torch.rand(100003, generator=g) > 0.3,
        "big_all_true": torch.ones(70001, dtype=torch.bool),
        "2d": torch.rand(37, 41, generator=g) > 0.9,
        "noncontig": (torch.rand(64, 50, generator=g) > 0.5).t(),
    }


@pytest.mark.parametrize("name", list(cases()))
@pytest.mark.parametrize("sorted_", [True, False])
def test_unique_bool(cuda, name, sorted_):
    x = cases()[name]
    got = torch.unique(x.to(cuda), sorted=sorted_, return_inverse=True, return_counts=True)
    ref = torch.unique(x, sorted=sorted_, return_inverse=True, return_counts=True)
    for a, b in zip(got, ref):
        assert a.device.type == "cuda"
        a = a.cpu()
        assert a.dtype == b.dtype and a.shape == b.shape
        assert torch.equal(a, b)


@pytest.mark.parametrize("name", ["mixed3", "big", "all_false"])
def test_unique_bool_plain(cuda, name):
    x = cases()[name]
    assert torch.equal(torch.unique(x.to(cuda)).cpu(), torch.unique(x))
