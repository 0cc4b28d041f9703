"""torch.cuda's runtime surface under torchfl: devices, memory, streams,
events, copies.  No kernels."""
import torch


def test_device_queries(cuda):
    assert torch.cuda.device_count() >= 1
    assert torch.cuda.current_device() == 0
    name = torch.cuda.get_device_name(0)
    assert name.startswith("torchfl")
    major, minor = torch.cuda.get_device_capability(0)
    assert (major, minor) == (8, 0)          # the configured default
    p = torch.cuda.get_device_properties(0)
    assert p.total_memory > 0 and p.multi_processor_count > 0
    assert p.name == name
    torch.cuda.set_device(0)
    torch.cuda.synchronize()


def test_copies_round_trip(cuda):
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16,
                  torch.int64, torch.int32, torch.uint8, torch.bool):
        x = (torch.arange(1000) % 7).to(dtype)
        y = x.to(cuda)
        assert y.device.type == "cuda" and y.dtype == dtype
        assert torch.equal(y.cpu(), x)


def test_pinned_and_non_blocking(cuda):
    x = torch.randn(4096).pin_memory()
    assert x.is_pinned()
    y = x.to(cuda, non_blocking=True)
    z = torch.empty(4096).pin_memory()
    z.copy_(y, non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(z, x)


def test_memory_statistics(cuda):
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    x = torch.empty(1 << 20, device=cuda)      # 4 MiB
    assert torch.cuda.memory_allocated() - base == 4 << 20
    assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
    assert torch.cuda.max_memory_allocated() >= base + (4 << 20)
    free, total = torch.cuda.mem_get_info()
    assert 0 < free <= total
    del x
    torch.cuda.empty_cache()
    assert torch.cuda.memory_allocated() == base


def test_streams_and_events(cuda):
    s = torch.cuda.Stream()
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    x = torch.randn(1 << 16)
    with torch.cuda.stream(s):
        a.record()
        y = x.to(cuda, non_blocking=True)
        b.record()
    b.synchronize()
    assert a.query() and b.query()
    assert a.elapsed_time(b) >= 0.0
    torch.cuda.current_stream().wait_stream(s)
    assert torch.equal(y.cpu(), x)


def test_manual_seed(cuda):
    torch.manual_seed(1234)
    torch.cuda.manual_seed_all(1234)
    assert torch.cuda.initial_seed() == 1234


def _small_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(),
                               torch.nn.LayerNorm(32), torch.nn.Linear(32, 4))


def test_autocast_matches_cpu_autocast(cuda):
    # bf16 and fp16 autocast on cuda vs the same model in fp32 on the CPU:
    # within the low-precision tolerance, gradients included
    for dt, tol in ((torch.bfloat16, 5e-2), (torch.float16, 1e-2)):
        ref = _small_model()
        m = _small_model().to(cuda)
        x = torch.randn(8, 16)
        with torch.autocast("cuda", dtype=dt):
            y = m(x.to(cuda))
        assert y.dtype == dt
        y.float().pow(2).mean().backward()
        ref(x).pow(2).mean().backward()
        torch.testing.assert_close(y.float().cpu(), ref(x).detach(), rtol=tol, atol=tol)
        torch.testing.assert_close(m[0].weight.grad.cpu(), ref[0].weight.grad, rtol=tol * 4,
                                   atol=tol)


def test_state_dict_save_and_load_with_map_location(cuda, tmp_path):
    m = _small_model().to(cuda)
    path = tmp_path / "m.pt"
    torch.save(m.state_dict(), path)
    on_cpu = torch.load(path, map_location="cpu")
    assert all(t.device.type == "cpu" for t in on_cpu.values())
    on_cuda = torch.load(path, map_location="cuda")
    assert all(t.device.type == "cuda" for t in on_cuda.values())
    fresh = _small_model()
    fresh.load_state_dict(on_cpu)
    for k, v in m.state_dict().items():
        assert torch.equal(v.cpu(), fresh.state_dict()[k])
