"""ktune.gemm / ktune.conv2d on CUDA DLPack tensors (PyTorch, CuPy): the shipped CUDA tuned
libraries against a float64 reference, with the output poisoned; the errors. The GPU cases skip,
saying why, where no GPU (or no CUDA PyTorch / CuPy) is found; the dispatch errors run anywhere."""
import numpy as np
import pytest

import ktune

try:
    import torch
    HAVE_TORCH_CUDA = torch.cuda.is_available()
except ImportError:
    torch, HAVE_TORCH_CUDA = None, False
try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # not installed, or no driver / device
    cupy, HAVE_CUPY = None, False

try:
    from ktune import _ktune_cuda  # noqa: F401
    HAVE_MODULE = True
except ImportError:
    HAVE_MODULE = False

need_torch = pytest.mark.skipif(not (HAVE_TORCH_CUDA and HAVE_MODULE),
                                reason="needs PyTorch with a CUDA GPU and ktune built with CUDA")
need_cupy = pytest.mark.skipif(not (HAVE_CUPY and HAVE_MODULE),
                               reason="needs CuPy with a CUDA GPU and ktune built with CUDA")


def gemm_bound(a64, b64, k):
    # FP32 products summed in FP32: k roundings of at most 2^-24 relative each, on |a| @ |b|.
    return 1e-5 * (k + 1) * (np.abs(a64) @ np.abs(b64)).max() + 1e-6


def torch_operand(shape, layout, gen):
    rows, cols = shape
    if layout == "C":
        return torch.randn(rows, cols, generator=gen).cuda()
    if layout == "T":  # a transposed view: unit stride in the other dimension
        return torch.randn(cols, rows, generator=gen).cuda().t()
    return torch.randn(rows, cols + 7, generator=gen).cuda()[:, 3:3 + cols]  # column slice


@need_torch
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (37, 53, 29), (256, 192, 320)])
@pytest.mark.parametrize("layout", ["C", "T", "slice"])
def test_torch_gemm_matches_float64(m, n, k, layout):
    gen = torch.Generator().manual_seed(29 + m + n + k)
    a, b = torch_operand((m, k), layout, gen), torch_operand((k, n), layout, gen)
    c = torch_operand((m, n), layout, gen)
    c.fill_(float("nan"))  # poisoned: beta == 0 must not read C
    a64, b64 = a.double().cpu().numpy(), b.double().cpu().numpy()
    assert ktune.gemm(a, b, c) is c
    torch.cuda.synchronize()
    np.testing.assert_allclose(c.cpu().numpy(), a64 @ b64, rtol=0, atol=gemm_bound(a64, b64, k))
    c0 = c.double().cpu().numpy()
    ktune.gemm(a, b, c, alpha=-0.5, beta=2.0)
    torch.cuda.synchronize()
    np.testing.assert_allclose(c.cpu().numpy(), -0.5 * (a64 @ b64) + 2.0 * c0, rtol=0,
                               atol=3 * gemm_bound(a64, b64, k))


@need_torch
def test_torch_gemm_on_a_side_stream():
    # The current stream of PyTorch (here a side stream) is the one ktune runs on: the inputs
    # are produced and the result read on it without any synchronization of ktune's own.
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.randn(300, 200, device="cuda")
        b = torch.randn(200, 100, device="cuda")
        c = torch.full((300, 100), float("nan"), device="cuda")
        ktune.gemm(a, b, c)
        want = (a.double() @ b.double())
        err = (c.double() - want).abs().max().item()
    side.synchronize()
    assert err <= gemm_bound(a.double().cpu().numpy(), b.double().cpu().numpy(), 200)


@need_torch
def test_torch_conv2d_matches_float64():
    gen = torch.Generator().manual_seed(7)
    n, h, w, c, k, r, s, stride, pad = 2, 17, 15, 24, 32, 3, 3, 2, 1
    x = torch.randn(n, h, w, c, generator=gen).cuda()
    f = torch.randn(k, r, s, c, generator=gen).cuda()
    p, q = (h + 2 * pad - r) // stride + 1, (w + 2 * pad - s) // stride + 1
    out = torch.full((n, p, q, k), float("nan"), device="cuda")
    assert ktune.conv2d(x, f, stride=stride, pad=pad, out=out) is out
    torch.cuda.synchronize()
    want = torch.nn.functional.conv2d(x.double().permute(0, 3, 1, 2),
                                      f.double().permute(0, 3, 1, 2), stride=stride,
                                      padding=pad).permute(0, 2, 3, 1)
    scale = torch.nn.functional.conv2d(x.double().abs().permute(0, 3, 1, 2),
                                       f.double().abs().permute(0, 3, 1, 2), stride=stride,
                                       padding=pad).max().item()
    err = (out.double() - want).abs().max().item()
    assert err <= 1e-5 * (r * s * c + 1) * scale, err  # Winograd configs round more: still inside


@need_torch
@pytest.mark.parametrize("case,message", [
    ("cpu_a", "a: on the CPU while b is on CUDA device 0: ktune.gemm takes all its tensors on "
              "the CPU or all on one GPU"),
    ("half", "a: needs dtype float32, got float16"),
    ("bf16", "b: needs dtype float32, got bfloat16"),
    ("stride", "a: needs unit stride in one dimension"),
    ("shape", "a @ b: shapes (4, 3) @ (2, 5) do not give c's (4, 5)"),
    ("1d", "c: needs a 2-D tensor, got 1-D"),
])
def test_torch_gemm_errors(case, message):
    a, b, c = (torch.zeros(4, 3, device="cuda"), torch.zeros(3, 5, device="cuda"),
               torch.zeros(4, 5, device="cuda"))
    if case == "cpu_a":
        a = a.cpu()
    elif case == "half":
        a = a.half()
    elif case == "bf16":
        b = b.bfloat16()
    elif case == "stride":
        a = torch.zeros(8, 6, device="cuda")[::2, ::2]
    elif case == "shape":
        b = torch.zeros(2, 5, device="cuda")
    elif case == "1d":
        c = torch.zeros(20, device="cuda")
    with pytest.raises(ValueError) as info:
        ktune.gemm(a, b, c)
    assert str(info.value).startswith(message)


@need_torch
def test_torch_conv2d_errors():
    x, f = torch.zeros(1, 8, 8, 4, device="cuda"), torch.zeros(6, 3, 3, 4, device="cuda")
    with pytest.raises(ValueError, match="^out: CUDA tensors need out="):
        ktune.conv2d(x, f)
    with pytest.raises(ValueError, match=r"^out: needs shape \(n, p, q, k\) = \(1, 6, 6, 6\), "
                                         r"got \(1, 8, 8, 6\)$"):
        ktune.conv2d(x, f, out=torch.zeros(1, 8, 8, 6, device="cuda"))
    with pytest.raises(ValueError, match="^input: needs a C-contiguous tensor$"):
        ktune.conv2d(x.permute(0, 2, 1, 3), f, out=torch.zeros(1, 6, 6, 6, device="cuda"))
    with pytest.raises(ValueError, match="^filter: has 4 input channels, input has 5$"):
        ktune.conv2d(torch.zeros(1, 8, 8, 5, device="cuda"), f,
                     out=torch.zeros(1, 6, 6, 6, device="cuda"))


@need_torch
def test_cuda_tuned_info():
    info = ktune.tuned_gemm_info("cuda")
    assert info["backend"] == "cuda" and len(info["configs"]) > 0
    assert ktune.tuned_conv2d_info("cuda")["backend"] == "cuda"


@need_cupy
def test_cupy_gemm_matches_float64():
    rng = np.random.default_rng(3)
    a64, b64 = rng.standard_normal((65, 33)), rng.standard_normal((33, 47))
    a, b = cupy.asarray(a64, dtype=cupy.float32), cupy.asarray(b64.T, dtype=cupy.float32).T
    c = cupy.full((65, 47), cupy.nan, dtype=cupy.float32)
    assert ktune.gemm(a, b, c) is c
    cupy.cuda.get_current_stream().synchronize()
    np.testing.assert_allclose(cupy.asnumpy(c), a64.astype(np.float32).astype(np.float64) @
                               b64.astype(np.float32).astype(np.float64), rtol=0,
                               atol=gemm_bound(a64, b64, 33))


class FakeCudaTensor:
    """Says it lives on CUDA device 0 (DLPack's device type 2) and is never read: the
    dispatch to the GPU path and its device check need no GPU."""

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("not reached: the device check comes first")


@pytest.mark.skipif(not HAVE_MODULE, reason="ktune built without CUDA (no ktune._ktune_cuda)")
def test_cpu_gpu_mix_is_one_line():
    with pytest.raises(ValueError, match="^a: on the CPU while b is on CUDA device 0: ktune.gemm "
                                         "takes all its tensors on the CPU or all on one GPU$"):
        ktune.gemm(np.zeros((2, 2), np.float32), FakeCudaTensor(), FakeCudaTensor())
    with pytest.raises(ValueError, match="^c: needs a DLPack tensor, got str$"):
        ktune.gemm(FakeCudaTensor(), FakeCudaTensor(), "c")


@pytest.mark.skipif(HAVE_MODULE, reason="ktune built with CUDA")
def test_without_cuda_module_is_ktune_error():
    with pytest.raises(ktune.Error, match="built without CUDA"):
        ktune.gemm(FakeCudaTensor(), FakeCudaTensor(), FakeCudaTensor())
