"""Per-call overhead of ktune.gemm over the C++ call (python/tests/test_gemm.py prints it;
scripts/python_overhead.sh records it): both loops call ktune::gemm of the shipped CPU library on
the same tiny square operands, the C++ one from C++ (_ktune.gemm_cpp_seconds_per_call)."""
import time

import numpy as np

from . import _ktune, gemm


def measure(size, reps, rounds):
    """Best-of-`rounds` seconds per call: {"python": s, "cpp": s, "overhead": python - cpp}.

    Rounds alternate Python and C++ so that a busy spell of the machine hits both alike.
    """
    a, b = np.ones((size, size), np.float32), np.ones((size, size), np.float32)
    c = np.zeros((size, size), np.float32)
    best_py = best_cpp = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(reps):
            gemm(a, b, c)
        best_py = min(best_py, (time.perf_counter() - start) / reps)
        best_cpp = min(best_cpp, _ktune.gemm_cpp_seconds_per_call(size, reps))
    if not np.all(c == size):
        raise RuntimeError(f"ktune.gemm {size}x{size}x{size} of ones: wrong result")
    return {"python": best_py, "cpp": best_cpp, "overhead": best_py - best_cpp}
