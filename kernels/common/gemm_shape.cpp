#include "kernels/common/gemm_shape.hpp"

namespace ktune::kernels::gemm {

int64_t Shape::stride_a() const { return lda * (transa ? m : k); }
int64_t Shape::stride_b() const { return ldb * (transb ? k : n); }
int64_t Shape::stride_c() const { return ldc * n; }

Shape packed_shape(bool transa, bool transb, int64_t m, int64_t n, int64_t k, int64_t batch) {
  return Shape{.transa = transa,
               .transb = transb,
               .m = m,
               .n = n,
               .k = k,
               .batch = batch,
               .lda = transa ? k : m,
               .ldb = transb ? n : k,
               .ldc = m};
}

}  // namespace ktune::kernels::gemm
