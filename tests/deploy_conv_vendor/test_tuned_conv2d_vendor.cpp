// A tuned CPU conv2d library whose selector ships oneDNN's calls as candidates
// (selectors/conv-vendor-wins-k3.hpp, ktune deploy --vendors on the planted conv-vendor-wins.csv):
// the shipped set holds both oneDNN calls and the winning config, not the decoy; the selector
// routes each planted layer to its planted winner; every vendor call (stateless and through a
// plan) matches the float64 reference on random data with NaN-poisoned output within the FP32
// bound of its algorithm, and a planted error above that bound is caught; argument errors are
// one line naming the argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "ktune/conv2d.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;
constexpr size_t kGuard = 32;
constexpr float kGuardValue = -12345.0f;

int config_index(const char* name) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  for (int i = 0; i < info.num_configs; ++i)
    if (std::strcmp(info.configs[i], name) == 0) return i;
  return -1;
}

// The FP32 bound of what config `name` runs: oneDNN's Winograd (F(4×4, 3×3) in oneDNN 2.6's
// jit_wino_4x3 / F(2×2) in its 2x3: the larger bound) or a direct / implicit-GEMM sum.
double bound_of(const conv::Shape& s, const char* name) {
  return conv::error_bound(s, std::strcmp(name, "vendor=onednn_winograd") == 0 ? 4 : 0);
}

// Output with NaN-poisoned interior and guard regions on both sides.
std::vector<float> poisoned_output(const conv::Shape& s) {
  std::vector<float> out(size_t(s.output_elements()) + 2 * kGuard, kGuardValue);
  std::fill(out.begin() + kGuard, out.end() - kGuard, std::numeric_limits<float>::quiet_NaN());
  return out;
}

void expect_guards_intact(const std::vector<float>& out) {
  for (size_t i = 0; i < kGuard; ++i) {
    ASSERT_EQ(out[i], kGuardValue);
    ASSERT_EQ(out[out.size() - 1 - i], kGuardValue);
  }
}

struct PlantedLayer {
  conv::Shape shape;
  const char* winner;
};

// The planted dataset's layers (planted_conv_vendor_wins.py) and their winners.
const std::vector<PlantedLayer>& planted_layers() {
  static const std::vector<PlantedLayer> layers = {
      {{1, 8, 8, 16, 16, 3, 3, 1, 1}, "kind=cpu_plan;m=0;cols=192;rows=256"},
      {{1, 8, 8, 32, 32, 1, 1, 1, 0}, "kind=cpu_plan;m=0;cols=192;rows=256"},
      {{1, 10, 10, 16, 32, 3, 3, 2, 1}, "kind=cpu_plan;m=0;cols=192;rows=256"},
      {{2, 8, 8, 16, 16, 3, 3, 1, 1}, "kind=cpu_plan;m=0;cols=192;rows=256"},
      {{1, 28, 28, 64, 64, 1, 1, 1, 0}, "vendor=onednn"},
      {{1, 28, 28, 64, 128, 3, 3, 2, 1}, "vendor=onednn"},
      {{1, 56, 56, 64, 64, 1, 1, 1, 0}, "vendor=onednn"},
      {{1, 14, 14, 256, 256, 1, 1, 1, 0}, "vendor=onednn"},
      {{2, 28, 28, 64, 64, 1, 1, 1, 0}, "vendor=onednn"},
      {{1, 28, 28, 64, 64, 3, 3, 1, 1}, "vendor=onednn_winograd"},
      {{1, 56, 56, 64, 64, 3, 3, 1, 1}, "vendor=onednn_winograd"},
      {{1, 14, 14, 128, 128, 3, 3, 1, 1}, "vendor=onednn_winograd"}};
  return layers;
}

TEST(TunedConv2dVendor, ShipsBothOnednnCallsAndTheWinnerNotTheDecoy) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  EXPECT_EQ(info.num_configs, 3);
  EXPECT_GE(config_index("vendor=onednn"), 0);
  EXPECT_GE(config_index("vendor=onednn_winograd"), 0);
  EXPECT_GE(config_index("kind=cpu_plan;m=0;cols=192;rows=256"), 0);
  EXPECT_LT(config_index("kind=cpu_plan;m=0;cols=384;rows=256"), 0);  // the decoy
}

TEST(TunedConv2dVendor, RoutesEachPlantedLayerToItsWinner) {
  for (const PlantedLayer& layer : planted_layers()) {
    const conv::Shape& s = layer.shape;
    const int pick =
        ktune::tuned_conv2d_choice_cpu(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad);
    EXPECT_EQ(pick, config_index(layer.winner)) << conv::problem_of(s).key();
  }
}

// Stateless ktune::conv2d and each shipped config directly, on every planted layer: the vendor
// calls run where they apply (Winograd: 3×3 stride 1 only; elsewhere refused, output untouched).
TEST(TunedConv2dVendor, EveryCallMatchesTheReferenceOnPoisonedOutput) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  std::vector<int> ran(size_t(info.num_configs), 0);
  for (const PlantedLayer& layer : planted_layers()) {
    const conv::Shape& s = layer.shape;
    const auto input = ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 11);
    const auto filter = ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 12);
    const auto ref = conv::reference_conv2d(s, input.data(), filter.data());
    const std::string key = conv::problem_of(s).key();
    auto out = poisoned_output(s);
    ktune::conv2d(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, input.data(), filter.data(),
                  out.data() + kGuard);
    EXPECT_LE(conv::relative_error(s, out.data() + kGuard, ref), bound_of(s, layer.winner)) << key;
    expect_guards_intact(out);
    for (int i = 0; i < info.num_configs; ++i) {
      auto direct = poisoned_output(s);
      const bool applied =
          ktune::tuned_conv2d_run_config_cpu(i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
                                             input.data(), filter.data(), direct.data() + kGuard);
      expect_guards_intact(direct);
      const bool winograd = std::strcmp(info.configs[i], "vendor=onednn_winograd") == 0;
      if (winograd && !s.winograd_applies()) {
        EXPECT_FALSE(applied) << key;
        EXPECT_TRUE(std::isnan(direct[kGuard])) << key << ": a refusal wrote the output";
        continue;
      }
      ASSERT_TRUE(applied) << info.configs[i] << " on " << key;
      ++ran[size_t(i)];
      EXPECT_LE(conv::relative_error(s, direct.data() + kGuard, ref), bound_of(s, info.configs[i]))
          << info.configs[i] << " on " << key;
    }
  }
  for (int i = 0; i < info.num_configs; ++i) EXPECT_GT(ran[size_t(i)], 0) << info.configs[i];
}

// The per-thread primitive is kept between calls, the filter is not: a second call with another
// filter must give that filter's result.
TEST(TunedConv2dVendor, StatelessCallsReorderEachCallsFilter) {
  for (const char* name : {"vendor=onednn", "vendor=onednn_winograd"}) {
    const conv::Shape s{1, 14, 14, 128, 128, 3, 3, 1, 1};
    const auto input = ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 21);
    for (uint64_t seed : {22, 23}) {
      const auto filter = ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), seed);
      auto out = poisoned_output(s);
      ASSERT_TRUE(ktune::tuned_conv2d_run_config_cpu(config_index(name), s.n, s.h, s.w, s.c, s.k,
                                                     s.r, s.s, s.stride, s.pad, input.data(),
                                                     filter.data(), out.data() + kGuard));
      const auto ref = conv::reference_conv2d(s, input.data(), filter.data());
      EXPECT_LE(conv::relative_error(s, out.data() + kGuard, ref), bound_of(s, name))
          << name << " filter seed " << seed;
    }
  }
}

// A plan prepares its oneDNN call once (the filter reordered at plan time: the caller's copy is
// then poisoned) and runs it on every call.
TEST(TunedConv2dVendor, PlansPrepareTheVendorCallOnce) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  for (const PlantedLayer& layer : planted_layers()) {
    const conv::Shape& s = layer.shape;
    const auto input = ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 31);
    auto filter = ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 32);
    const auto ref = conv::reference_conv2d(s, input.data(), filter.data());
    ktune::CpuConv2dPlan plan(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, filter.data());
    ASSERT_EQ(plan.config(), config_index(layer.winner)) << conv::problem_of(s).key();
    std::fill(filter.begin(), filter.end(), std::numeric_limits<float>::quiet_NaN());
    for (int call = 0; call < 2; ++call) {
      auto out = poisoned_output(s);
      plan.run(input.data(), out.data() + kGuard);
      EXPECT_LE(conv::relative_error(s, out.data() + kGuard, ref), bound_of(s, layer.winner))
          << conv::problem_of(s).key() << " " << info.configs[plan.config()] << " call " << call;
      expect_guards_intact(out);
    }
  }
}

// The check above can fail: the vendor's output with one element moved by 10x the bound's share
// of the reference's norm is judged wrong.
TEST(TunedConv2dVendor, APlantedErrorAboveTheBoundIsCaught) {
  const conv::Shape s{1, 28, 28, 64, 64, 1, 1, 1, 0};
  const auto input = ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 41);
  const auto filter = ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 42);
  const auto ref = conv::reference_conv2d(s, input.data(), filter.data());
  std::vector<float> out(size_t(s.output_elements()), std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(ktune::tuned_conv2d_run_config_cpu(config_index("vendor=onednn"), s.n, s.h, s.w, s.c,
                                                 s.k, s.r, s.s, s.stride, s.pad, input.data(),
                                                 filter.data(), out.data()));
  const double bound = bound_of(s, "vendor=onednn");
  ASSERT_LE(conv::relative_error(s, out.data(), ref), bound);
  double norm = 0;
  for (double v : ref) norm += v * v;
  out[out.size() / 2] += float(10 * bound * std::sqrt(norm));
  EXPECT_GT(conv::relative_error(s, out.data(), ref), bound);
}

TEST(TunedConv2dVendor, ArgumentErrorsAreOneLineNamingTheArgument) {
  const auto& info = ktune::tuned_conv2d_info_cpu();
  std::vector<float> input(28 * 28 * 64, 1.f), filter(64 * 64, 1.f), out(28 * 28 * 64, kGuardValue);
  auto message = [](auto&& f) {  // what f threw, empty when it did not throw
    std::string what;
    try {
      f();
    } catch (const ktune::Conv2dError& e) {
      what = e.what();
    }
    return what;
  };
  for (const std::string& m :
       {message([&] {
          ktune::conv2d(1, 28, 28, 64, 64, 1, 1, 1, -1, input.data(), filter.data(), out.data());
        }),
        message([&] {
          ktune::tuned_conv2d_run_config_cpu(config_index("vendor=onednn"), 1, 28, 28, 64, 64, 1, 1,
                                             0, 0, input.data(), filter.data(), out.data());
        }),
        message([&] { ktune::CpuConv2dPlan(1, 28, 28, 64, 64, 1, 1, 1, 0, nullptr); }),
        message([&] {
          ktune::tuned_conv2d_run_config_cpu(info.num_configs, 1, 28, 28, 64, 64, 1, 1, 1, 0,
                                             input.data(), filter.data(), out.data());
        })}) {
    EXPECT_FALSE(m.empty());
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_NE(message([&] {
              ktune::conv2d(1, 28, 28, 64, 64, 1, 1, 1, -1, input.data(), filter.data(),
                            out.data());
            }).find("pad = -1"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::tuned_conv2d_run_config_cpu(config_index("vendor=onednn"), 1, 28, 28, 64, 64,
                                                 1, 1, 0, 0, input.data(), filter.data(),
                                                 out.data());
            }).find("stride = 0"),
            std::string::npos);
  for (float v : out) ASSERT_EQ(v, kGuardValue);
}

}  // namespace
