#include "kernels/common/gemm_shape.hpp"

namespace ktune::kernels::gemm {

int64_t Shape::stride_a() const { return lda * (transa ? m : k); }
int64_t Shape::stride_b() const { return ldb * (transb ? k : n); }
int64_t Shape::stride_c() const { return ldc * n; }

}  // namespace ktune::kernels::gemm
