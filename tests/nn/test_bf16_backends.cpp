// The bf16 CPU backends (`ktune_bf16`, `onednn_bf16`, `auto_bf16` over both): each conv / fc layer
// against the float64 reference under the bf16 error bound (nn/cpu/conv_bf16_plan.hpp derives it),
// a planted error the check must catch, the fused residual add, the refusal on CPUs without
// AVX512_BF16, and whole networks against the FP32 `onednn` backend (logits and top-5).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <set>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/bf16_backends.hpp"
#include "nn/cpu/reference.hpp"
#include "tests/nn/nn_test_util.hpp"

namespace ktune::nn {
namespace {

using testing::random_floats;

// The bound of conv_bf16_plan.hpp: per output, (2u + u²) + (K/2 + 4)·u32/(1 − (K/2 + 4)·u32)
// of Σ|x||w| (u = 2^-8 for each operand's rounding to bf16, u32 = 2^-24 for the FP32 sums,
// K = c·r·s), plus 2·u32 of |bias| + |out| for the epilogue's additions.
double bf16_factor(int64_t k) {
  const double u = std::ldexp(1.0, -8), u32 = std::ldexp(1.0, -24), n = double(k) / 2 + 4;
  return 2 * u + u * u + n * u32 / (1 - n * u32);
}

std::vector<std::string> bf16_backends() {
  register_cpu_backends();
  std::vector<std::string> names;
  for (const auto& [name, summary] : backend_list())
    if (name == "ktune_bf16" || name == "onednn_bf16" || name == "auto_bf16") names.push_back(name);
  return names;
}

// A layer, its float64 reference and its bound, per output.
struct Case {
  ConvDesc d;
  std::vector<float> in, filter, bias, residual, want, bound;

  explicit Case(const ConvDesc& desc, bool with_residual = false) : d(desc) {
    in = random_floats(size_t(d.n * d.h * d.w * d.c), 1);
    filter = random_floats(size_t(d.k * d.r * d.s * d.c), 2);
    bias = random_floats(size_t(d.k), 3);
    const size_t out = size_t(d.n * d.p() * d.q() * d.k);
    if (with_residual) residual = random_floats(out, 4);
    ConvDesc linear = d;
    linear.relu = false;
    want.resize(out);
    cpu::reference_conv2d(linear, in.data(), filter.data(), bias.data(), want.data());
    // Σ|x||w| per output: the reference on absolute values, without bias.
    std::vector<float> abs_in(in), abs_filter(filter), zero(bias.size(), 0.f), sums(out);
    for (float& v : abs_in) v = std::abs(v);
    for (float& v : abs_filter) v = std::abs(v);
    cpu::reference_conv2d(linear, abs_in.data(), abs_filter.data(), zero.data(), sums.data());
    const double f = bf16_factor(d.c * d.r * d.s), u32 = std::ldexp(1.0, -24);
    bound.resize(out);
    for (size_t i = 0; i < out; ++i) {
      double v = want[i] + (with_residual ? residual[i] : 0.f);
      const double b = bias[i % size_t(d.k)], r = with_residual ? residual[i] : 0.f;
      // The float reference of Σ|x||w| is itself rounded once: 2^-23 of slack.
      bound[i] = float(f * sums[i] * (1 + std::ldexp(1.0, -22)) +
                       2 * u32 * (std::abs(b) + std::abs(r) + std::abs(v)));
      if (d.relu) v = std::max(v, 0.0);
      want[i] = float(v);
    }
  }

  // The number of outputs off by more than their bound (ReLU is 1-Lipschitz: the bound holds).
  size_t violations(const std::vector<float>& got) const {
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!(std::abs(double(got[i]) - double(want[i])) <= bound[i])) ++bad;
    return bad;
  }

  std::vector<float> run(Backend& b) const {
    b.prepare_conv(7, d, filter.data(), bias.data());
    const size_t out = want.size();
    float* x = b.alloc(in.size());
    b.upload(x, in.data(), in.size());
    float* y = b.alloc(out);
    const std::vector<float> nan(out, std::numeric_limits<float>::quiet_NaN());
    b.upload(y, nan.data(), out);
    if (residual.empty()) {
      b.conv2d(7, d, x, y);
    } else {
      float* r = b.alloc(out);
      b.upload(r, residual.data(), out);
      if (!b.conv2d_add(7, d, x, r, y, d.relu)) {  // unfused: the engine's conv then add
        ConvDesc linear = d;
        linear.relu = false;
        b.prepare_conv(8, linear, filter.data(), bias.data());
        b.conv2d(8, linear, x, y);
        b.add(y, r, y, out, d.relu);
      }
    }
    b.synchronize();
    std::vector<float> got(out);
    b.download(got.data(), y, out);
    return got;
  }
};

// The networks' layer kinds in small: stems over 3 channels (odd c·r·s), 7×7 stride 2, 3×3
// (c a multiple of 32: the vector conversion, and not), 1×1 stride 1 and 2, channels not a
// multiple of the 32-channel tile, K longer than one 512 block.
const std::vector<ConvDesc> kShapes = {
    {2, 12, 12, 3, 8, 3, 3, 1, 1, true},   {1, 15, 15, 3, 16, 7, 7, 2, 3, false},
    {2, 8, 8, 16, 24, 3, 3, 1, 1, true},   {2, 8, 8, 64, 32, 1, 1, 2, 0, false},
    {1, 9, 9, 32, 16, 1, 1, 1, 0, true},   {2, 10, 10, 8, 8, 3, 3, 2, 1, true},
    {1, 14, 14, 96, 80, 3, 3, 1, 1, true}, {3, 7, 7, 256, 64, 3, 3, 2, 1, false},
    {2, 6, 6, 1024, 40, 1, 1, 1, 0, true}};

TEST(NnBf16, ConvWithinTheBf16BoundOfFloat64) {
  const auto names = bf16_backends();
  if (!cpu::bf16_missing().empty()) GTEST_SKIP() << cpu::bf16_missing();
  ASSERT_FALSE(names.empty());
  for (const auto& name : names)
    for (const auto& d : kShapes) {
      const Case c(d);
      auto backend = make_backend(name);
      const auto got = c.run(*backend);
      EXPECT_EQ(c.violations(got), 0u) << name << " c=" << d.c << " k=" << d.k << " r=" << d.r
                                       << " stride=" << d.stride << " n=" << d.n;
    }
}

// bf16 really ran: the error exceeds what FP32 inputs would give (the FP32 bound alone) on
// some outputs; and a planted error of one output just over its bound is caught.
TEST(NnBf16, BoundIsTightEnoughToCatchAPlantedError) {
  if (!cpu::bf16_missing().empty()) GTEST_SKIP() << cpu::bf16_missing();
  const Case c(ConvDesc{1, 14, 14, 96, 80, 3, 3, 1, 1, false});
  for (const auto& name : bf16_backends()) {
    auto backend = make_backend(name);
    auto got = c.run(*backend);
    ASSERT_EQ(c.violations(got), 0u) << name;
    double worst_ratio = 0;  // error / bound: bf16 rounding uses a good part of the bound
    for (size_t i = 0; i < got.size(); ++i)
      worst_ratio = std::max(worst_ratio, std::abs(double(got[i]) - c.want[i]) / c.bound[i]);
    EXPECT_GT(worst_ratio, 0.05) << name << ": no bf16 rounding visible";
    got[got.size() / 3] = float(c.want[got.size() / 3] + 1.5 * c.bound[got.size() / 3]);
    EXPECT_EQ(c.violations(got), 1u) << name;
  }
}

TEST(NnBf16, FusedResidualAddWithinTheBound) {
  if (!cpu::bf16_missing().empty()) GTEST_SKIP() << cpu::bf16_missing();
  for (const auto& name : bf16_backends())
    for (const ConvDesc& d : {ConvDesc{2, 7, 7, 64, 256, 1, 1, 1, 0, true},
                              ConvDesc{1, 8, 8, 32, 48, 3, 3, 1, 1, true}}) {
      const Case c(d, true);
      auto backend = make_backend(name);
      EXPECT_EQ(c.violations(c.run(*backend)), 0u) << name << " k=" << d.k;
    }
}

TEST(NnBf16, FcWithinTheBound) {
  if (!cpu::bf16_missing().empty()) GTEST_SKIP() << cpu::bf16_missing();
  // An fc layer is the 1×1 conv of `batch` 1×1 images: the same Case, through prepare_fc / fc.
  for (const auto& name : bf16_backends())
    for (const FcDesc& f : {FcDesc{1, 2048, 100, false}, FcDesc{3, 600, 70, true}}) {
      const Case c(ConvDesc{f.batch, 1, 1, f.in, f.out, 1, 1, 1, 0, f.relu});
      auto b = make_backend(name);
      b->prepare_fc(3, f, c.filter.data(), c.bias.data());
      float* x = b->alloc(c.in.size());
      b->upload(x, c.in.data(), c.in.size());
      float* y = b->alloc(c.want.size());
      const std::vector<float> nan(c.want.size(), std::numeric_limits<float>::quiet_NaN());
      b->upload(y, nan.data(), nan.size());
      b->fc(3, f, x, y);
      b->synchronize();
      std::vector<float> got(c.want.size());
      b->download(got.data(), y, got.size());
      EXPECT_EQ(c.violations(got), 0u) << name << " in=" << f.in;
    }
}

TEST(NnBf16, RefusedExactlyWithoutAvx512Bf16) {
  const auto names = bf16_backends();
  // ktune_bf16; with oneDNN also onednn_bf16 and auto_bf16 (over both, refused with them).
  ASSERT_EQ(names.size(),
            size_t(1 + 2 * (std::find(names.begin(), names.end(), "onednn_bf16") != names.end())));
  const bool cpu_has = __builtin_cpu_supports("avx512bf16");
  EXPECT_EQ(cpu::bf16_missing().empty(), cpu_has) << cpu::bf16_missing();
  for (const auto& name : names) {
    if (cpu_has) {
      EXPECT_NO_THROW(make_backend(name)) << name;
    } else {
      try {
        make_backend(name);
        ADD_FAILURE() << name << " was not refused";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("AVX"), std::string::npos) << e.what();
      }
    }
  }
}

// Whole ResNet-50 at batch 2 (random weights seed 1, input seed 2, as examples/networks'
// benchmark): logits of each bf16 backend against the FP32 `onednn` backend within 2 % of the
// largest |logit| (measured 0.39 % ktune_bf16, 0.40 % before its Winograd layers, 0.42 %
// onednn_bf16: a 5x margin), and the top-5 classes of each image the same set with at most one
// swapped in or out (bf16's 2^-8 rounding over 50 layers may reorder near-ties of random weights).
TEST(NnBf16, ResNet50LogitsAgreeWithFp32Onednn) {
  if (!cpu::bf16_missing().empty()) GTEST_SKIP() << cpu::bf16_missing();
  const auto names = bf16_backends();
  if (std::find(names.begin(), names.end(), "onednn_bf16") == names.end())
    GTEST_SKIP() << "no oneDNN in this build";
  constexpr int batch = 2, classes = 1000;
  const Network net = make_network("resnet50", batch);
  const Weights w = random_weights(net, 1);
  const auto input = random_floats(size_t(batch * 224 * 224 * 3), 2);
  auto logits_of = [&](const std::string& name) {
    auto backend = make_backend(name);
    Engine engine(net, w, *backend);
    engine.set_input(input.data());
    engine.forward();
    std::vector<float> out(size_t(batch * classes), std::numeric_limits<float>::quiet_NaN());
    engine.logits(out.data());
    return out;
  };
  const auto want = logits_of("onednn");
  double scale = 0;
  for (float v : want) scale = std::max(scale, double(std::abs(v)));
  ASSERT_GT(scale, 0.0);
  for (const auto& name : names) {
    const auto got = logits_of(name);
    double diff = 0;
    for (size_t i = 0; i < got.size(); ++i)
      diff = std::max(diff, std::abs(double(got[i]) - double(want[i])));
    EXPECT_LE(diff, 0.02 * scale) << name << ": max |logit diff| / max |logit| = " << diff / scale;
    for (int b = 0; b < batch; ++b) {
      const auto t0 = top_k(want.data() + b * classes, classes, 5);
      const auto t1 = top_k(got.data() + b * classes, classes, 5);
      std::set<int> common(t0.begin(), t0.end());
      size_t shared = 0;
      for (int c : t1) shared += common.count(c);
      EXPECT_GE(shared, 4u) << name << " image " << b;
      std::cout << name << " image " << b << ": top-5 shared " << shared << ", top-1 "
                << (t0[0] == t1[0] ? "same" : "differs") << ", max |diff| / max |logit| "
                << diff / scale << "\n";
    }
  }
}

}  // namespace
}  // namespace ktune::nn
