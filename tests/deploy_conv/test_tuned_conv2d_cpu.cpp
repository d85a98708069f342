// The CPU tuned conv2d library (examples/tuned-conv: ktune_tuned_conv2d_cpu) through the public
// API: results on the tiny workload's odd shapes against the float64 reference with NaN-poisoned
// output and guard regions, and argument errors that leave the output untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"
#include "kernels/gemm/gemm_reference.hpp"
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

}  // namespace
