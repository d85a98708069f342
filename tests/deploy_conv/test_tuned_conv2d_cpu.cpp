// The CPU tuned conv2d library (examples/tuned-conv: ktune_tuned_conv2d_cpu, self-contained)
// through the public API: every shipped config and the selector's picks on the tiny workload's odd
// shapes against the float64 reference with NaN-poisoned output and guard regions, and argument
// errors that leave the output untouched; ktune::CpuConv2dPlan (the filter prepared once per
// layer) the same way, run twice per plan, on the tiny shapes and the workloads' filter / stride /
// padding combinations at small sizes with odd channel counts.
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

namespace {

namespace conv = ktune::kernels::conv2d;
constexpr size_t kGuard = 32;
constexpr float kGuardValue = -12345.0f;

TEST(TunedConv2dCpu, EveryTinyShapeMatchesTheReference) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  ASSERT_GT(info.num_configs, 0);
  EXPECT_STREQ(info.backend, "cpu");
  for (const conv::Layer& layer : conv::workload_layers("tiny")) {
    const conv::Shape& s = layer.shape;
    const auto input = ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 3);
    const auto filter = ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 4);
    std::vector<float> out(size_t(s.output_elements()) + 2 * kGuard, kGuardValue);
    std::fill(out.begin() + kGuard, out.end() - kGuard, std::numeric_limits<float>::quiet_NaN());
    ktune::conv2d(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, input.data(), filter.data(),
                  out.data() + kGuard);
    const auto ref = conv::reference_conv2d(s, input.data(), filter.data());
    EXPECT_LE(conv::relative_error(s, out.data() + kGuard, ref), conv::error_bound(s, 4))
        << layer.layer;
    for (size_t i = 0; i < kGuard; ++i) {
      EXPECT_EQ(out[i], kGuardValue);
      EXPECT_EQ(out[out.size() - 1 - i], kGuardValue);
    }
    const int pick =
        ktune::tuned_conv2d_choice_cpu(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad);
    EXPECT_GE(pick, 0);
    EXPECT_LT(pick, info.num_configs);
  }
}

// Each shipped config directly (tuned_conv2d_run_config_cpu), on every tiny shape its kind runs,
// plus a 3x3 stride-1 and a 1x1 shape with c a multiple of 8.
TEST(TunedConv2dCpu, EveryShippedConfigMatchesTheReference) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  auto layers = conv::workload_layers("tiny");
  layers.push_back({"test", "3x3-c16", 1, {2, 9, 11, 16, 12, 3, 3, 1, 1}});
  layers.push_back({"test", "1x1-c16", 1, {2, 7, 5, 16, 20, 1, 1, 1, 0}});
  for (int i = 0; i < info.num_configs; ++i) {
    int ran = 0;
    for (const conv::Layer& layer : layers) {
      const conv::Shape& s = layer.shape;
      const auto input = ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 5);
      const auto filter = ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 6);
      std::vector<float> out(size_t(s.output_elements()), std::numeric_limits<float>::quiet_NaN());
      if (!ktune::tuned_conv2d_run_config_cpu(i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
                                              input.data(), filter.data(), out.data()))
        continue;
      ++ran;
      const auto ref = conv::reference_conv2d(s, input.data(), filter.data());
      EXPECT_LE(conv::relative_error(s, out.data(), ref), conv::error_bound(s, 4))
          << info.configs[i] << " on " << layer.layer;
    }
    EXPECT_GT(ran, 0) << info.configs[i] << " ran on none of the shapes";
  }
  std::vector<float> x(8 * 8 * 3, 1.f), f(4 * 3 * 3 * 3, 1.f), y(8 * 8 * 4, kGuardValue);
  EXPECT_THROW(ktune::tuned_conv2d_run_config_cpu(info.num_configs, 1, 8, 8, 3, 4, 3, 3, 1, 1,
                                                  x.data(), f.data(), y.data()),
               ktune::Conv2dError);
  for (float v : y) ASSERT_EQ(v, kGuardValue);
}

TEST(TunedConv2dCpu, BadArgumentsThrowAndLeaveTheOutputUntouched) {
  std::vector<float> input(8 * 8 * 3, 1.f), filter(4 * 3 * 3 * 3, 1.f), out(8 * 8 * 4, kGuardValue);
  auto message = [&](int64_t h, int64_t pad, const float* in) {
    try {
      ktune::conv2d(1, h, 8, 3, 4, 3, 3, 1, pad, in, filter.data(), out.data());
    } catch (const ktune::Conv2dError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(-8, 1, input.data()).find("h = -8"), std::string::npos);
  EXPECT_NE(message(8, 3, input.data()).find("pad = 3"), std::string::npos);
  EXPECT_NE(message(8, 1, nullptr).find("input is a null pointer"), std::string::npos);
  for (float v : out) ASSERT_EQ(v, kGuardValue);
  ktune::conv2d(0, 8, 8, 3, 4, 3, 3, 1, 1, nullptr, nullptr, nullptr);  // n = 0: nothing to do
}

TEST(TunedConv2dCpu, PlansMatchTheReferenceOnEveryCallAndShape) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  std::vector<conv::Shape> shapes = {
      {1, 15, 13, 3, 37, 7, 7, 2, 3}, {2, 9, 11, 19, 45, 1, 1, 1, 0},
      {1, 9, 9, 33, 20, 1, 1, 2, 0},  {1, 11, 10, 17, 35, 3, 3, 1, 1},
      {2, 9, 7, 24, 33, 3, 3, 2, 1},  {3, 1, 1, 100, 70, 1, 1, 1, 0}};
  for (const conv::Layer& layer : conv::workload_layers("tiny")) shapes.push_back(layer.shape);
  for (const conv::Shape& s : shapes) {
    const auto input = ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 7);
    auto filter = ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 8);
    const auto ref = conv::reference_conv2d(s, input.data(), filter.data());
    ktune::CpuConv2dPlan plan(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, filter.data());
    EXPECT_GE(plan.config(), 0);
    EXPECT_LT(plan.config(), info.num_configs);
    std::fill(filter.begin(), filter.end(), std::numeric_limits<float>::quiet_NaN());  // not kept
    for (int call = 0; call < 2; ++call) {
      std::vector<float> out(size_t(s.output_elements()) + 2 * kGuard, kGuardValue);
      std::fill(out.begin() + kGuard, out.end() - kGuard, std::numeric_limits<float>::quiet_NaN());
      plan.run(input.data(), out.data() + kGuard);
      EXPECT_LE(conv::relative_error(s, out.data() + kGuard, ref), conv::error_bound(s, 4))
          << conv::problem_of(s).key() << " " << info.configs[plan.config()] << " call " << call;
      for (size_t i = 0; i < kGuard; ++i) {
        ASSERT_EQ(out[i], kGuardValue);
        ASSERT_EQ(out[out.size() - 1 - i], kGuardValue);
      }
    }
  }
}

TEST(TunedConv2dCpu, PlanArgumentErrorsNameTheArgument) {
  std::vector<float> filter(4 * 3 * 3 * 3, 1.f), out(8 * 8 * 4, kGuardValue);
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const ktune::Conv2dError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message([&] {
              ktune::CpuConv2dPlan(1, 8, 8, 3, 4, 3, 3, 0, 1, filter.data());
            }).find("stride = 0"),
            std::string::npos);
  EXPECT_NE(
      message([&] { ktune::CpuConv2dPlan(1, 8, 8, 3, 4, 3, 3, 1, 1, nullptr); }).find("filter"),
      std::string::npos);
  ktune::CpuConv2dPlan plan(1, 8, 8, 3, 4, 3, 3, 1, 1, filter.data());
  EXPECT_NE(message([&] { plan.run(nullptr, out.data()); }).find("input is null"),
            std::string::npos);
  for (float v : out) ASSERT_EQ(v, kGuardValue);
  ktune::CpuConv2dPlan moved(std::move(plan));
  EXPECT_NE(message([&] { plan.run(filter.data(), out.data()); }).find("moved from"),
            std::string::npos);
  ktune::CpuConv2dPlan empty(0, 8, 8, 3, 4, 3, 3, 1, 1, filter.data());  // n = 0: nothing to do
  empty.run(filter.data(), out.data());
  for (float v : out) ASSERT_EQ(v, kGuardValue);
}

}  // namespace
