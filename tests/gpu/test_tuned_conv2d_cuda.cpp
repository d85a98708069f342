// The CUDA tuned conv2d library (examples/tuned-conv: ktune_tuned_conv2d_cuda) through the public
// API: every shipped config, and the selector's picks, on the tiny workload's odd shapes (strides,
// padding, 1x1, 3x3, c and k off the vector widths) against the float64 host reference, with
// NaN-poisoned output and guard regions around it; ktune::Conv2dPlan likewise; argument errors
// (checked before any CUDA call, so they run without a GPU).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/cuda.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;
constexpr size_t kGuard = 64;
constexpr float kGuardValue = -12345.0f;

// A tiny problem on the device: random input and filter, output poisoned with NaN between guards.
struct DeviceProblem {
  explicit DeviceProblem(const conv::Shape& s)
      : shape(s),
        input(ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 3)),
        filter(ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 4)),
        x(ktune::test::upload(input, "input")),
        w(ktune::test::upload(filter, "filter")) {
    std::vector<float> out(size_t(s.output_elements()) + 2 * kGuard, kGuardValue);
    std::fill(out.begin() + kGuard, out.end() - kGuard, std::numeric_limits<float>::quiet_NaN());
    y = ktune::test::upload(out, "output");
  }
  float* output() const { return y.data() + kGuard; }
  // Relative error against the float64 reference; the guards must be untouched.
  double error() const {
    const std::vector<float> out = ktune::test::download(y);
    for (size_t i = 0; i < kGuard; ++i) {
      EXPECT_EQ(out[i], kGuardValue) << "guard before the output, " << i;
      EXPECT_EQ(out[out.size() - 1 - i], kGuardValue) << "guard after the output, " << i;
    }
    return conv::relative_error(shape, out.data() + kGuard,
                                conv::reference_conv2d(shape, input.data(), filter.data()));
  }
  conv::Shape shape;
  std::vector<float> input, filter;
  ktune::cuda::DeviceBuffer<float> x, w, y;
};

std::string name(const conv::Layer& l) {
  const auto& s = l.shape;
  return l.layer + " (n=" + std::to_string(s.n) + " " + std::to_string(s.h) + "x" +
         std::to_string(s.w) + " c=" + std::to_string(s.c) + " k=" + std::to_string(s.k) + " " +
         std::to_string(s.r) + "x" + std::to_string(s.s) + "/" + std::to_string(s.stride) +
         " pad=" + std::to_string(s.pad) + ")";
}

// The tiny workload, plus small shapes with c a multiple of 4 (vectorized Winograd transforms
// and im2col, tv=4 / vc=4 configs, refuse other c) for 3x3 stride 1, 1x1 and stride 2.
std::vector<conv::Layer> test_layers() {
  auto layers = conv::workload_layers("tiny");
  layers.push_back({"test", "3x3-c8", 1, {1, 9, 11, 8, 12, 3, 3, 1, 1}});
  layers.push_back({"test", "3x3-c16-n2", 1, {2, 14, 6, 16, 5, 3, 3, 1, 1}});
  layers.push_back({"test", "1x1-c16", 1, {2, 7, 5, 16, 20, 1, 1, 1, 0}});
  layers.push_back({"test", "3x3-s2-c8", 1, {1, 10, 9, 8, 8, 3, 3, 2, 1}});
  return layers;
}

TEST(TunedConv2dCuda, EveryShippedConfigMatchesTheReferenceOnEveryShapeItRuns) {
  KTUNE_REQUIRE_GPU();
  const auto& info = ktune::tuned_conv2d_info_cuda();
  ASSERT_GT(info.num_configs, 0);
  EXPECT_STREQ(info.backend, "cuda");
  const auto layers = test_layers();
  ASSERT_FALSE(layers.empty());
  for (int i = 0; i < info.num_configs; ++i) {
    int ran = 0;
    for (const conv::Layer& layer : layers) {
      const conv::Shape& s = layer.shape;
      DeviceProblem p(s);
      const bool applies =
          ktune::tuned_conv2d_run_config_cuda(i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
                                              p.x.data(), p.w.data(), p.output(), nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << info.configs[i] << " on " << name(layer);
      if (!applies) continue;
      ++ran;
      EXPECT_LE(p.error(), conv::error_bound(s, 4)) << info.configs[i] << " on " << name(layer);
    }
    EXPECT_GT(ran, 0) << info.configs[i] << " ran on none of the tiny shapes";
  }
}

TEST(TunedConv2dCuda, TheSelectorsPicksMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  const auto& info = ktune::tuned_conv2d_info_cuda();
  for (const conv::Layer& layer : test_layers()) {
    const conv::Shape& s = layer.shape;
    const int pick =
        ktune::tuned_conv2d_choice_cuda(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad);
    ASSERT_GE(pick, 0);
    ASSERT_LT(pick, info.num_configs);
    DeviceProblem p(s);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    ktune::conv2d(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, p.x.data(), p.w.data(),
                  p.output(), stream);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << name(layer);
    cudaStreamDestroy(stream);
    EXPECT_LE(p.error(), conv::error_bound(s, 4)) << info.configs[pick] << " on " << name(layer);
  }
}

// A plan per shape: picked once (the same pick as ktune::conv2d when it applies), the filter
// prepared once, then run twice on one input (the second run must not depend on the first
// having transformed anything) and once after the caller's filter is overwritten with NaN (the
// plan must use its own copy or transform).
TEST(TunedConv2dCuda, PlansMatchTheReferenceAndKeepTheirOwnFilter) {
  KTUNE_REQUIRE_GPU();
  const auto& info = ktune::tuned_conv2d_info_cuda();
  for (const conv::Layer& layer : test_layers()) {
    const conv::Shape& s = layer.shape;
    DeviceProblem p(s);
    ktune::Conv2dPlan plan(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, p.w.data(), nullptr);
    ASSERT_GE(plan.config(), 0);
    ASSERT_LT(plan.config(), info.num_configs);
    const int pick =
        ktune::tuned_conv2d_choice_cuda(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad);
    if (ktune::tuned_conv2d_run_config_cuda(pick, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride,
                                            s.pad, p.x.data(), p.w.data(), p.output(), nullptr)) {
      EXPECT_EQ(plan.config(), pick) << name(layer);
    }
    for (int round = 0; round < 3; ++round) {
      DeviceProblem fresh(s);  // NaN-poisoned output, same seeded input and filter
      if (round == 2) {
        const std::vector<float> nan(p.filter.size(), std::numeric_limits<float>::quiet_NaN());
        ASSERT_EQ(cudaMemcpy(p.w.data(), nan.data(), nan.size() * 4, cudaMemcpyHostToDevice),
                  cudaSuccess);
      }
      plan.run(fresh.x.data(), fresh.output(), nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name(layer);
      EXPECT_LE(fresh.error(), conv::error_bound(s, 4))
          << info.configs[plan.config()] << " on " << name(layer) << ", run " << round;
    }
  }
}

TEST(TunedConv2dCuda, BadArgumentsThrowBeforeTouchingTheDevice) {
  float* fake = reinterpret_cast<float*>(uintptr_t(256));  // never dereferenced
  auto message = [](auto&& call) { return ktune::test::thrown_message<ktune::Conv2dError>(call); };
  EXPECT_NE(message([&] {
              ktune::conv2d(1, -8, 8, 3, 4, 3, 3, 1, 1, fake, fake, fake, nullptr);
            }).find("ktune::conv2d: h = -8"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d(1, 8, 8, 3, 4, 3, 3, 0, 1, fake, fake, fake, nullptr);
            }).find("stride = 0"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d(1, 8, 8, 3, 4, 3, 3, 1, 3, fake, fake, fake, nullptr);
            }).find("pad = 3"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d(1, 8, 8, 3, 4, 3, 3, 1, 1, fake, nullptr, fake, nullptr);
            }).find("filter is a null pointer"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d(1 << 20, 1 << 10, 1 << 10, 3, 4, 3, 3, 1, 1, fake, fake, fake, nullptr);
            }).find("the input (n*h*w*c) exceeds"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::tuned_conv2d_run_config_cuda(-1, 1, 8, 8, 3, 4, 3, 3, 1, 1, fake, fake, fake,
                                                  nullptr);
            }).find("index = -1"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::Conv2dPlan(1, 8, 8, 3, 4, 3, 3, 1, 1, nullptr, nullptr);
            }).find("ktune::Conv2dPlan: filter is a null pointer"),
            std::string::npos);
  EXPECT_NE(
      message([&] { ktune::Conv2dPlan(1, 8, 8, 3, 4, 5, 5, 1, 5, fake, nullptr); }).find("pad = 5"),
      std::string::npos);
  {
    ktune::Conv2dPlan empty(0, 8, 8, 3, 4, 3, 3, 1, 1, nullptr, nullptr);  // n = 0: nothing to do
    EXPECT_EQ(message([&] { empty.run(nullptr, nullptr, nullptr); }), "no error");
  }
  // n = 0: nothing to do, no pointer needed.
  EXPECT_EQ(message([&] {
              ktune::conv2d(0, 8, 8, 3, 4, 3, 3, 1, 1, nullptr, nullptr, nullptr, nullptr);
            }),
            "no error");
}

}  // namespace
