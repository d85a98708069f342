#pragma once
// The conv2d problem features and the derived features the ML side learns on, in the order the
// family and the selectors written by `ktune codegen` use them. Self-contained C++17 (no ktune
// dependencies): the family (kernels/conv2d/conv2d_family.cpp) and the deployed libraries
// (kernels/conv2d/deploy/) compute them with this one function, so a selector sees the same
// numbers at training and at deployment.
#include <array>
#include <cmath>
#include <cstdint>

namespace ktune::kernels::conv2d {

inline constexpr int kProblemFeatures = 9;
inline constexpr int kDerivedFeatures = 14;
inline constexpr std::array<const char*, kProblemFeatures> kProblemFeatureNames = {
    "n", "h", "w", "c", "k", "r", "s", "stride", "pad"};
inline constexpr std::array<const char*, kDerivedFeatures> kDerivedFeatureNames = {
    "p",         "q",           "gemm_m",      "gemm_n",      "gemm_k",     "flops",  "bytes",
    "intensity", "log2_gemm_m", "log2_gemm_n", "log2_gemm_k", "log2_flops", "is_1x1", "winograd"};

// Problem features then derived ones, for a valid problem (see conv2d_family.hpp):
// p, q output size; the implicit GEMM gemm_m = n·p·q, gemm_n = k, gemm_k = c·r·s; flops =
// 2·gemm_m·gemm_n·gemm_k; bytes = 4·(input + filter + output elements); intensity = flops /
// bytes; log2 of the GEMM sizes and flops; is_1x1; winograd (3×3 stride 1).
inline std::array<double, kProblemFeatures + kDerivedFeatures> feature_values(
    int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride,
    int64_t pad) {
  const double p = double((h + 2 * pad - r) / stride + 1),
               q = double((w + 2 * pad - s) / stride + 1);
  const double gm = double(n) * p * q, gn = double(k), gk = double(c) * double(r) * double(s);
  const double flops = 2.0 * gm * gn * gk;
  const double bytes = 4.0 * (double(n) * double(h) * double(w) * double(c) +
                              double(k) * double(r) * double(s) * double(c) + gm * gn);
  return {double(n),
          double(h),
          double(w),
          double(c),
          double(k),
          double(r),
          double(s),
          double(stride),
          double(pad),
          p,
          q,
          gm,
          gn,
          gk,
          flops,
          bytes,
          flops / bytes,
          std::log2(gm),
          std::log2(gn),
          std::log2(gk),
          std::log2(flops),
          r == 1 && s == 1 ? 1.0 : 0.0,
          r == 3 && s == 3 && stride == 1 ? 1.0 : 0.0};
}

}  // namespace ktune::kernels::conv2d
