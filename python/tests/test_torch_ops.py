"""torch.ops.ktune.gemm / conv2d against torch on random data (skipped without PyTorch)."""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed (python3-torch)")
import ktune.torch_ops  # noqa: E402,F401 - registers torch.ops.ktune.*


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (33, 17, 64), (128, 96, 70)])
def test_gemm_matches_torch(m, n, k):
    gen = torch.Generator().manual_seed(29)
    a, b = torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)
    c = torch.ops.ktune.gemm(a, b)
    want = a.double() @ b.double()
    torch.testing.assert_close(c.double(), want, rtol=0, atol=1e-5 * (k + 1) * 4)
    # A transposed view runs as its BLAS transpose.
    torch.testing.assert_close(torch.ops.ktune.gemm(b.t(), a.t()).double(), want.t(), rtol=0,
                               atol=1e-5 * (k + 1) * 4)


@pytest.mark.parametrize("n,c,h,k,r,stride,padding", [(1, 3, 8, 4, 3, 1, 1), (2, 16, 7, 8, 1, 1, 0),
                                                      (1, 5, 11, 6, 3, 2, 1)])
def test_conv2d_matches_torch(n, c, h, k, r, stride, padding):
    gen = torch.Generator().manual_seed(29)
    x, w = torch.randn(n, c, h, h, generator=gen), torch.randn(k, c, r, r, generator=gen)
    y = torch.ops.ktune.conv2d(x, w, stride, padding)
    want = torch.nn.functional.conv2d(x.double(), w.double(), stride=stride, padding=padding)
    assert y.shape == want.shape and y.dtype == torch.float32
    torch.testing.assert_close(y.double(), want, rtol=0, atol=1e-4 * r * r * c)


def test_wrong_tensor_is_value_error():
    with pytest.raises(ValueError, match="^a: needs a 2-D float32 CPU tensor"):
        torch.ops.ktune.gemm(torch.zeros(2, 2, dtype=torch.float64), torch.zeros(2, 2))


try:
    from ktune import _ktune_cuda  # noqa: F401
    HAVE_CUDA = torch.cuda.is_available()
except ImportError:
    HAVE_CUDA = False


@pytest.mark.skipif(not HAVE_CUDA, reason="needs a CUDA GPU and ktune built with CUDA")
def test_cuda_ops_match_torch():
    gen = torch.Generator().manual_seed(29)
    a, b = torch.randn(65, 70, generator=gen).cuda(), torch.randn(70, 33, generator=gen).cuda()
    c = torch.ops.ktune.gemm(a, b.t().contiguous().t())  # B as a transposed view
    assert c.is_cuda and c.dtype == torch.float32
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=0, atol=1e-5 * 71 * 4)
    x, w = torch.randn(2, 16, 9, 9, generator=gen).cuda(), torch.randn(8, 16, 3, 3,
                                                                        generator=gen).cuda()
    y = torch.ops.ktune.conv2d(x, w, 2, 1)
    want = torch.nn.functional.conv2d(x.double(), w.double(), stride=2, padding=1)
    assert y.shape == want.shape and y.is_cuda
    torch.testing.assert_close(y.double(), want, rtol=0, atol=1e-4 * 9 * 16)
    with pytest.raises(ValueError, match="^b: needs a 2-D float32 CUDA tensor"):
        torch.ops.ktune.gemm(a, torch.zeros(70, 33, device="cuda", dtype=torch.float64))
