"""ktune.gemm against a numpy float64 reference, its errors, and its per-call overhead."""
import numpy as np
import pytest

import ktune
from ktune import _overhead

RNG = np.random.default_rng(29)


def rand(shape):
    return RNG.standard_normal(shape).astype(np.float32)


def check(a, b, c, alpha, beta):
    want = alpha * (a.astype(np.float64) @ b.astype(np.float64))
    if beta != 0:  # BLAS: C is not read when beta == 0 (it may hold NaN)
        want += beta * c.astype(np.float64)
    out = ktune.gemm(a, b, c, alpha=alpha, beta=beta)
    assert out is c
    k = a.shape[1]
    tol = 1e-5 * (k + 1) * (np.abs(a) @ np.abs(b)).max() + 1e-6
    np.testing.assert_allclose(c, want, rtol=0, atol=tol)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 5, 3), (64, 48, 33), (130, 97, 200)])
@pytest.mark.parametrize("layout", ["C", "F", "T"])
def test_matches_float64(m, n, k, layout):
    def make(shape):
        if layout == "C":
            return rand(shape)
        if layout == "F":
            return np.asfortranarray(rand(shape))
        return rand(shape[::-1]).T  # a transposed view, no copy
    a, b = make((m, k)), make((k, n))
    c = make((m, n))
    c[...] = np.nan  # poisoned: beta == 0 must not read C
    check(a, b, c, 1.0, 0.0)
    check(a, b, c, -0.5, 2.0)


@pytest.mark.parametrize("m,n,k", [(0, 3, 2), (3, 0, 2), (3, 2, 0)])
def test_empty_dimensions(m, n, k):
    # m or n == 0: nothing to do; k == 0: C = beta * C without reading A or B (BLAS).
    c = np.full((m, n), 2.0, np.float32)
    ktune.gemm(np.zeros((m, k), np.float32), np.zeros((k, n), np.float32), c, beta=0.5)
    assert np.all(c == 1.0)


def test_strided_row_view():
    big = rand((40, 64))
    a = big[:, 3:20]  # leading dimension 64, not 17
    b = rand((17, 9))
    c = np.full((40, 9), np.nan, dtype=np.float32)
    check(a, b, c, 1.0, 0.0)


def test_dlpack_tensor():
    class Tensor:  # any CPU DLPack producer (torch, jax, cupy-on-host ...) looks like this
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, stream=None):
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    a, b = rand((8, 6)), rand((6, 5))
    c = np.full((8, 5), np.nan, dtype=np.float32)
    ktune.gemm(Tensor(a), Tensor(b), c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, atol=1e-4)


@pytest.mark.parametrize("args,message", [
    ((np.zeros((2, 3)), np.zeros((3, 2), np.float32), np.zeros((2, 2), np.float32)),
     "a: needs dtype float32, got float64"),
    ((np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32), np.zeros((2, 2), np.float32)),
     "a @ b: shapes (2, 3) @ (4, 2) do not give c's (2, 2)"),
    ((np.zeros(3, np.float32), np.zeros((3, 2), np.float32), np.zeros((2, 2), np.float32)),
     "a: needs a 2-D array, got 1-D"),
    ((np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32), "c"),
     "c: needs a numpy array or a DLPack tensor, got str"),
    ((np.zeros((4, 6), np.float32)[::2, ::2], np.zeros((3, 2), np.float32),
      np.zeros((2, 2), np.float32)),
     "a: needs unit stride in one dimension"),
])
def test_errors(args, message):
    with pytest.raises(ValueError) as info:
        ktune.gemm(*args)
    assert str(info.value).startswith(message)


def test_dlpack_output():
    # numpy 1.x imports DLPack tensors read-only: such a C is refused. numpy 2.1 and later keep a
    # writable producer's tensor writable (numpy 2.5 on the GPU machine): ktune writes it.
    c = np.from_dlpack(np.zeros((2, 2), np.float32))
    a, b = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    if c.flags.writeable:
        ktune.gemm(a, b, c)
        assert (c == 3).all()
    else:
        with pytest.raises(ValueError, match="^c: read-only$"):
            ktune.gemm(a, b, c)


def test_read_only_output():
    c = np.zeros((2, 2), np.float32)
    c.setflags(write=False)
    with pytest.raises(ValueError, match="^c: read-only$"):
        ktune.gemm(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32), c)


def test_aliasing_is_ktune_error():
    # ktune::GemmError (C overlapping A) arrives as ValueError with ktune's own message.
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match="overlap"):
        ktune.gemm(x, np.zeros((4, 4), np.float32), x, beta=1.0)


def test_tuned_info():
    info = ktune.tuned_gemm_info()
    assert info["backend"] == "cpu"
    assert len(info["configs"]) >= 1
    assert 0 <= info["baseline"] < len(info["configs"])


def test_overhead_per_call():
    """Benchmark (printed, not asserted): Python ktune.gemm vs the C++ call on a 4x4x4 GEMM."""
    t = _overhead.measure(size=4, reps=20000, rounds=3)
    print(f"\nktune.gemm 4x4x4: Python {t['python'] * 1e6:.2f} us/call, "
          f"C++ {t['cpp'] * 1e6:.2f} us/call, overhead {t['overhead'] * 1e6:.2f} us/call")
