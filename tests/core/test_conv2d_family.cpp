// The conv2d family: features and their validation (one-line errors), derived features, the
// space's kinds and stable ids, the float64 reference (checked by hand and against a textbook
// loop on random data) and the workloads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"

namespace ktune::kernels::conv2d {
namespace {

const Family& family() {
  register_builtin();
  return find_family("conv2d");
}

// The error message of validating features n, h, w, c, k, r, s, stride, pad ("" when valid).
std::string error_of(std::vector<double> features) {
  try {
    family().make_problem(features);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Conv2dFamily, FeaturesAndOutputSize) {
  const Problem p = family().make_problem({2, 224, 224, 3, 64, 7, 7, 2, 3});
  EXPECT_EQ(p.key(), "n=2;h=224;w=224;c=3;k=64;r=7;s=7;stride=2;pad=3");
  const Shape s = shape_of(p);
  EXPECT_EQ(s.p(), 112);
  EXPECT_EQ(s.q(), 112);
  EXPECT_EQ(s.gemm_m(), 2 * 112 * 112);
  EXPECT_EQ(s.gemm_k(), 3 * 7 * 7);
  EXPECT_DOUBLE_EQ(family().flops(p), 2.0 * 2 * 112 * 112 * 64 * 147);
  // Uneven strides round down: (10 + 2 - 3) / 2 + 1 = 5 rows, (8 + 2 - 3) / 2 + 1 = 4 columns.
  EXPECT_EQ(shape_of(family().make_problem({1, 10, 9, 1, 1, 3, 3, 2, 1})).p(), 5);
  EXPECT_EQ(shape_of(family().make_problem({1, 10, 8, 1, 1, 3, 3, 2, 1})).q(), 4);
}

TEST(Conv2dFamily, DerivedFeaturesMatchTheirNames) {
  const Problem p = family().make_problem({1, 14, 14, 256, 512, 1, 1, 1, 0});
  const auto names = family().derived_feature_names();
  const auto values = family().derived_features(p);
  ASSERT_EQ(names.size(), values.size());
  auto value = [&](const std::string& name) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return values[i];
    ADD_FAILURE() << "no derived feature " << name;
    return 0.0;
  };
  EXPECT_EQ(value("gemm_m"), 196);
  EXPECT_EQ(value("gemm_n"), 512);
  EXPECT_EQ(value("gemm_k"), 256);
  EXPECT_EQ(value("is_1x1"), 1);
  EXPECT_EQ(value("winograd"), 0);
  const double bytes = 4.0 * (196 * 256 + 512 * 256 + 196 * 512);
  EXPECT_DOUBLE_EQ(value("bytes"), bytes);
  EXPECT_DOUBLE_EQ(value("intensity"), 2.0 * 196 * 512 * 256 / bytes);
  EXPECT_DOUBLE_EQ(value("log2_gemm_n"), 9);
}

TEST(Conv2dFamily, BadProblemsGiveOneLineErrorsNamingTheProblem) {
  const std::pair<std::vector<double>, std::string> cases[] = {
      {{0, 8, 8, 3, 4, 3, 3, 1, 1}, "at least 1"},
      {{1, 8, 8, 3, -4, 3, 3, 1, 1}, "at least 1"},
      {{1, 8, 8, 3, 4, 0, 3, 1, 0}, "filter size"},
      {{1, 8, 8, 3, 4, 3, 3, 0, 1}, "stride"},
      {{1, 8, 8, 3, 4, 3, 3, 1, -1}, "negative"},
      {{1, 8, 8, 3, 4, 3, 3, 1, 3}, "smaller than the filter"},
      {{1, 8, 8, 3, 4, 1, 1, 1, 1}, "smaller than the filter"},
      {{1, 2, 8, 3, 4, 5, 5, 1, 1}, "no output"},
      {{1, 8.5, 8, 3, 4, 3, 3, 1, 1}, "h must be an integer"},
      {{1, 8, 8, 3, 4, 3, 3, 1, NAN}, "pad must be an integer"},
      {{1e6, 1e3, 1e3, 3, 4, 3, 3, 1, 1}, "exceeds 2^31 - 1"},
      {{1, 8, 8, 3e9, 4, 3, 3, 1, 1}, "exceeds 2^31 - 1"},
  };
  for (const auto& [features, needle] : cases) {
    const std::string message = error_of(features);
    EXPECT_NE(message.find(needle), std::string::npos) << message << " / " << needle;
    EXPECT_EQ(message.rfind("conv2d problem '", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(error_of({1, 8, 8, 3, 4, 3, 3, 1, 2}), "");
  EXPECT_NE(error_of({1, 8, 8, 3, 4, 3, 3, 1}).find("9 features"), std::string::npos);
}

TEST(Conv2dFamily, SpaceIsTheCpuKindsThenTheCudaKindsWithStableIds) {
  const Space& space = family().space();
  ASSERT_GE(space.kinds().size(), 4u);
  const char* cpu[] = {"cpu_direct", "cpu_im2col", "cpu_gemm1x1", "cpu_winograd"};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(space.kinds()[i].name, cpu[i]);
  // Then the CUDA kinds, then kinds appended later (cpu_plan, cpu_plan_fused, cuda_igemm_wgmma,
  // cpu_plan_tpad, cuda_igemm_wgmma_persist, cpu_plan_1x1).
  const size_t n = space.kinds().size();
  for (size_t i = 4; i + 6 < n; ++i)
    EXPECT_EQ(space.kinds()[i].name.rfind("cuda_", 0), 0u) << space.kinds()[i].name;
  EXPECT_EQ(space.kinds()[n - 6].name, "cpu_plan");
  EXPECT_EQ(space.kinds()[n - 5].name, "cpu_plan_fused");
  EXPECT_EQ(space.kinds()[n - 4].name, "cuda_igemm_wgmma");
  EXPECT_EQ(space.kinds()[n - 3].name, "cpu_plan_tpad");
  EXPECT_EQ(space.kinds()[n - 2].name, "cuda_igemm_wgmma_persist");
  EXPECT_EQ(space.kinds()[n - 1].name, "cpu_plan_1x1");
  // Ids of the CPU kinds are fixed forever: spot-check a config of each.
  EXPECT_EQ(space.to_string(space.at(0)), "rows=1;cols=2;vk=2;vc=8");
  EXPECT_EQ(space.to_string(space.at(36)), "kind=cpu_im2col;mt=8x8;kc=128;rows=1024");
  EXPECT_EQ(space.to_string(space.at(48)), "kind=cpu_gemm1x1;mt=8x8;kc=128");
  EXPECT_EQ(space.to_string(space.at(57)), "kind=cpu_winograd;m=2;mt=8x8;tiles=64");
  EXPECT_EQ(space.parse("kind=cpu_winograd;m=4;mt=24x4;tiles=256").id, 68);
  // cols x vk x vc / 8 accumulators over 12 leave the space: 36 direct products, 22 valid.
  int direct = 0;
  for (const Config& c : space.enumerate()) direct += c.kind == 0;
  EXPECT_EQ(direct, 22);
  EXPECT_TRUE(space.violates(space.parse("rows=1;cols=4;vk=4;vc=8")));
}

TEST(Conv2dReference, MatchesAHandComputedPaddedStridedCase) {
  // n=1, 3x3 input, c=2, k=2, 2x2 filter, stride 2, pad 1 -> 2x2 output.
  Shape s{1, 3, 3, 2, 2, 2, 2, 2, 1};
  std::vector<float> in(18), f(16);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i + 1);  // in[y][x][c] = (3y+x)*2+c+1
  for (size_t i = 0; i < f.size(); ++i) f[i] = float(i % 5) - 2;
  const auto out = reference_conv2d(s, in.data(), f.data());
  ASSERT_EQ(out.size(), 8u);
  auto expect = [&](int p, int q, int k) {
    double sum = 0;
    for (int r = 0; r < 2; ++r)
      for (int t = 0; t < 2; ++t) {
        const int y = p * 2 - 1 + r, x = q * 2 - 1 + t;
        if (y < 0 || x < 0 || y > 2 || x > 2) continue;
        for (int c = 0; c < 2; ++c)
          sum += in[size_t((y * 3 + x) * 2 + c)] * f[size_t(((k * 2 + r) * 2 + t) * 2 + c)];
      }
    return sum;
  };
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 2; ++q)
      for (int k = 0; k < 2; ++k)
        EXPECT_DOUBLE_EQ(out[size_t((p * 2 + q) * 2 + k)], expect(p, q, k));
  // Output (0,0): only input (0,0) is inside the window, at filter tap (1,1).
  EXPECT_DOUBLE_EQ(out[0], 1.0 * f[6] + 2.0 * f[7]);
  std::vector<float> exact(out.begin(), out.end());
  EXPECT_EQ(relative_error(s, exact.data(), out), 0.0);
  exact[3] = NAN;
  EXPECT_TRUE(std::isinf(relative_error(s, exact.data(), out)));
}

TEST(Conv2dReference, EqualsTheTextbookLoopOnRandomData) {
  // The reference is a blocked float64 GEMM over 128-pixel blocks of patches: shapes with one
  // pixel, a partial last block (2·9·11 = 198, 3·17·17 = 867 pixels), pads 0-3 (2 on a 3×3
  // filter), strides 1-3, a 7×7 filter on 3 channels and odd channel counts, against
  // one float64 dot product per output (the former reference). Both sum exact float products in
  // double, only in another order: 1e-12 relative is round-off, a wrong term is O(1).
  for (const Shape& s : {Shape{1, 1, 1, 5, 3, 1, 1, 1, 0}, Shape{2, 9, 11, 7, 13, 3, 3, 1, 1},
                         Shape{3, 33, 33, 3, 17, 7, 7, 2, 3}, Shape{1, 10, 7, 19, 9, 3, 3, 3, 2},
                         Shape{1, 12, 12, 40, 33, 1, 1, 2, 0}}) {
    const auto in = gemm::random_matrix(size_t(s.input_elements()), 41);
    const auto f = gemm::random_matrix(size_t(s.filter_elements()), 42);
    const auto out = reference_conv2d(s, in.data(), f.data());
    ASSERT_EQ(out.size(), size_t(s.output_elements()));
    double worst = 0;
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t p = 0; p < s.p(); ++p)
        for (int64_t q = 0; q < s.q(); ++q)
          for (int64_t k = 0; k < s.k; ++k) {
            double sum = 0, size = 0;
            for (int64_t r = 0; r < s.r; ++r)
              for (int64_t t = 0; t < s.s; ++t) {
                const int64_t y = p * s.stride - s.pad + r, x = q * s.stride - s.pad + t;
                if (y < 0 || y >= s.h || x < 0 || x >= s.w) continue;
                for (int64_t c = 0; c < s.c; ++c) {
                  const double v = double(in[size_t(((n * s.h + y) * s.w + x) * s.c + c)]) *
                                   double(f[size_t(((k * s.r + r) * s.s + t) * s.c + c)]);
                  sum += v;
                  size += std::abs(v);
                }
              }
            const size_t at = size_t(((n * s.p() + p) * s.q() + q) * s.k + k);
            worst = std::max(worst, std::abs(out[at] - sum) / std::max(size, 1e-300));
          }
    EXPECT_LE(worst, 1e-12) << problem_of(s).key();
  }
}

TEST(Conv2dFamily, ErrorBoundsGrowWithReductionAndWinogradTile) {
  const Shape s{1, 14, 14, 256, 256, 3, 3, 1, 1};
  EXPECT_GT(error_bound(s), 0);
  EXPECT_DOUBLE_EQ(error_bound(s, 2), 8 * error_bound(s));
  EXPECT_DOUBLE_EQ(error_bound(s, 4), 64 * error_bound(s));
  EXPECT_GT(error_bound(s), error_bound(Shape{1, 14, 14, 16, 256, 3, 3, 1, 1}));
}

// value rounded to nearest even with `bits` mantissa bits kept (bf16: 7 stored + the implicit one).
double round_mantissa(double value, int bits) {
  if (value == 0) return 0;
  int exponent = 0;
  std::frexp(value, &exponent);  // |value| in [2^(exponent-1), 2^exponent)
  const double ulp = std::ldexp(1.0, exponent - 1 - bits);
  return std::nearbyint(value / ulp) * ulp;
}

// The relative error of s's float64 reference on random data once it is rounded to `bits`
// mantissa bits.
double rounded_reference_error(const Shape& s, int bits) {
  const auto input = gemm::random_matrix(size_t(s.input_elements()), 3);
  const auto filter = gemm::random_matrix(size_t(s.filter_elements()), 4);
  const std::vector<double> ref = reference_conv2d(s, input.data(), filter.data());
  std::vector<float> out(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) out[i] = float(round_mantissa(ref[i], bits));
  return relative_error(s, out.data(), ref);
}

// The bf16-output bound adds the store's rounding, u·(1 + e) with u = 2^-8: the float64 reference
// of random data rounded to bf16 moves by at most that u norm-wise (and by something), while
// rounded to 4 mantissa bits it moves past it (the rounding term can fail).
TEST(Conv2dFamily, TheBf16OutputBoundAddsHalfAnUlpOfBf16) {
  Shape s{2, 9, 11, 24, 40, 3, 3, 1, 1};
  s.precision = gemm::Precision::bf16;
  const double u = std::ldexp(1.0, -8);
  for (int m : {0, 2}) {
    const double e = error_bound(s, m);
    EXPECT_DOUBLE_EQ(error_bound_bf16_output(s, m), e + u * (1 + e));
  }
  auto rounded_error = [&](int bits) { return rounded_reference_error(s, bits); };
  EXPECT_GT(rounded_error(7), 0.0);
  EXPECT_LE(rounded_error(7), u);
  EXPECT_GT(rounded_error(4), u);
}

// The fp16-output bound (a cuDNN fp16 output tensor) is the same with u = 2^-11: the reference
// rounded to fp16's 10 mantissa bits meets it, rounded to bf16's 7 it does not; a bf16 problem's
// 16-bit output bound is the bf16 one.
TEST(Conv2dFamily, TheFp16OutputBoundAddsHalfAnUlpOfFp16) {
  Shape s{2, 9, 11, 24, 40, 3, 3, 1, 1};
  s.precision = gemm::Precision::fp16;
  const double u = std::ldexp(1.0, -11);
  for (int m : {0, 2}) {
    const double e = error_bound(s, m);
    EXPECT_DOUBLE_EQ(error_bound_output16(s, m), e + u * (1 + e));
  }
  auto rounded_error = [&](int bits) { return rounded_reference_error(s, bits); };
  EXPECT_GT(rounded_error(10), 0.0);
  EXPECT_LE(rounded_error(10), u);
  EXPECT_GT(rounded_error(7), u);
  Shape b = s;
  b.precision = gemm::Precision::bf16;
  EXPECT_DOUBLE_EQ(error_bound_output16(b, 2), error_bound_bf16_output(b, 2));
}

TEST(Conv2dWorkloads, NetworksAtTwoBatchesKeepLayerNames) {
  const auto vgg = workload_layers("vgg16-conv");
  ASSERT_EQ(vgg.size(), 18u);
  EXPECT_EQ(vgg[0].layer, "conv1_1");
  EXPECT_EQ(vgg[0].shape.n, 1);
  EXPECT_EQ(vgg[9].shape.n, 16);
  EXPECT_EQ(vgg[8].count, 3);  // conv5_1: three of VGG16's layers
  EXPECT_EQ(workload_layers("resnet50-conv").size(), 48u);
  const Workload dnn = load_workload(family(), "dnn");
  EXPECT_EQ(dnn.problems.size(), 66u);  // no shape is shared between the two networks
  for (const Problem& p : dnn.problems) ASSERT_EQ(p.tags.size(), 1u);
  const Workload small = load_workload(family(), "conv-small");
  EXPECT_EQ(small.problems.size(), 12u);
  double flops = 0;
  for (const Problem& p : small.problems) flops += family().flops(p);
  EXPECT_LT(flops, 3e9);
  EXPECT_FALSE(load_workload(family(), "tiny").problems.empty());
  const auto names = ktune::builtin_workload_names(family().name());
  EXPECT_NE(std::find(names.begin(), names.end(), "conv-small"), names.end());
}

}  // namespace
}  // namespace ktune::kernels::conv2d
