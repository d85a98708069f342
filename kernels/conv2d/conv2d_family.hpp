#pragma once
// The 2D convolution family: forward convolution in FP32, bf16 or fp16 (cross-correlation, as in
// DNN libraries), dilation 1, groups 1, symmetric zero padding.
//
// Layouts (all dense, no padding between elements):
//   input  NHWC  [n][h][w][c]
//   filter KRSC  [k][r][s][c]   (oneDNN's "ohwi"; one output channel's r×s×c patch is contiguous,
//                                in the same order as an NHWC input patch, so im2col rows and
//                                filter rows line up)
//   output NHWC  [n][p][q][k]   with p = (h + 2·pad − r) / stride + 1, q likewise with w, s.
//   out[n][p][q][k] = Σ_{r,s,c} in[n][p·stride − pad + r][q·stride − pad + s][c] · f[k][r][s][c]
//
// Problem features, in order: n, h, w, c, k, r, s, stride, pad; then optionally `precision`
// (gemm::Precision codes: 0 fp32, 1 tf32, 2 bf16, 3 fp16; absent means fp32, so FP32 problems keep
// their keys and data). tf32: FP32 input and filter, TF32 tensor-core math (each operand rounded to
// TF32 by the kernel), FP32 accumulation and output. bf16 / fp16: input and filter in that 16-bit
// format, FP32 accumulation and FP32 output. Workload variants "vgg16-conv@bf16" give a
// workload's problems in a precision.
//
// Space: the union of kinds (kernels/conv2d/conv2d_kinds.hpp). The CPU kinds come first, then
// the CUDA kinds; config ids are the kinds' offsets plus mixed-radix indices, so the order of
// the kinds is fixed forever (append only). Kinds that do not apply to a problem (Winograd on a
// 1×1 layer), or not to its precision (the FP32 kinds to tf32 / bf16 / fp16 problems, the
// tensor-core cuda_igemm_mma and cuda_igemm_wgmma to FP32 ones), refuse it at
// run time: status `refused`, never an error.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::conv2d {

// Validates every feature; throws Error "conv2d problem '<key>': <what>" (one line).
Shape shape_of(const Problem& p);
Problem problem_of(const Shape& s, std::vector<std::string> tags = {});
// "fp32" -> Precision::fp32, "tf32", "bf16", "fp16"; throws Error naming the text for anything
// else.
gemm::Precision parse_precision(const std::string& text);
// The problem in precision p (the feature added, replaced or, for fp32, dropped).
Problem with_precision(const Problem& problem, gemm::Precision p);

// Relative Frobenius-norm error allowed against the float64 reference of the FP32 data. Direct,
// im2col and 1×1 kernels sum c·r·s products in FP32: the GEMM bound 16·eps·sqrt(c·r·s) + 1e-6.
// A bf16 / fp16 problem's kernel multiplies the input and filter rounded once to 16 bits (unit
// roundoff u = 2^-8 bf16, 2^-11 fp16) and accumulates the c·r·s products in FP32: the GEMM's
// 16-bit bound gemm::error_bound(c·r·s, precision) = the FP32 term + 4u (derivation in
// kernels/common/gemm_error_bound.cpp: each product carries a relative rounding error of at most
// 2u, independent of the data's signs, so the relative error of the sum stays near u whatever
// c·r·s; an implicit-GEMM convolution is that GEMM with K = c·r·s, zero padding adding exact
// zeros). A tf32 problem's kernel reads the FP32 input and filter as TF32 itself: the GEMM's tf32
// bound (u = 2^-10, which covers the wgmma kind's truncation as well as the mma kind's rounding
// to nearest).
// Tested with bf16 data judged by the fp16 bound, which must fail
// (tests/core/test_conv2d_family.cpp). Winograd
// F(m×m, 3×3) (winograd_m = 2 or 4; 0 for the other kernels) loses precision in its transforms,
// whose constants grow with the tile: the bound is multiplied by 8 for F(2×2,3×3) and by 64
// for F(4×4,3×3) (measured errors stay well below, see tests/core/test_conv2d_cpu.cpp).
double error_bound(const Shape& s, int winograd_m = 0);
// The same computation with its output stored in bf16 (ktune::conv2d_ex's Conv2dOutput::bf16, a
// cuDNN bf16 output tensor): each FP32 result ŷ is rounded once to nearest even, which moves it by
// at most half an ulp of bf16 at |ŷ|, at most u·|ŷ| with u = 2^-8; norm-wise
// ||fl(ŷ) − ŷ|| ≤ u·||ŷ|| ≤ u·(1 + e)·||ref|| where e = error_bound(s, winograd_m) bounds
// ||ŷ − ref|| / ||ref||, so the stored output's relative error is at most e + u·(1 + e).
// Tested: the reference rounded to bf16 meets the u term, rounded to 4 mantissa bits it fails
// (tests/core/test_conv2d_family.cpp); GPU: tests/gpu/test_tuned_conv2d_ex_cuda.cpp.
double error_bound_bf16_output(const Shape& s, int winograd_m = 0);
// The same with the output stored in the problem's own 16-bit type (a cuDNN bf16 / fp16 output
// tensor): e + u·(1 + e) with the type's u, 2^-8 for bf16 (error_bound_bf16_output) and 2^-11 for
// fp16 (an fp16 output's range is not checked: the caller's data keep far below 65504).
// Tested: the reference rounded to fp16's 10 mantissa bits meets the fp16 term, to bf16's 7 it
// fails (tests/core/test_conv2d_family.cpp).
double error_bound_output16(const Shape& s, int winograd_m = 0);

class Conv2dFamily final : public Family {
 public:
  Conv2dFamily();
  std::string name() const override { return "conv2d"; }
  const Space& space() const override { return space_; }
  std::vector<std::string> feature_names() const override;
  // p, q, gemm_m (n·p·q), gemm_n (k), gemm_k (c·r·s), flops, bytes, intensity (flops/bytes),
  // log2 of gemm_m, gemm_n, gemm_k and flops, is_1x1, winograd (3×3 stride 1).
  std::vector<std::string> derived_feature_names() const override;
  std::vector<double> derived_features(const Problem& p) const override;
  double flops(const Problem& p) const override { return shape_of(p).flops(); }
  void validate(const Problem& p) const override { shape_of(p); }
  // The built-in workloads of conv2d_workloads.hpp (conv2d_register.cpp).
  std::vector<std::string> builtin_workloads() const override;
  Workload builtin_workload(const std::string& name) const override;
  std::vector<Problem> workload_variant(std::vector<Problem> problems,  // "@bf16": a precision
                                        const std::string& variant) const override;

 private:
  Space space_;
};

}  // namespace ktune::kernels::conv2d
