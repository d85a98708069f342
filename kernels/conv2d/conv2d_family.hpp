#pragma once
// The 2D convolution family: FP32 forward convolution (cross-correlation, as in DNN libraries),
// dilation 1, groups 1, symmetric zero padding.
//
// Layouts (all dense, no padding between elements):
//   input  NHWC  [n][h][w][c]
//   filter KRSC  [k][r][s][c]   (oneDNN's "ohwi"; one output channel's r×s×c patch is contiguous,
//                                in the same order as an NHWC input patch, so im2col rows and
//                                filter rows line up)
//   output NHWC  [n][p][q][k]   with p = (h + 2·pad − r) / stride + 1, q likewise with w, s.
//   out[n][p][q][k] = Σ_{r,s,c} in[n][p·stride − pad + r][q·stride − pad + s][c] · f[k][r][s][c]
//
// Problem features, in order: n, h, w, c, k, r, s, stride, pad.
//
// Space: the union of kinds (kernels/conv2d/conv2d_kinds.hpp). The CPU kinds come first, then
// the CUDA kinds; config ids are the kinds' offsets plus mixed-radix indices, so the order of
// the kinds is fixed forever (append only). Kinds that do not apply to a problem (Winograd on a
// 1×1 layer) refuse it at run time: status `refused`, never an error.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::conv2d {

// Validates every feature; throws Error "conv2d problem '<key>': <what>" (one line).
Shape shape_of(const Problem& p);
Problem problem_of(const Shape& s, std::vector<std::string> tags = {});

// Relative Frobenius-norm error allowed against the float64 reference. Direct, im2col and 1×1
// kernels sum c·r·s products in FP32: the GEMM bound 16·eps·sqrt(c·r·s) + 1e-6. Winograd
// F(m×m, 3×3) (winograd_m = 2 or 4; 0 for the other kernels) loses precision in its transforms,
// whose constants grow with the tile: the bound is multiplied by 8 for F(2×2,3×3) and by 64
// for F(4×4,3×3) (measured errors stay well below, see tests/core/test_conv2d_cpu.cpp).
double error_bound(const Shape& s, int winograd_m = 0);

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

 private:
  Space space_;
};

}  // namespace ktune::kernels::conv2d
