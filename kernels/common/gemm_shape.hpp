#pragma once
// The shape of a strided-batched, column-major GEMM (BLAS semantics) and its verification bound:
// the vocabulary of the GEMM building blocks that several families run (the GEMM family, and
// conv2d's im2col, 1x1 and Winograd kinds).
#include <cstdint>

#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm {

struct Shape {
  bool transa = false, transb = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;      // minimal leading dimensions unless set otherwise
  Precision precision = Precision::fp32;  // the problem's optional `precision` feature
  // C (and beta's old C) in the 16-bit input type instead of FP32: bf16 / fp16 only; the
  // problem's optional `c16` feature (1), absent for FP32 C so older keys stay as they were.
  bool c16 = false;
  int64_t stride_a() const;  // elements between batch entries (packed)
  int64_t stride_b() const;
  int64_t stride_c() const;
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
};

// A shape whose matrices are packed: minimal leading dimensions, batch entries back to back.
Shape packed_shape(bool transa, bool transb, int64_t m, int64_t n, int64_t k, int64_t batch = 1);

// Relative Frobenius-norm error allowed against a float64 reference of the FP32 inputs: FP32
// accumulation error grows like sqrt(k) * eps; 16x margin. Wrong kernels give O(1) errors or NaN.
double error_bound(int64_t k);
// The same for a precision (gemm_error_bound.cpp says how the input rounding term is derived).
double error_bound(int64_t k, Precision precision);
// The unit roundoff of the rounding A and B go through: 2^-24 fp32, 2^-11 tf32 and fp16, 2^-8 bf16.
double input_unit_roundoff(Precision precision);
// error_bound(k, precision) with C stored in the 16-bit input type (bf16 / fp16): plus that
// type's unit roundoff, the worst case of the one rounding at the store (gemm_error_bound.cpp).
double error_bound_16bit_output(int64_t k, Precision precision);

}  // namespace ktune::kernels::gemm
