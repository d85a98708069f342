// conv2d problems per precision: the optional `precision` feature (keys, validation, workload
// variants) and the tf32 / 16-bit error bounds, checked against an emulation of a tensor-core
// kernel (inputs rounded once, exact products) that must pass and planted errors that must fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"

namespace ktune::kernels::conv2d {
namespace {

using gemm::Precision;

const Family& family() {
  register_builtin();
  return find_family("conv2d");
}

TEST(Conv2dPrecision, Fp32KeepsItsKeyAndOthersAppendTheFeature) {
  const Shape s{1, 14, 14, 64, 128, 3, 3, 1, 1};
  EXPECT_EQ(problem_of(s).key(), "n=1;h=14;w=14;c=64;k=128;r=3;s=3;stride=1;pad=1");
  Shape b = s;
  b.precision = Precision::bf16;
  const Problem p = problem_of(b);
  EXPECT_EQ(p.key(), "n=1;h=14;w=14;c=64;k=128;r=3;s=3;stride=1;pad=1;precision=2");
  EXPECT_EQ(shape_of(p).precision, Precision::bf16);
  EXPECT_EQ(shape_of(with_precision(p, Precision::fp16)).precision, Precision::fp16);
  EXPECT_EQ(with_precision(p, Precision::fp32).key(), problem_of(s).key());
  EXPECT_EQ(parse_precision("fp16"), Precision::fp16);
  EXPECT_EQ(parse_precision("tf32"), Precision::tf32);
  Shape t = s;
  t.precision = Precision::tf32;
  EXPECT_EQ(problem_of(t).key(), "n=1;h=14;w=14;c=64;k=128;r=3;s=3;stride=1;pad=1;precision=1");
  EXPECT_EQ(shape_of(problem_of(t)).precision, Precision::tf32);
}

TEST(Conv2dPrecision, BadPrecisionsGiveOneLineErrors) {
  for (double code : {4.0, -1.0, 2.5, 0.5}) {
    Problem p = problem_of(Shape{1, 8, 8, 8, 8, 3, 3, 1, 1});
    p.names.push_back("precision");
    p.values.push_back(code);
    try {
      shape_of(p);
      ADD_FAILURE() << "precision " << code << " was accepted";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("conv2d problem '", 0), 0u) << message;
      EXPECT_NE(message.find("precision"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  EXPECT_THROW(parse_precision("fp64"), Error);
  EXPECT_THROW(load_workload(family(), "tiny@int8"), Error);
}

TEST(Conv2dPrecision, WorkloadVariantsHoldTheSameShapesInTheirPrecision) {
  const Workload fp32 = load_workload(family(), "vgg16-conv");
  const Workload bf16 = load_workload(family(), "vgg16-conv@bf16");
  ASSERT_EQ(bf16.problems.size(), fp32.problems.size());
  for (size_t i = 0; i < fp32.problems.size(); ++i) {
    EXPECT_EQ(shape_of(bf16.problems[i]).precision, Precision::bf16);
    EXPECT_EQ(with_precision(bf16.problems[i], Precision::fp32).key(), fp32.problems[i].key());
    EXPECT_EQ(bf16.problems[i].tags, fp32.problems[i].tags);
  }
  const auto names = family().builtin_workloads();
  for (const char* name : {"resnet50-conv@fp16", "dnn@bf16", "tiny@fp16", "dnn@tf32"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  EXPECT_FALSE(load_workload(family(), "tiny@fp16").problems.empty());
}

// A tensor-core kernel's arithmetic, emulated: input and filter rounded to `rounding` (tf32: to
// nearest, as the mma kind's cvt.rna), products and sums in float64 (tighter than the FP32
// accumulation the bound allows for).
std::vector<float> emulated_rounded(const Shape& s, const std::vector<float>& in,
                                    const std::vector<float>& f, Precision rounding) {
  std::vector<float> rin(in.size()), rf(f.size());
  for (size_t i = 0; i < in.size(); ++i) rin[i] = gemm::round_input(in[i], rounding);
  for (size_t i = 0; i < f.size(); ++i) rf[i] = gemm::round_input(f[i], rounding);
  const std::vector<double> out = reference_conv2d(s, rin.data(), rf.data());
  return {out.begin(), out.end()};
}

TEST(Conv2dPrecision, TensorCoreBoundsPassRoundedInputsAndFailPlantedErrors) {
  // Deep reduction (c·r·s = 1152) and a stem-like one (c·r·s = 27), padded and strided.
  for (Shape s : {Shape{1, 12, 10, 128, 32, 3, 3, 1, 1}, Shape{2, 15, 13, 3, 16, 3, 3, 2, 1}}) {
    const auto in = gemm::random_matrix(size_t(s.input_elements()), 11);
    const auto f = gemm::random_matrix(size_t(s.filter_elements()), 12);
    const std::vector<double> ref = reference_conv2d(s, in.data(), f.data());
    for (Precision p : {Precision::tf32, Precision::bf16, Precision::fp16}) {
      s.precision = p;
      const double bound = error_bound(s);
      const double good = relative_error(s, emulated_rounded(s, in, f, p).data(), ref);
      EXPECT_GT(good, 0.0) << "the rounding must be visible";
      EXPECT_LT(good, bound) << precision_name(p);
      // Planted: output channel 0 is 20% off everywhere (relative error 0.2 / sqrt(k)).
      auto planted = emulated_rounded(s, in, f, p);
      for (int64_t pix = 0; pix < s.n * s.p() * s.q(); ++pix) planted[size_t(pix * s.k)] *= 0.8f;
      EXPECT_GT(relative_error(s, planted.data(), ref), bound) << precision_name(p);
    }
    // bf16 data is too coarse for the fp16 bound, and tf32 data for the FP32 one: the bounds
    // tell the precisions apart.
    s.precision = Precision::fp16;
    EXPECT_GT(relative_error(s, emulated_rounded(s, in, f, Precision::bf16).data(), ref),
              error_bound(s));
    s.precision = Precision::fp32;
    EXPECT_GT(relative_error(s, emulated_rounded(s, in, f, Precision::tf32).data(), ref),
              error_bound(s));
  }
}

}  // namespace
}  // namespace ktune::kernels::conv2d
