// The `ktune_bf16` backend's Winograd layers (nn/cpu/winograd_bf16_plan.hpp: FP32 Winograd on
// bf16-rounded operands) against float64, under the bound derived there, per output:
//   tight: |y − exact(x̂, ŵ)| <= γ_n·E + 2·u32·|y|     (x̂, ŵ rounded to bf16 by this test)
//   full:  |y − exact(x, w)|  <= (2u + u²)·Σ|x||w| + γ_n·E + 2·u32·|y|
// with E = |A^T| [Σ_c (|G||ŵ_c||G^T|) ⊙ (|B^T||x̂_c||B|)] |A| per tile, computed here in float64.
// The tight check fails unless both operands are rounded to bf16 exactly (to nearest even); the
// outputs are poisoned (NaN) before each run; a planted error must be caught; and the
// `ktune_bf16` backend runs the same plan on a layer its rule sends to Winograd.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <vector>

#include "kernels/common/cpu/winograd_tables.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/bf16_backends.hpp"
#include "nn/cpu/winograd_bf16_plan.hpp"
#include "tests/nn/nn_test_util.hpp"

namespace ktune::nn {
namespace {

using cpu::Bf16WinogradPlan;
using Shape = Bf16WinogradPlan::Shape;
using testing::random_floats;

const double kU = std::ldexp(1.0, -8), kU32 = std::ldexp(1.0, -24);

std::vector<float> rounded(std::vector<float> v) {
  for (float& x : v) x = Bf16WinogradPlan::round_to_bf16(x);
  return v;
}

// Float64 NHWC convolution of in (KRSC filter), no bias; with absolute values where `abs`.
std::vector<double> conv64(const Shape& s, const std::vector<float>& in,
                           const std::vector<float>& filter, bool abs) {
  std::vector<double> out(size_t(s.n * s.p() * s.q() * s.k), 0.0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t y = 0; y < s.p(); ++y)
      for (int64_t x = 0; x < s.q(); ++x)
        for (int64_t k = 0; k < s.k; ++k) {
          double acc = 0;
          for (int64_t r = 0; r < 3; ++r)
            for (int64_t t = 0; t < 3; ++t) {
              const int64_t h = y + r - s.pad, w = x + t - s.pad;
              if (h < 0 || h >= s.h || w < 0 || w >= s.w) continue;
              const float* px = &in[size_t(((n * s.h + h) * s.w + w) * s.c)];
              const float* f = &filter[size_t(((k * 3 + r) * 3 + t) * s.c)];
              for (int64_t c = 0; c < s.c; ++c)
                acc += abs ? std::abs(double(px[c]) * f[c]) : double(px[c]) * f[c];
            }
          out[size_t(((n * s.p() + y) * s.q() + x) * s.k + k)] = acc;
        }
  return out;
}

// E of the header, per output, for F(m×m) (the plan's m) on the rounded operands.
template <int M>
std::vector<double> winograd_magnitude(const Shape& s, const std::vector<float>& in,
                                       const std::vector<float>& filter) {
  constexpr int A = M + 2;
  const auto& BT = kernels::winograd::Tables<M>::BT;
  const auto& G = kernels::winograd::Tables<M>::G;
  const auto& AT = kernels::winograd::Tables<M>::AT;
  // |G||w_kc||G^T| per (k, c).
  std::vector<double> u(size_t(s.k * s.c * A * A));
  for (int64_t k = 0; k < s.k; ++k)
    for (int64_t c = 0; c < s.c; ++c)
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < A; ++j) {
          double acc = 0;
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
              acc += std::abs(double(G[i][a])) *
                     std::abs(double(filter[size_t(((k * 3 + a) * 3 + b) * s.c + c)])) *
                     std::abs(double(G[j][b]));
          u[size_t(((k * s.c + c) * A + i) * A + j)] = acc;
        }
  std::vector<double> e(size_t(s.n * s.p() * s.q() * s.k), 0.0), v(size_t(s.c * A * A));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t ty = 0; ty < s.p(); ty += M)
      for (int64_t tx = 0; tx < s.q(); tx += M) {
        for (int64_t c = 0; c < s.c; ++c)  // |B^T||d_c||B|
          for (int i = 0; i < A; ++i)
            for (int j = 0; j < A; ++j) {
              double acc = 0;
              for (int a = 0; a < A; ++a)
                for (int b = 0; b < A; ++b) {
                  const int64_t h = ty + a - s.pad, w = tx + b - s.pad;
                  if (h < 0 || h >= s.h || w < 0 || w >= s.w) continue;
                  acc += std::abs(double(BT[i][a])) *
                         std::abs(double(in[size_t(((n * s.h + h) * s.w + w) * s.c + c)])) *
                         std::abs(double(BT[j][b]));
                }
              v[size_t((c * A + i) * A + j)] = acc;
            }
        for (int64_t k = 0; k < s.k; ++k) {
          double m[A][A] = {};
          for (int64_t c = 0; c < s.c; ++c)
            for (int i = 0; i < A; ++i)
              for (int j = 0; j < A; ++j)
                m[i][j] +=
                    u[size_t(((k * s.c + c) * A + i) * A + j)] * v[size_t((c * A + i) * A + j)];
          for (int r = 0; r < M && ty + r < s.p(); ++r)
            for (int t = 0; t < M && tx + t < s.q(); ++t) {
              double acc = 0;
              for (int i = 0; i < A; ++i)
                for (int j = 0; j < A; ++j)
                  acc += std::abs(double(AT[r][i])) * m[i][j] * std::abs(double(AT[t][j]));
              e[size_t(((n * s.p() + ty + r) * s.q() + tx + t) * s.k + k)] = acc;
            }
        }
      }
  return e;
}

// A layer, the plan's output and both references with their bounds.
struct Case {
  Shape s;
  bool relu, with_residual;
  std::vector<float> in, filter, bias, residual;
  std::vector<double> exact, exact_rounded, bound_full, bound_tight;

  Case(const Shape& shape, bool relu_, bool residual_, unsigned seed = 1)
      : s(shape), relu(relu_), with_residual(residual_) {
    in = random_floats(size_t(s.n * s.h * s.w * s.c), seed);
    filter = random_floats(size_t(s.k * 9 * s.c), seed + 1);
    bias = random_floats(size_t(s.k), seed + 2);
    const size_t out = size_t(s.n * s.p() * s.q() * s.k);
    if (with_residual) residual = random_floats(out, seed + 3);
  }

  // The references and bounds for the operands as they are now (tests may pre-round them).
  void reference(int m) {
    const auto in16 = rounded(in), filter16 = rounded(filter);
    exact = conv64(s, in, filter, false);
    exact_rounded = conv64(s, in16, filter16, false);
    const auto sums = conv64(s, in, filter, true);
    const auto e = m == 4 ? winograd_magnitude<4>(s, in16, filter16)
                          : winograd_magnitude<2>(s, in16, filter16);
    // n: 4α in each transform (a multiply and an add per term, two passes), 3 for U (the
    // tables' 1/6 in float, twice, and U's rounding), 1 for the product, c for the sum.
    const double n = double(s.c) + 8.0 * (m + 2) + 4, gamma = n * kU32 / (1 - n * kU32);
    bound_full.resize(exact.size());
    bound_tight.resize(exact.size());
    for (size_t i = 0; i < exact.size(); ++i) {
      const double extra = bias[i % size_t(s.k)] + (with_residual ? residual[i] : 0.f);
      exact[i] += extra;
      exact_rounded[i] += extra;
      // 2·u32 of |y| for the epilogue (y within 1 % of the exact value), 2^-40 of slack for
      // the float64 references' own roundings.
      const double epilogue = 2 * kU32 * 1.01 * (std::abs(exact[i]) + std::abs(extra)) +
                              std::ldexp(1.0, -40) * (sums[i] + std::abs(extra));
      bound_tight[i] = gamma * e[i] + epilogue;
      bound_full[i] = (2 * kU + kU * kU) * sums[i] + bound_tight[i];
      if (relu)
        exact[i] = std::max(exact[i], 0.0), exact_rounded[i] = std::max(exact_rounded[i], 0.0);
    }
  }

  std::vector<float> run(const Bf16WinogradPlan& plan) const {
    std::vector<float> out(size_t(s.n * s.p() * s.q() * s.k),
                           std::numeric_limits<float>::quiet_NaN());
    plan.run(in.data(), out.data(), {bias.data(), with_residual ? residual.data() : nullptr, relu});
    return out;
  }

  // Outputs off by more than their bound (ReLU is 1-Lipschitz: the bounds hold after it); the
  // worst error / bound in *worst.
  static size_t violations(const std::vector<float>& got, const std::vector<double>& want,
                           const std::vector<double>& bound, double* worst = nullptr) {
    size_t bad = 0;
    double w = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double err = std::abs(double(got[i]) - want[i]);
      if (!(err <= bound[i])) ++bad;
      w = std::max(w, err / bound[i]);
    }
    if (worst) *worst = w;
    return bad;
  }
};

// F(4×4) fused (196+ tiles, k < 512) and phases-shared, F(2×2) (fewer than 12 F(4×4) tiles),
// channels off the 16-lane vectors and the 32-channel tile, partial border tiles, pads 0-2.
struct Layer {
  Shape s;
  bool relu, residual;
  int m;
  bool fused;
};
const std::vector<Layer> kLayers = {
    {{1, 56, 56, 32, 48, 3, 3, 1, 1}, true, false, 4, true},
    {{2, 13, 13, 40, 40, 3, 3, 1, 1}, true, true, 4, false},
    {{1, 7, 7, 16, 24, 3, 3, 1, 1}, false, true, 2, false},
    {{2, 14, 10, 17, 33, 3, 3, 1, 0}, false, false, 4, false},
    {{2, 9, 9, 64, 20, 3, 3, 1, 2}, true, false, 4, false},
};

TEST(NnBf16Winograd, WithinTheDerivedBoundsOfFloat64) {
  for (const Layer& l : kLayers) {
    Case c(l.s, l.relu, l.residual);
    const Bf16WinogradPlan plan(l.s, c.filter.data(), 2);
    ASSERT_EQ(plan.m(), l.m) << l.s.h << "x" << l.s.w;
    ASSERT_EQ(plan.fused(), l.fused) << l.s.h << "x" << l.s.w;
    c.reference(plan.m());
    const auto got = c.run(plan);
    double tight = 0, full = 0;
    EXPECT_EQ(Case::violations(got, c.exact_rounded, c.bound_tight, &tight), 0u)
        << "c=" << l.s.c << " k=" << l.s.k << " h=" << l.s.h;
    EXPECT_EQ(Case::violations(got, c.exact, c.bound_full, &full), 0u)
        << "c=" << l.s.c << " k=" << l.s.k << " h=" << l.s.h;
    std::cout << "c=" << l.s.c << " k=" << l.s.k << " worst error / bound: tight " << tight
              << ", full " << full << "\n";
    // bf16 rounding is visible against the unrounded operands (FP32 inputs would leave ~1e-6).
    EXPECT_GT(full, 0.05) << "c=" << l.s.c;
  }
}

// Each operand on its own is rounded: with the other one bf16 already, the error against the
// exact convolution is still bf16-sized, and still within the tight bound of exact(x̂, ŵ).
TEST(NnBf16Winograd, InputAndFilterEachRoundedToBf16) {
  const Shape s{1, 16, 16, 32, 32, 3, 3, 1, 1};
  for (const bool round_filter_first : {true, false}) {
    Case c(s, false, false, 7);
    if (round_filter_first)
      c.filter = rounded(c.filter);  // so only the input's rounding remains
    else
      c.in = rounded(c.in);
    const Bf16WinogradPlan plan(s, c.filter.data(), 2);
    c.reference(plan.m());
    const auto got = c.run(plan);
    double tight = 0, full = 0;
    EXPECT_EQ(Case::violations(got, c.exact_rounded, c.bound_tight, &tight), 0u);
    EXPECT_EQ(Case::violations(got, c.exact, c.bound_full, &full), 0u);
    // The remaining operand's rounding alone: about half of the full bound's bf16 term.
    double err = 0, scale = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      err = std::max(err, std::abs(double(got[i]) - c.exact[i]));
      scale = std::max(scale, std::abs(c.exact[i]));
    }
    EXPECT_GT(err / scale, 1e-4) << (round_filter_first ? "the input" : "the filter")
                                 << " was not rounded to bf16";
  }
}

// The check catches an output off by twice its tight bound, and a NaN left in the output.
TEST(NnBf16Winograd, PlantedErrorsAreCaught) {
  const Shape s{1, 10, 10, 16, 32, 3, 3, 1, 1};
  Case c(s, true, false);
  const Bf16WinogradPlan plan(s, c.filter.data(), 1);
  c.reference(plan.m());
  auto got = c.run(plan);
  ASSERT_EQ(Case::violations(got, c.exact_rounded, c.bound_tight), 0u);
  const size_t i = got.size() / 3;
  got[i] = float(c.exact_rounded[i] + 2 * c.bound_tight[i]);
  EXPECT_EQ(Case::violations(got, c.exact_rounded, c.bound_tight), 1u);
  got[i + 1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Case::violations(got, c.exact_rounded, c.bound_tight), 2u);
}

// The input transform's vector rounding is the scalar one (ties to even, NaN kept, ±inf kept)
// on values around every rounding case.
TEST(NnBf16Winograd, VectorRoundingIsRoundToNearestEven) {
  const uint32_t patterns[] = {0x3f800000u, 0x3f808000u, 0x3f818000u, 0x3f807fffu,
                               0x3f808001u, 0x7f7fffffu, 0x7f800000u, 0xff800000u,
                               0x7f800001u, 0x7fc00000u, 0x00000001u, 0x80008000u,
                               0xbf818000u, 0x00000000u, 0x80000000u, 0x477fe000u};
  kernels::cpu_conv::winograd_detail::Vec v;
  static_assert(sizeof v == sizeof patterns);
  std::memcpy(&v, patterns, sizeof v);
  const auto r = kernels::cpu_conv::winograd_detail::round_to_bf16(v);
  for (int i = 0; i < 16; ++i) {
    float x;
    std::memcpy(&x, &patterns[i], sizeof x);
    const float want = Bf16WinogradPlan::round_to_bf16(x);
    uint32_t got_bits, want_bits;
    const float got = r[i];
    std::memcpy(&got_bits, &got, 4);
    std::memcpy(&want_bits, &want, 4);
    EXPECT_EQ(got_bits, want_bits) << std::hex << patterns[i];
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(want));
    }
  }
  // Ties to even, both ways: 1 + 2^-8 -> 1, 1 + 3·2^-8 -> 1 + 2^-6.
  EXPECT_EQ(Bf16WinogradPlan::round_to_bf16(1.f + std::ldexp(1.f, -8)), 1.f);
  EXPECT_EQ(Bf16WinogradPlan::round_to_bf16(1.f + 3 * std::ldexp(1.f, -8)),
            1.f + std::ldexp(1.f, -6));
  EXPECT_EQ(Bf16WinogradPlan::round_to_bf16(std::numeric_limits<float>::max()),
            std::numeric_limits<float>::infinity());
}

// The backend runs a layer of its Winograd rule (3×3 stride 1, 16+ channels, 32+ F(4×4) tiles, or
// 16+ with c·k >= 2^18) through this plan: the same outputs bit for bit.
TEST(NnBf16Winograd, KtuneBf16RunsItOnTheRulesLayers) {
  if (!cpu::bf16_missing().empty()) GTEST_SKIP() << cpu::bf16_missing();
  register_cpu_backends();
  const ConvDesc d{1, 32, 32, 128, 256, 3, 3, 1, 1, true};
  const Shape s{d.n, d.h, d.w, d.c, d.k, 3, 3, 1, 1};
  Case c(s, true, false);
  auto backend = make_backend("ktune_bf16");
  backend->prepare_conv(3, d, c.filter.data(), c.bias.data());
  const size_t out = size_t(d.n * d.p() * d.q() * d.k);
  float* x = backend->alloc(c.in.size());
  backend->upload(x, c.in.data(), c.in.size());
  float* y = backend->alloc(out);
  const std::vector<float> nan(out, std::numeric_limits<float>::quiet_NaN());
  backend->upload(y, nan.data(), out);
  backend->conv2d(3, d, x, y);
  backend->synchronize();
  std::vector<float> got(out);
  backend->download(got.data(), y, out);
  // The backend's thread count (the blocks, and so the sums, do not depend on it; stated anyway).
  const Bf16WinogradPlan plan(s, c.filter.data(), std::max(omp_get_max_threads(), 1));
  const auto want = c.run(plan);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), out * sizeof(float)), 0);
  EXPECT_EQ(backend->layer_choice(3), "winograd_f4_fp32");  // 64 tiles: the phases-shared plan
  // A layer outside the rule (16 tiles of 256 × 256: ResNet-50 layer3 at batch 1) stays on the
  // bf16 GEMM.
  const ConvDesc small{1, 14, 14, 256, 256, 3, 3, 1, 1, true};
  const auto small_filter = random_floats(size_t(small.k * 9 * small.c), 5);
  const auto small_bias = random_floats(size_t(small.k), 6);
  backend->prepare_conv(4, small, small_filter.data(), small_bias.data());
  EXPECT_EQ(backend->layer_choice(4), "gemm_bf16");
}

}  // namespace
}  // namespace ktune::nn
