// Every registered CPU backend's conv2d / fc against the float64 reference (outputs poisoned
// with NaN first), and the shared pooling / add / softmax against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ktune/nn/registry.hpp"
#include "nn/cpu/reference.hpp"
#include "tests/nn/nn_test_util.hpp"

namespace ktune::nn {
namespace {

using testing::random_floats;

std::vector<std::string> cpu_backends() { return testing::cpu_backend_names(); }

// Uploads host data into a fresh buffer of the backend.
float* device_copy(Backend& b, const std::vector<float>& host) {
  float* p = b.alloc(host.size());
  b.upload(p, host.data(), host.size());
  return p;
}

std::vector<float> run_conv(Backend& b, const ConvDesc& d, const std::vector<float>& in,
                            const std::vector<float>& filter, const std::vector<float>& bias) {
  const size_t out_count = size_t(d.n * d.p() * d.q() * d.k);
  b.prepare_conv(7, d, filter.data(), bias.data());
  float* x = device_copy(b, in);
  float* y = device_copy(b, std::vector<float>(out_count, std::numeric_limits<float>::quiet_NaN()));
  b.conv2d(7, d, x, y);
  b.synchronize();
  std::vector<float> out(out_count);
  b.download(out.data(), y, out_count);
  return out;
}

// Random input, filter and bias of d (seeds 1, 2, 3) and their float64 reference output.
struct ConvCase {
  std::vector<float> in, filter, bias, want;
};
ConvCase conv_case(const ConvDesc& d) {
  ConvCase c{random_floats(size_t(d.n * d.h * d.w * d.c), 1),
             random_floats(size_t(d.k * d.r * d.s * d.c), 2), random_floats(size_t(d.k), 3),
             std::vector<float>(size_t(d.n * d.p() * d.q() * d.k))};
  cpu::reference_conv2d(d, c.in.data(), c.filter.data(), c.bias.data(), c.want.data());
  return c;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, double rel,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0;
  for (float v : want) scale = std::max(scale, double(std::abs(v)));
  ASSERT_GT(scale, 0.0) << what << ": the reference is all zero";
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], rel * scale) << what << " at " << i;
}

TEST(NnBackends, CpuBackendsAreRegistered) {
  const auto names = cpu_backends();
  EXPECT_NE(std::find(names.begin(), names.end(), "reference"), names.end());
  EXPECT_THROW(make_backend("no-such-backend"), std::exception);
}

TEST(NnBackends, ConvMatchesFloat64Reference) {
  // The shapes of the networks in small: 3-channel stem, 7×7 stride 2, 3×3, 1×1 stride 2.
  const std::vector<ConvDesc> shapes = {
      {2, 12, 12, 3, 8, 3, 3, 1, 1, true}, {1, 15, 15, 3, 16, 7, 7, 2, 3, false},
      {2, 8, 8, 16, 24, 3, 3, 1, 1, true}, {2, 8, 8, 16, 32, 1, 1, 2, 0, false},
      {1, 9, 9, 32, 16, 1, 1, 1, 0, true}, {2, 10, 10, 8, 8, 3, 3, 2, 1, true}};
  for (const auto& name : cpu_backends()) {
    for (const auto& d : shapes) {
      const auto [in, filter, bias, want] = conv_case(d);
      auto backend = make_backend(name);
      expect_close(run_conv(*backend, d, in, filter, bias), want, 1e-5,
                   name + " conv c=" + std::to_string(d.c) + " r=" + std::to_string(d.r));
    }
  }
}

TEST(NnBackends, OnednnWinogradRunsOneDnnsWinogradWhereItHasOne) {
  const auto names = cpu_backends();
  if (std::find(names.begin(), names.end(), "onednn_winograd") == names.end())
    GTEST_SKIP() << "no oneDNN in this build";
  // A 3×3 stride-1 layer over 64 channels (oneDNN 2.6: Winograd in its blocked layouts, reordered
  // from and to NHWC in the call) and a 1×1 one (none: convolution_auto, as `onednn`).
  const ConvDesc wino{2, 14, 14, 64, 64, 3, 3, 1, 1, true},
      plain{1, 9, 9, 32, 16, 1, 1, 1, 0, true};
  for (const ConvDesc& d : {wino, plain}) {
    const auto [in, filter, bias, want] = conv_case(d);
    auto backend = make_backend("onednn_winograd");
    // Winograd's transforms lose more precision than a direct sum (conv2d's F(4×4) bound: 64×).
    expect_close(run_conv(*backend, d, in, filter, bias), want, 1e-4,
                 "onednn_winograd r=" + std::to_string(d.r));
    const std::string impl = backend->layer_choice(7);
    EXPECT_EQ(impl.find("wino") != std::string::npos, d.r == 3) << impl;
    auto onednn = make_backend("onednn");
    onednn->prepare_conv(7, d, filter.data(), bias.data());
    EXPECT_EQ(onednn->layer_choice(7).find("wino"), std::string::npos) << onednn->layer_choice(7);
  }
}

TEST(NnBackends, KtuneWinogradOnBothSidesOfTheFusedRuleMatchesFloat64) {
  // nn/cpu/ktune_backend.cpp runs Winograd in fused blocks where a call has 196+ F(4×4) tiles
  // and k < 512: 56×56 (196 tiles) with k = 16 and 32 runs fused, the same map with k = 512 and a
  // 52×52 map (169 tiles) run the phases-shared plan. Winograd's transforms lose more precision
  // than a direct sum (conv2d's F(4×4) bound: 64×), so 1e-4 of the largest output.
  const std::vector<ConvDesc> shapes = {{1, 56, 56, 16, 16, 3, 3, 1, 1, true},
                                        {1, 56, 56, 32, 32, 3, 3, 1, 1, false},
                                        {1, 56, 56, 16, 512, 3, 3, 1, 1, true},
                                        {1, 52, 52, 16, 16, 3, 3, 1, 1, true}};
  const auto names = cpu_backends();  // registers the CPU backends
  ASSERT_NE(std::find(names.begin(), names.end(), "ktune"), names.end());
  for (const auto& d : shapes) {
    const auto [in, filter, bias, want] = conv_case(d);
    auto backend = make_backend("ktune");
    expect_close(
        run_conv(*backend, d, in, filter, bias), want, 1e-4,
        "ktune " + std::to_string(d.h) + "x" + std::to_string(d.w) + " k=" + std::to_string(d.k));
  }
}

TEST(NnBackends, ConvAddMatchesConvThenAddWhereFused) {
  // relu(conv(in) + bias + residual) in one call; `ktune` must fuse, the others may decline.
  const ConvDesc d{2, 9, 9, 19, 70, 1, 1, 2, 0, false};
  const auto in = random_floats(size_t(d.n * d.h * d.w * d.c), 1);
  const auto filter = random_floats(size_t(d.k * d.c), 2);
  const auto bias = random_floats(size_t(d.k), 3);
  const size_t count = size_t(d.n * d.p() * d.q() * d.k);
  const auto residual = random_floats(count, 4);
  std::vector<float> want(count);
  cpu::reference_conv2d(d, in.data(), filter.data(), bias.data(), want.data());
  for (size_t i = 0; i < count; ++i) want[i] = std::max(want[i] + residual[i], 0.0f);
  int fused = 0;
  for (const auto& name : cpu_backends()) {
    auto b = make_backend(name);
    b->prepare_conv(5, d, filter.data(), bias.data());
    float* x = device_copy(*b, in);
    float* r = device_copy(*b, residual);
    float* y = device_copy(*b, std::vector<float>(count, std::nanf("")));
    if (!b->conv2d_add(5, d, x, r, y, true)) {
      EXPECT_NE(name, "ktune");
      continue;
    }
    b->synchronize();
    std::vector<float> got(count);
    b->download(got.data(), y, count);
    expect_close(got, want, 1e-5, name + " conv2d_add");
    ++fused;
  }
  EXPECT_GE(fused, 1);
}

TEST(NnBackends, FcMatchesFloat64Reference) {
  for (const auto& name : cpu_backends()) {
    for (const FcDesc d : {FcDesc{1, 64, 10, false}, FcDesc{3, 200, 37, true}}) {
      const auto x = random_floats(size_t(d.batch * d.in), 4);
      const auto w = random_floats(size_t(d.out * d.in), 5);
      const auto bias = random_floats(size_t(d.out), 6);
      std::vector<float> want(size_t(d.batch * d.out));
      cpu::reference_fc(d, x.data(), w.data(), bias.data(), want.data());
      auto b = make_backend(name);
      b->prepare_fc(3, d, w.data(), bias.data());
      float* dx = device_copy(*b, x);
      float* dy = device_copy(*b, std::vector<float>(want.size(), std::nanf("")));
      b->fc(3, d, dx, dy);
      b->synchronize();
      std::vector<float> got(want.size());
      b->download(got.data(), dy, got.size());
      expect_close(got, want, 1e-5, name + " fc");
    }
  }
}

TEST(NnBackends, PoolAddSoftmaxByHand) {
  register_cpu_backends();
  auto b = make_backend("reference");
  // 1×4×4×1 input 0..15; max 2×2 stride 2 → 5 7 13 15; avg 3×3 stride 2 pad 1 counts padding.
  std::vector<float> in(16);
  for (int i = 0; i < 16; ++i) in[size_t(i)] = float(i);
  float* x = device_copy(*b, in);
  float* y = device_copy(*b, std::vector<float>(4, std::nanf("")));
  b->max_pool({1, 4, 4, 1, 2, 2, 0}, x, y);
  std::vector<float> got(4);
  b->download(got.data(), y, 4);
  EXPECT_EQ(got, (std::vector<float>{5, 7, 13, 15}));
  b->avg_pool({1, 4, 4, 1, 3, 2, 1}, x, y);
  b->download(got.data(), y, 4);
  EXPECT_FLOAT_EQ(got[0], (0 + 1 + 4 + 5) / 9.0f);
  EXPECT_FLOAT_EQ(got[3], (10 + 11 + 14 + 15 + 6 + 7 + 9 + 13 + 5) / 9.0f);
  b->add(x, x, y, 4, false);
  b->download(got.data(), y, 4);
  EXPECT_EQ(got, (std::vector<float>{0, 2, 4, 6}));
  const std::vector<float> neg = {-1, 2, -3, 0};
  float* z = device_copy(*b, neg);
  b->add(z, z, y, 4, true);
  b->download(got.data(), y, 4);
  EXPECT_EQ(got, (std::vector<float>{0, 4, 0, 0}));
  b->softmax(2, 2, x, y);  // rows (0, 1) and (2, 3)
  b->download(got.data(), y, 4);
  const float e = 1.0f / (1.0f + std::exp(1.0f));
  EXPECT_NEAR(got[0], e, 1e-6);
  EXPECT_NEAR(got[1], 1 - e, 1e-6);
  EXPECT_NEAR(got[2], e, 1e-6);
}

}  // namespace
}  // namespace ktune::nn
