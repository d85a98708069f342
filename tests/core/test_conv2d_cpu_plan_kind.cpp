// The cpu_plan, cpu_plan_fused, cpu_plan_tpad and cpu_plan_1x1 kinds
// (kernels/conv2d/cpu/conv2d_cpu_plan.hpp) and the oneDNN Winograd vendor row: every config
// against the float64 reference on random data with NaN-poisoned output, directly and through the
// family's CPU backend (which verifies before it times), on the tiny workload's odd shapes and
// small copies of every filter / stride / padding of the VGG16 and ResNet-50 layers with channel
// counts off the tiles (kMR 32, kNR 12); Winograd refused exactly where it does not apply
// (cpu_plan_tpad: off padded non-1×1 layers and large inputs; cpu_plan_1x1: off 1×1 unpadded
// layers); each algorithm's bound rejects a planted weight; the config ids of the older kinds
// unchanged.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_config.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_plan.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::conv2d {
namespace {

// The workloads' (r, stride, pad) combinations at small sizes: 7×7/2 p3 stem, 1×1/1, 1×1/2
// (ResNet-50's projections), 3×3/1 p1, 3×3/2 p1, the fc layers as 1×1 on a 1×1 map; odd c, k.
std::vector<Shape> plan_shapes() {
  std::vector<Shape> out = {{1, 15, 13, 3, 37, 7, 7, 2, 3},
                            {2, 9, 11, 19, 45, 1, 1, 1, 0},
                            {1, 9, 9, 33, 20, 1, 1, 2, 0},
                            {1, 11, 10, 17, 35, 3, 3, 1, 1},
                            {2, 9, 7, 24, 33, 3, 3, 2, 1},
                            {1, 13, 9, 21, 50, 3, 3, 1, 1},
                            {1, 7, 7, 64, 70, 3, 3, 1, 1},
                            {3, 1, 1, 100, 70, 1, 1, 1, 0},
                            {1, 6, 5, 16, 13, 3, 3, 1, 0},
                            {1, 12, 12, 3, 64, 3, 3, 1, 1},
                            // batch 1 3×3 stride 2 on small maps, rows of 7 and odd (cpu_plan_tpad)
                            {1, 14, 14, 40, 37, 3, 3, 2, 1},
                            {1, 13, 13, 19, 33, 3, 3, 2, 1},
                            // 1×1 with odd c, k, h, w over several tasks (cpu_plan_1x1's split),
                            // at stride 1 and 2, batch 1 and 2
                            {1, 29, 31, 67, 97, 1, 1, 1, 0},
                            {2, 13, 15, 64, 257, 1, 1, 2, 0},
                            {2, 17, 11, 33, 129, 1, 1, 1, 0}};
  for (const Layer& l : workload_layers("tiny")) out.push_back(l.shape);
  return out;
}

std::vector<std::string> plan_configs() {
  register_builtin();
  const Space& space = find_family("conv2d").space();
  std::vector<std::string> out;
  for (const Config& c : space.enumerate())
    if (space.kind_name(c).rfind("cpu_plan", 0) == 0) out.push_back(space.to_string(c));
  return out;
}

// A config's plan on s (cpu_plan_fused: its Winograd; cpu_plan_tpad: the GEMM, its own copies;
// cpu_plan_1x1: the GEMM, its balanced split, its loop order).
std::unique_ptr<cpu::PreparedPlan> prepared(const cpu::CpuConvConfig& g, const Shape& s,
                                            const float* filter) {
  return std::make_unique<cpu::PreparedPlan>(s, filter, g);
}

// Why config g does not run s, or null.
const char* refusal(const cpu::CpuConvConfig& g, const Shape& s) { return cpu::plan_refusal(g, s); }

std::unique_ptr<Backend> cpu_backend() {
  register_builtin();
  return open_backend(find_family("conv2d"), "cpu");
}

TEST(Conv2dCpuPlanKind, FortyFourConfigsAppendedAfterTheFirstCudaKinds) {
  register_builtin();
  const Space& space = find_family("conv2d").space();
  EXPECT_EQ(plan_configs().size(), 11u + 6u + 9u + 18u);
  // 1069: the product size of the kinds before (1005 up to cuda_winograd, then cuda_igemm_mma's
  // 64), whose ids the committed datasets use; cpu_plan's 27 (11 valid), then cpu_plan_fused's 6,
  // then cuda_igemm_wgmma's 54 (40 valid), then cpu_plan_tpad's 9, then
  // cuda_igemm_wgmma_persist's 54, then cpu_plan_1x1's 18, appended later.
  EXPECT_EQ(space.product_size(), 1069 + 27 + 6 + 54 + 9 + 54 + 18);
  EXPECT_EQ(space.to_string(space.at(1069)), "kind=cpu_plan;m=0;cols=192;rows=128");
  EXPECT_EQ(space.to_string(space.at(1069 + 27)), "kind=cpu_plan_fused;m=2;tiles=12");
  EXPECT_EQ(space.to_string(space.at(1069 + 27 + 6)), "kind=cuda_igemm_wgmma;tp=4;tq=8;bn=64;st=3");
  EXPECT_EQ(space.to_string(space.at(1069 + 27 + 6 + 54)), "kind=cpu_plan_tpad;cols=192;rows=128");
  EXPECT_EQ(space.to_string(space.at(1069 + 27 + 6 + 54 + 9)),
            "kind=cuda_igemm_wgmma_persist;tp=4;tq=8;bn=64;st=3");
  EXPECT_EQ(space.to_string(space.at(1069 + 27 + 6 + 54 + 9 + 54)),
            "kind=cpu_plan_1x1;cols=192;rows=128;outer=0");
  EXPECT_EQ(space.to_string(space.at(1069 + 27 + 6 + 54 + 9 + 54 + 17)),
            "kind=cpu_plan_1x1;cols=768;rows=512;outer=1");
  EXPECT_EQ(space.kind_name(space.at(1068)), space.kinds()[space.kinds().size() - 7].name);
  EXPECT_TRUE(space.violates(space.parse("kind=cpu_plan;m=4;cols=192;rows=256")));
}

TEST(Conv2dCpuPlanKind, F4x4OnFewerThan12TilesRunsF2x2AsInTheEngine) {
  // m = 4 on a 7×7 map at batch 1 (4 F(4×4) tiles, ResNet-50's layer4) runs F(2×2), within
  // F(2×2)'s bound on poisoned output; 12 tiles (13×9) and the same map at batch 3 run F(4×4).
  const Shape few{1, 7, 7, 64, 70, 3, 3, 1, 1}, twelve{1, 13, 9, 21, 50, 3, 3, 1, 1},
      batch3{3, 7, 7, 64, 70, 3, 3, 1, 1};
  EXPECT_EQ(cpu::plan_winograd_m(few, 4), 2);
  EXPECT_EQ(cpu::plan_winograd_m(few, 2), 2);
  EXPECT_EQ(cpu::plan_winograd_m(few, 0), 0);
  EXPECT_EQ(cpu::plan_winograd_m(twelve, 4), 4);
  EXPECT_EQ(cpu::plan_winograd_m(batch3, 4), 4);
  for (const Shape& s : {few, twelve, batch3}) {
    const auto input = gemm::random_matrix(size_t(s.input_elements()), 21);
    const auto filter = gemm::random_matrix(size_t(s.filter_elements()), 22);
    const auto reference = reference_conv2d(s, input.data(), filter.data());
    std::vector<float> output(size_t(s.output_elements()), std::numeric_limits<float>::quiet_NaN());
    cpu::PreparedPlan plan(s, filter.data(), 4, 384, 256);
    EXPECT_EQ(plan.winograd_m(), cpu::plan_winograd_m(s, 4)) << problem_of(s).key();
    plan.run(input.data(), output.data());
    EXPECT_LE(relative_error(s, output.data(), reference), error_bound(s, plan.winograd_m()))
        << problem_of(s).key();
  }
}

TEST(Conv2dCpuPlanKind, ConfigStringsParse) {
  for (const std::string& text : plan_configs()) {
    const cpu::CpuConvConfig g = cpu::parse_cpu_conv_config(text);
    EXPECT_TRUE(g.valid) << text;
    EXPECT_EQ(g.kind, text.find("fused") != std::string::npos  ? cpu::CpuKind::plan_fused
                      : text.find("tpad") != std::string::npos ? cpu::CpuKind::plan_tpad
                      : text.find("1x1") != std::string::npos  ? cpu::CpuKind::plan_1x1
                                                               : cpu::CpuKind::plan)
        << text;
  }
  constexpr cpu::CpuConvConfig b =
      cpu::parse_cpu_conv_config("kind=cpu_plan_1x1;cols=192;rows=128;outer=0");
  static_assert(b.valid && b.kind == cpu::CpuKind::plan_1x1 && b.cols == 192 && b.rows == 128 &&
                b.outer == 0);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_1x1;m=0;cols=96;rows=64;outer=1").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_1x1;cols=96;rows=64").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_1x1;cols=96;rows=64;outer=2").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan;m=0;cols=96;rows=64;outer=1").valid);
  constexpr cpu::CpuConvConfig t =
      cpu::parse_cpu_conv_config("kind=cpu_plan_tpad;cols=192;rows=512");
  static_assert(t.valid && t.kind == cpu::CpuKind::plan_tpad && t.cols == 192 && t.rows == 512);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_tpad;m=0;cols=192;rows=512").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_tpad;cols=192").valid);
  constexpr cpu::CpuConvConfig f = cpu::parse_cpu_conv_config("kind=cpu_plan_fused;m=4;tiles=24");
  static_assert(f.valid && f.kind == cpu::CpuKind::plan_fused && f.m == 4 && f.tiles == 24);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_fused;m=0;tiles=24").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_fused;m=4").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan_fused;m=4;tiles=24;cols=384").valid);
  constexpr cpu::CpuConvConfig g =
      cpu::parse_cpu_conv_config("kind=cpu_plan;m=2;cols=384;rows=256");
  static_assert(g.valid && g.m == 2 && g.cols == 384 && g.rows == 256);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan;m=3;cols=384;rows=256").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan;m=0;cols=384").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_plan;m=0;cols=384;rows=256;tiles=2").valid);
  EXPECT_FALSE(cpu::parse_cpu_conv_config("kind=cpu_winograd;m=0;mt=8x8;tiles=64").valid);
}

TEST(Conv2dCpuPlanKind, EveryConfigMatchesTheReferenceOrIsRefusedWhereWinogradDoesNotApply) {
  int winograd_ran = 0, tpad_ran = 0, one_by_one_ran = 0;
  for (const Shape& s : plan_shapes()) {
    const auto input = gemm::random_matrix(size_t(s.input_elements()), 11);
    const auto input2 = gemm::random_matrix(size_t(s.input_elements()), 13);
    const auto filter = gemm::random_matrix(size_t(s.filter_elements()), 12);
    const auto reference = reference_conv2d(s, input.data(), filter.data());
    const auto reference2 = reference_conv2d(s, input2.data(), filter.data());
    std::vector<float> output(size_t(s.output_elements()));
    for (const std::string& text : plan_configs()) {
      const cpu::CpuConvConfig g = cpu::parse_cpu_conv_config(text);
      const bool winograd_fits = s.winograd_applies() && s.pad <= 2 && s.c >= 16;
      const bool tpad = g.kind == cpu::CpuKind::plan_tpad;
      const bool tpad_fits = s.pad > 0 && !(s.r == 1 && s.s == 1 && s.stride == 1);
      const bool one_by_one = g.kind == cpu::CpuKind::plan_1x1;
      const bool one_by_one_fits = s.r == 1 && s.s == 1 && s.pad == 0;
      const char* why = refusal(g, s);
      EXPECT_EQ(why == nullptr, tpad         ? tpad_fits
                                : one_by_one ? one_by_one_fits
                                             : g.m == 0 || winograd_fits)
          << problem_of(s).key() << " " << text;
      if (why) continue;
      const auto plan = prepared(g, s, filter.data());
      // The config's algorithm, not a fallback (F(2×2) for m = 4 on fewer than 12 F(4×4) tiles).
      EXPECT_EQ(plan->winograd_m(), cpu::plan_winograd_m(s, g.m)) << text;
      EXPECT_EQ(plan->winograd_fused(), g.kind == cpu::CpuKind::plan_fused) << text;
      // A prepared plan runs again with the same result; the second input differs, so that a
      // thread's padded copy of the first call (cpu_plan_tpad) would show.
      for (int call = 0; call < 2; ++call) {
        const auto& x = call == 0 ? input : input2;
        std::fill(output.begin(), output.end(), std::numeric_limits<float>::quiet_NaN());
        plan->run(x.data(), output.data());
        EXPECT_LE(relative_error(s, output.data(), call == 0 ? reference : reference2),
                  error_bound(s, plan->winograd_m()))
            << problem_of(s).key() << " " << text << " call " << call;
      }
      winograd_ran += g.m != 0;
      tpad_ran += tpad;
      one_by_one_ran += one_by_one;
    }
  }
  EXPECT_GE(winograd_ran, 10);
  EXPECT_GE(tpad_ran, 9 * 6);
  EXPECT_GE(one_by_one_ran, 18 * 6);
}

TEST(Conv2dCpuPlanKind, TpadRefusesLargeInputsAndTakesResNet50sPaddedLayers) {
  // ResNet-50's padded layers run at batch 1 and 16 (16 × 58 × 58 × 64 the largest padded
  // input); VGG16's 224 × 224 × 64 at batch 16 would take 52M floats per thread.
  EXPECT_EQ(cpu::plan_tpad_refusal(Shape{1, 56, 56, 64, 64, 3, 3, 2, 1}), nullptr);
  EXPECT_EQ(cpu::plan_tpad_refusal(Shape{16, 56, 56, 64, 64, 3, 3, 1, 1}), nullptr);
  EXPECT_EQ(cpu::plan_tpad_refusal(Shape{16, 224, 224, 3, 64, 7, 7, 2, 3}), nullptr);
  EXPECT_NE(cpu::plan_tpad_refusal(Shape{16, 224, 224, 64, 64, 3, 3, 1, 1}), nullptr);
  EXPECT_NE(cpu::plan_tpad_refusal(Shape{16, 56, 56, 256, 256, 3, 3, 1, 1}), nullptr);
  EXPECT_NE(cpu::plan_tpad_refusal(Shape{1, 14, 14, 256, 256, 1, 1, 1, 0}), nullptr);
  EXPECT_NE(cpu::plan_tpad_refusal(Shape{1, 14, 14, 256, 256, 1, 1, 2, 0}), nullptr);
}

// Plans of s made by make(filter) from a random filter and from the same with one weight off by
// 1 (the result of another filter), each run on NaN-poisoned output: the right one within bound,
// the planted one beyond it.
template <class Make>
void expect_planted_weight_fails(const Shape& s, double bound, Make make, const std::string& what) {
  const auto input = gemm::random_matrix(size_t(s.input_elements()), 31);
  const auto filter = gemm::random_matrix(size_t(s.filter_elements()), 32);
  std::vector<float> planted = filter;
  planted[planted.size() / 2] += 1.f;
  const auto reference = reference_conv2d(s, input.data(), filter.data());
  std::vector<float> output(size_t(s.output_elements()));
  const std::vector<float>* filters[] = {&filter, &planted};
  for (const std::vector<float>* f : filters) {
    const std::unique_ptr<cpu::PreparedPlan> plan = make(f->data());
    std::fill(output.begin(), output.end(), std::numeric_limits<float>::quiet_NaN());
    plan->run(input.data(), output.data());
    const double error = relative_error(s, output.data(), reference);
    if (f == &filter)
      EXPECT_LE(error, bound) << what;
    else
      EXPECT_GT(error, bound) << what;
  }
}

TEST(Conv2dCpuPlanKind, EachAlgorithmsBoundRejectsAPlantedWeight) {
  // One weight of 9450 off by 1 (weights about N(0, 1)), which each algorithm's bound (the
  // Winograd ones 8× and 64× the direct one) must still reject.
  const Shape s{1, 13, 9, 21, 50, 3, 3, 1, 1};
  for (int algo : {0, 2, 4})
    expect_planted_weight_fails(
        s, error_bound(s, algo),
        [&](const float* f) { return std::make_unique<cpu::PreparedPlan>(s, f, algo, 384, 256); },
        "m=" + std::to_string(algo));
  expect_planted_weight_fails(
      s, error_bound(s, 0),
      [&](const float* f) {
        return std::make_unique<cpu::PreparedPlan>(s, f, 0, 384, 256, 0, true);
      },
      "cpu_plan_tpad");
  // cpu_plan_1x1 on a 1×1 layer of odd sizes cut into several tasks (67 × 97 weights).
  const Shape one{1, 29, 31, 67, 97, 1, 1, 1, 0};
  for (bool outer : {false, true}) {
    auto balanced = [&](const float* f) {
      return std::make_unique<cpu::PreparedPlan>(one, f, 0, 96, 64, 0, false, true, outer);
    };
    EXPECT_GT(balanced(std::vector<float>(size_t(one.filter_elements())).data())->tasks(), 1u);
    expect_planted_weight_fails(one, error_bound(one, 0), balanced,
                                std::string("cpu_plan_1x1 outer=") + (outer ? "1" : "0"));
  }
}

TEST(Conv2dCpuPlanKind, BackendPreparesVerifiesAndRefuses) {
  const auto backend = cpu_backend();
  const Space& space = find_family("conv2d").space();
  const TimingPolicy policy{0, 2, 2, 0, 2000};
  for (const Shape& s : {Shape{1, 11, 10, 17, 35, 3, 3, 1, 1}, Shape{2, 9, 7, 24, 33, 3, 3, 2, 1},
                         Shape{1, 15, 13, 3, 37, 7, 7, 2, 3}}) {
    auto session = backend->open(problem_of(s));
    for (const std::string& text : plan_configs()) {
      const Config c = space.parse(text);
      EXPECT_TRUE(backend->implements(c));
      const Outcome out = session->run(c, policy);
      const bool refused = refusal(cpu::parse_cpu_conv_config(text), s) != nullptr;
      EXPECT_EQ(out.status, refused ? Status::refused : Status::ok)
          << problem_of(s).key() << " " << text << ": " << out.message;
      if (!refused) {
        EXPECT_LE(out.rel_error, error_bound(s, 4));
      }
    }
  }
}

TEST(Conv2dCpuPlanKind, OnednnWinogradVendorRowRunsOrRefuses) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN";
  const auto backend = cpu_backend();
  const TimingPolicy policy{0, 1, 1, 0, 2000};
  auto wino = backend->open(problem_of(Shape{1, 14, 14, 32, 48, 3, 3, 1, 1}));
  ASSERT_EQ(wino->vendors(), (std::vector<std::string>{"onednn", "onednn_winograd"}));
  const Outcome w = wino->run_vendor("onednn_winograd", policy);
  // oneDNN 2.6 has Winograd for AVX-512 CPUs only: elsewhere a refusal.
  EXPECT_TRUE(w.status == Status::ok || w.status == Status::refused) << w.message;
  auto one = backend->open(problem_of(Shape{1, 14, 14, 32, 48, 1, 1, 1, 0}));
  EXPECT_EQ(one->run_vendor("onednn_winograd", policy).status, Status::refused);
  EXPECT_EQ(one->run_vendor("onednn", policy).status, Status::ok);
}

TEST(Conv2dCpuPlanKind, OnednnWinogradMatchesTheReference) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN";
  const Shape s{2, 13, 9, 21, 50, 3, 3, 1, 1};
  std::unique_ptr<cpu::OnednnConv> conv;
  try {
    conv = std::make_unique<cpu::OnednnConv>(s, cpu::OnednnAlgo::winograd);
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  const auto input = gemm::random_matrix(size_t(s.input_elements()), 21);
  const auto filter = gemm::random_matrix(size_t(s.filter_elements()), 22);
  std::vector<float> output(size_t(s.output_elements()), std::numeric_limits<float>::quiet_NaN());
  conv->run(input.data(), conv->add_weights(filter.data()), output.data());
  const auto reference = reference_conv2d(s, input.data(), filter.data());
  EXPECT_LE(relative_error(s, output.data(), reference), error_bound(s, 4))
      << conv->implementation();
}

}  // namespace
}  // namespace ktune::kernels::conv2d
