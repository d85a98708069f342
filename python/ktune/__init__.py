"""ktune from Python: the shipped CPU tuned GEMM on numpy arrays and DLPack tensors.

Errors of ktune keep their one-line message: bad arguments raise ValueError, failures of the
library raise RuntimeError. See docs/python.md.
"""
import numpy as _np

from . import _ktune

__all__ = ["gemm", "tuned_gemm_info"]


def _as_array(x, name):
    if isinstance(x, _np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        # A DLPack tensor on the CPU: a numpy view of the same memory (no copy).
        try:
            return _np.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError) as e:
            raise ValueError(f"{name}: DLPack tensor not readable on the CPU ({e})") from None
    raise ValueError(f"{name}: needs a numpy array or a DLPack tensor, got {type(x).__name__}")


def gemm(a, b, c, alpha=1.0, beta=0.0):
    """c[:] = alpha * a @ b + beta * c with ktune's tuned CPU GEMM (in place; returns c).

    a (m, k), b (k, n), c (m, n): 2-D float32, each C- or Fortran-ordered or a transposed view
    of one (any unit-stride layout runs without a copy). a and b: numpy arrays or CPU DLPack
    tensors (objects with __dlpack__); c: a writable numpy array (numpy imports DLPack tensors
    read-only). c is not read when beta == 0. Raises ValueError naming the bad
    argument.
    """
    a_arr, b_arr, c_arr = _as_array(a, "a"), _as_array(b, "b"), _as_array(c, "c")
    _ktune.gemm(a_arr, b_arr, c_arr, float(alpha), float(beta))
    return c


def tuned_gemm_info():
    """What the CPU tuned library ships: {"backend", "configs" (K config strings), "baseline"}."""
    return _ktune.tuned_gemm_info()
