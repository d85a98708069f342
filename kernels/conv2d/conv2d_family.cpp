#include "kernels/conv2d/conv2d_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kernels/common/gemm_shape.hpp"
#include "kernels/conv2d/conv2d_features.hpp"
#include "kernels/conv2d/conv2d_kinds.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d {

namespace {

const std::vector<std::string> kFeatureNames(kProblemFeatureNames.begin(),
                                             kProblemFeatureNames.end());
// Tensors are indexed with 32-bit offsets on the GPU; the host accepts the same limit.
constexpr double kMaxElements = 2147483647.0;

bool is_integer(double v) { return std::isfinite(v) && std::floor(v) == v; }

std::vector<SpaceKind> conv2d_kinds() {
  std::vector<SpaceKind> kinds;
  add_cpu_kinds(kinds);                 // ids 0 .. 68: never reorder
  add_cuda_kinds(kinds);                // appended after the CPU kinds
  add_cpu_plan_kinds(kinds);            // appended after the CUDA kinds
  add_cuda_wgmma_kinds(kinds);          // appended after the CPU plan kinds
  add_cpu_plan_tpad_kinds(kinds);       // appended after cuda_igemm_wgmma
  add_cuda_wgmma_persist_kinds(kinds);  // appended after cpu_plan_tpad
  add_cpu_plan_1x1_kinds(kinds);        // appended after cuda_igemm_wgmma_persist
  return kinds;
}

}  // namespace

Shape shape_of(const Problem& p) {
  auto fail = [&](const std::string& what) {
    throw Error(fmt::format("conv2d problem '{}': {}", p.key(), what));
  };
  double v[9];
  for (size_t i = 0; i < kFeatureNames.size(); ++i) {
    v[i] = p.get(kFeatureNames[i]);
    if (!is_integer(v[i])) fail(fmt::format("{} must be an integer", kFeatureNames[i]));
    if (v[i] > kMaxElements) fail(fmt::format("{} = {} exceeds 2^31 - 1", kFeatureNames[i], v[i]));
  }
  const double n = v[0], h = v[1], w = v[2], c = v[3], k = v[4], r = v[5], s = v[6], stride = v[7],
               pad = v[8];
  if (n < 1 || h < 1 || w < 1 || c < 1 || k < 1)
    fail("n, h, w, c and k must be at least 1 (zero-sized data)");
  if (r < 1 || s < 1) fail("the filter size r x s must be at least 1 x 1");
  if (stride < 1) fail("stride must be at least 1");
  if (pad < 0) fail("pad must not be negative");
  if (pad >= r || pad >= s)
    fail(
        fmt::format("pad {} must be smaller than the filter ({}x{}): a window would see only "
                    "padding",
                    pad, r, s));
  if (h + 2 * pad < r || w + 2 * pad < s)
    fail(fmt::format("the filter ({}x{}) is larger than the padded input ({}x{}): no output", r, s,
                     h + 2 * pad, w + 2 * pad));
  const double p_out = std::floor((h + 2 * pad - r) / stride) + 1;
  const double q_out = std::floor((w + 2 * pad - s) / stride) + 1;
  if (n * h * w * c > kMaxElements) fail("the input exceeds 2^31 - 1 elements");
  if (k * r * s * c > kMaxElements) fail("the filter exceeds 2^31 - 1 elements");
  if (n * p_out * q_out * k > kMaxElements) fail("the output exceeds 2^31 - 1 elements");
  Shape out;
  if (std::find(p.names.begin(), p.names.end(), "precision") != p.names.end()) {
    const double code = p.get("precision");
    if (code != 0 && code != 1 && code != 2 && code != 3)
      fail("precision must be 0 (fp32), 1 (tf32), 2 (bf16) or 3 (fp16)");
    out.precision = gemm::Precision(int(code));
  }
  out.n = int64_t(n);
  out.h = int64_t(h);
  out.w = int64_t(w);
  out.c = int64_t(c);
  out.k = int64_t(k);
  out.r = int64_t(r);
  out.s = int64_t(s);
  out.stride = int64_t(stride);
  out.pad = int64_t(pad);
  return out;
}

Problem problem_of(const Shape& s, std::vector<std::string> tags) {
  Problem p;
  p.names = kFeatureNames;
  p.values = {double(s.n), double(s.h), double(s.w),      double(s.c),  double(s.k),
              double(s.r), double(s.s), double(s.stride), double(s.pad)};
  if (s.precision != gemm::Precision::fp32) {  // absent means fp32: FP32 keys stay as they were
    p.names.push_back("precision");
    p.values.push_back(double(int(s.precision)));
  }
  p.tags = std::move(tags);
  return p;
}

gemm::Precision parse_precision(const std::string& text) {
  for (gemm::Precision p :
       {gemm::Precision::fp32, gemm::Precision::tf32, gemm::Precision::bf16, gemm::Precision::fp16})
    if (text == gemm::precision_name(p)) return p;
  throw Error(fmt::format("unknown conv2d precision '{}' (fp32, tf32, bf16, fp16)", text));
}

Problem with_precision(const Problem& problem, gemm::Precision precision) {
  Shape s = shape_of(problem);
  s.precision = precision;
  return problem_of(s, problem.tags);
}

double error_bound(const Shape& s, int winograd_m) {
  const double direct = gemm::error_bound(s.gemm_k(), s.precision);
  if (winograd_m == 2) return 8.0 * direct;
  if (winograd_m == 4) return 64.0 * direct;
  return direct;
}

double error_bound_bf16_output(const Shape& s, int winograd_m) {
  const double e = error_bound(s, winograd_m);
  const double u = std::ldexp(1.0, -8);  // half an ulp of bf16, relative
  return e + u * (1.0 + e);
}

double error_bound_output16(const Shape& s, int winograd_m) {
  if (s.precision != gemm::Precision::fp16) return error_bound_bf16_output(s, winograd_m);
  const double e = error_bound(s, winograd_m);
  const double u = std::ldexp(1.0, -11);  // half an ulp of fp16 (normal range), relative
  return e + u * (1.0 + e);
}

Conv2dFamily::Conv2dFamily() : space_("conv2d", conv2d_kinds()) {}

std::vector<std::string> Conv2dFamily::feature_names() const { return kFeatureNames; }

std::vector<std::string> Conv2dFamily::derived_feature_names() const {
  return {kDerivedFeatureNames.begin(), kDerivedFeatureNames.end()};
}

std::vector<double> Conv2dFamily::derived_features(const Problem& p) const {
  const Shape s = shape_of(p);
  const auto all = feature_values(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad);
  return {all.begin() + kProblemFeatures, all.end()};
}

}  // namespace ktune::kernels::conv2d
