#pragma once
// A bf16 3×3 stride-1 convolution of the `ktune_bf16` backend through Winograd F(4×4, 3×3) (F(2×2)
// where a call has fewer than 12 F(4×4) tiles) computed in FP32 on bf16 operands: the filter
// rounded to bf16 once, at construction, then transformed in float64 (WinogradPlan's U); the
// FP32 input rounded to bf16 as the input transform loads it (WinogradPlan's bf16_input); the
// transforms, the α² GEMMs, the bias / residual / ReLU epilogue and the output in FP32. So the
// layer has the bf16 contract of Bf16ConvPlan (bf16 weights and activations, FP32 accumulation,
// FP32 output) with a quarter of its multiplies, in FP32 FMAs (half of vdpbf16ps's rate).
//
// Error bound of one output y (tests/nn/test_winograd_bf16_plan.cpp checks it against float64):
// with x̂, ŵ the bf16 roundings (unit roundoff u = 2^-8), |x̂ŵ − xw| <= (2u + u²)|x||w|, so the
// exact convolution of x̂, ŵ is within (2u + u²)·Σ|x||w| of the exact one. The FP32 Winograd of
// x̂, ŵ (Y = A^T [Σ_c U_c ⊙ V_c] A, U = G ŵ G^T rounded once from float64, V = B^T d̂ B) is,
// to first order, within γ_n·E of the exact convolution of x̂, ŵ, componentwise, where
//   E = |A^T| [Σ_c (|G||ŵ_c||G^T|) ⊙ (|B^T||d̂_c||B|)] |A|
// (each computed value carries at most n roundings of u32 = 2^-24 relative to the sum of the
// absolute values of its terms: 4α in the input transform (a multiply and an add per term, two
// passes), 3 for U (the tables' 1/6 in FP32, twice, and U's own rounding), 1 for the product, c
// in the GEMM's sum over channels, 4α in the output transform) and γ_n = n·u32 / (1 − n·u32),
// n = c + 8α + 4; the epilogue adds 2·u32 of |y| (bias, residual). Total:
//   |y − exact| <= (2u + u²)·Σ|x||w| + γ_n·E + 2·u32·|y|.
// E exceeds Σ|x̂||ŵ| by the transforms' constants (entries up to 8 in A, 5 in B), but γ_n is
// small (c = 512: 3.4e-5, against 2u ≈ 7.8e-3 for the bf16 term), so bf16's rounding dominates
// the bound on the networks' layers.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/common/cpu/conv_cpu_plan.hpp"
#include "kernels/common/cpu/conv_cpu_winograd.hpp"
#include "nn/cpu/conv_bf16_plan.hpp"

namespace ktune::nn::cpu {

class Bf16WinogradPlan {
 public:
  using Shape = kernels::cpu_conv::Shape;
  using Epilogue = kernels::cpu_conv::Epilogue;

  // Whether this plan runs s: 3×3 stride 1 (pad <= 2) over at least 16 input channels.
  static bool applies(const Shape& s) {
    return kernels::cpu_conv::WinogradPlan::applies(s) &&
           s.c >= kernels::cpu_conv::kWinogradMinChannels;
  }

  // filter: KRSC FP32, read only during construction. threads: the pool's thread count.
  // The blocking of the `ktune` backend's FP32 Winograd layers (nn/cpu/ktune_backend.cpp): fused
  // blocks of 12 tiles where a call has 196+ F(4×4) tiles and k < 512, else the phases-shared
  // blocks of PlanBlocking's defaults.
  Bf16WinogradPlan(const Shape& s, const float* filter, int threads) : s_(s) {
    const kernels::cpu_conv::PlanBlocking defaults;
    const auto call_tiles = [&](int64_t m) {
      return s.n * ((s.p() + m - 1) / m) * ((s.q() + m - 1) / m);
    };
    const int m = call_tiles(4) >= defaults.winograd4_min_call_tiles ? 4 : 2;
    const int64_t a = m + 2;
    const bool fused = m == 4 && call_tiles(4) >= 196 && s.k < 512;
    const int64_t tiles = fused ? 12
                                : std::max(defaults.winograd_floats / (a * a * (s.c + s.k)),
                                           defaults.winograd_min_tiles);
    std::vector<float> rounded(filter, filter + s.k * s.gemm_k());
    for (float& v : rounded) v = round_to_bf16(v);
    plan_ = std::make_unique<kernels::cpu_conv::WinogradPlan>(s, rounded.data(), m, threads, tiles,
                                                              fused, /*bf16_input=*/true);
  }

  const Shape& shape() const { return s_; }
  int m() const { return plan_->m(); }
  bool fused() const { return plan_->fused(); }

  // out = epilogue(conv(bf16(in), bf16(filter))); in, out (and e.residual) NHWC FP32.
  void run(const float* in, float* out, const Epilogue& e) const { plan_->run(in, out, e); }

  // x to the nearest bf16 value (ties to even), as FP32; a NaN stays a NaN: the bf16 GEMM
  // plan's rounding (bf16_plan_detail::to_bf16), so both paths of `ktune_bf16` round alike.
  static float round_to_bf16(float x) {
    const uint32_t bits = uint32_t(bf16_plan_detail::to_bf16(x)) << 16;
    std::memcpy(&x, &bits, sizeof bits);
    return x;
  }

 private:
  Shape s_;
  std::unique_ptr<kernels::cpu_conv::WinogradPlan> plan_;  // run is const here, not there
};

}  // namespace ktune::nn::cpu
