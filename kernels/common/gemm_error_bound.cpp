// The verification bound of a GEMM result against the float64 product of the FP32 inputs, per
// precision. Every backend and vendor row is judged by it (gemm_shape.hpp).
//
// Two terms, relative to ||C||_F:
//  - accumulation in FP32: each of the k terms of an element passes through O(k) roundings of
//    unit roundoff 2^-24; with random signs the error grows like sqrt(k) * 2^-24 (16x margin);
//  - input rounding (tf32, bf16, fp16): A and B are rounded once to the input format, of unit
//    roundoff u, so every product a*b carries a relative error |da/a + db/b| <= 2u. These errors
//    are independent of the data's signs, so summed over k random products they grow like
//    sqrt(k) just as the result does: the relative error of C stays near u (for errors uniform in
//    [-u, u], sqrt(2/3) u), whatever k. Bound: 4u, twice the worst case of one product and about
//    5x the expected value, far below the O(1) errors of a wrong kernel.
// u: 2^-8 for bf16 (8-bit significand, rounded to nearest), 2^-11 for fp16 (11 bits, nearest);
// 2^-10 for tf32: 11-bit significands too (fp32's exponent, 10 mantissa bits), but only the mma
// kind rounds them to nearest (cvt.rna, error <= 2^-11); the wgmma tf32 kind hands FP32 words to
// the tensor cores, which ignore the low 13 bits, i.e. truncate toward zero: relative error in
// [0, 2^-10), one ulp. Truncation errors are biased (mean 2^-11 per operand, the same sign as
// the operand), so each product a*b carries -(da + db) with mean -2^-10 and the sum over k keeps
// that bias coherently: the relative error of C sits near 2^-10 (host emulation: about 0.8 * 2^-10)
// instead of near u as unbiased errors would; 4u = 2^-8 holds it with a 4x margin, and remains
// twice the worst case of one product. 0 for fp32, whose inputs are the reference's. A NaN or Inf
// fails any bound.
//
// C in the inputs' 16-bit type (ktune::gemm_ex with GemmOutput bf16 / fp16): the FP32 result is
// rounded once more, to nearest even, at the store. Each element then moves by at most half an
// ulp of the output format at |C|, i.e. |dC| <= u_out |C| with u_out = 2^-8 (bf16) or 2^-11
// (fp16), the inputs' unit roundoffs; summed in the Frobenius norm, sqrt(sum (u_out C)^2) <=
// u_out ||C||_F: a worst case, not a statistical estimate, so the output term adds u_out itself
// (no margin needed) to the bound of the computation. It holds while |C| is in the format's
// normal range (fp16 subnormals below 2^-14 round with a fixed absolute error of 2^-25, which the
// FP32 term's 1e-6 covers for data of |C| ~ 1; overflow past 65504 gives Inf and fails). The
// reference of a beta != 0 run must read the old C as the device holds it (rounded to the output
// type), as it reads the inputs.
#include <algorithm>
#include <cmath>

#include "kernels/common/gemm_shape.hpp"

namespace ktune::kernels::gemm {

double input_unit_roundoff(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return 0.0;
    case Precision::tf32:  // truncation (wgmmatf32) covers round-to-nearest (mma)
      return std::ldexp(1.0, -10);
    case Precision::fp16:
      return std::ldexp(1.0, -11);
    case Precision::bf16:
      return std::ldexp(1.0, -8);
  }
  return 0.0;
}

double error_bound(int64_t k) {
  constexpr double kEpsFloat = 5.96e-8;  // 2^-24
  return 16.0 * kEpsFloat * std::sqrt(double(std::max<int64_t>(k, 1))) + 1e-6;
}

double error_bound(int64_t k, Precision precision) {
  return error_bound(k) + 4.0 * input_unit_roundoff(precision);
}

double error_bound_16bit_output(int64_t k, Precision precision) {
  return error_bound(k, precision) + input_unit_roundoff(precision);
}

}  // namespace ktune::kernels::gemm
