#pragma once
// One GEMM call of the tuned libraries' tests (CPU here, CUDA in tests/gpu): its arguments and
// the shape they describe.
#include <algorithm>
#include <cstdint>

#include "kernels/common/gemm_shape.hpp"

namespace ktune::test {

struct TunedGemmCase {
  bool ta, tb;
  int64_t m, n, k, batch;
  int64_t pad;  // added to every leading dimension
  float alpha, beta;
};

// The case's shape; A's and B's leading dimensions stay at least 1 (BLAS's rule) when k is 0.
inline kernels::gemm::Shape shape_of(const TunedGemmCase& t) {
  kernels::gemm::Shape s = kernels::gemm::packed_shape(t.ta, t.tb, t.m, t.n, t.k, t.batch);
  s.lda = std::max<int64_t>(1, s.lda + t.pad);
  s.ldb = std::max<int64_t>(1, s.ldb + t.pad);
  s.ldc += t.pad;
  return s;
}

}  // namespace ktune::test
