// The conv1d family: space, problem features, derived features (values and their codegen C++
// side by side), workloads, reference, and its registration entry.
#include "conv1d_family.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "ktune/error.hpp"
#include "ktune/workload.hpp"

namespace ktune::conv1d {

namespace {
using V = std::vector<std::string>;
}  // namespace

// Two tuned params: outputs per block (a unit of OpenMP work) and partial sums per output.
Conv1dFamily::Conv1dFamily()
    : space_("conv1d", {{"block", V{"64", "256", "1024"}}, {"acc", V{"1", "2", "4", "8"}}}) {}

Shape shape_of(const Problem& p) {
  const double n = p.get("n"), taps = p.get("taps");
  auto whole = [](double v) { return std::isfinite(v) && std::floor(v) == v; };
  if (!whole(n) || !whole(taps) || taps < 1 || n < taps || n > 1e8)
    throw Error(fmt::format("conv1d problem '{}': need whole 1 <= taps <= n <= 1e8", p.key()));
  return {int64_t(n), int64_t(taps)};
}

int block_of(const Space& space, const Config& c) { return space.int_value(c, "block"); }
int accumulators_of(const Space& space, const Config& c) { return space.int_value(c, "acc"); }

std::vector<std::string> Conv1dFamily::derived_feature_names() const {
  return {"outputs", "work"};
}

std::vector<double> Conv1dFamily::derived_features(const Problem& p) const {
  const Shape s = shape_of(p);
  const long long outputs = s.n - s.taps + 1;
  return {double(outputs), static_cast<double>(outputs) * static_cast<double>(s.taps)};
}

std::optional<CodegenSignature> Conv1dFamily::codegen_signature() const {
  using Holder = FeatureCode::Holder;
  CodegenSignature sig;
  sig.doc = "Index into kConfigs of the config for a signal of n samples and a filter of taps.";
  sig.args = feature_names();
  sig.derived = {
      {"outputs", "const long long outputs = n - taps + 1;", {"n", "taps"}, Holder::integer},
      {"work", "const double work = static_cast<double>(n - taps + 1) * static_cast<double>(taps);",
       {"n", "taps"}, Holder::integer_double},
  };
  return sig;
}

double Conv1dFamily::flops(const Problem& p) const {
  const Shape s = shape_of(p);
  return 2.0 * double(s.outputs()) * double(s.taps);
}

Workload Conv1dFamily::builtin_workload(const std::string& name) const {
  if (name == "small")
    return {name, parse_workload_csv(*this, embedded_file("conv1d-small.csv"), "conv1d-small.csv")};
  Workload w{name, {}};
  for (const auto& [n, taps] : {std::pair{37, 5}, {100, 1}, {1000, 31}, {4096, 7}})
    w.problems.push_back(make_problem({double(n), double(taps)}));
  return w;
}

std::vector<double> reference(const Shape& s, const std::vector<float>& x,
                              const std::vector<float>& w) {
  std::vector<double> y(size_t(s.outputs()));
  for (size_t i = 0; i < y.size(); ++i) {
    double sum = 0;
    for (size_t j = 0; j < size_t(s.taps); ++j) sum += double(w[j]) * double(x[i + j]);
    y[i] = sum;
  }
  return y;
}

// FP32 accumulation error grows like sqrt(taps) * eps; 16x margin (as GEMM's bound).
double error_bound(int64_t taps) { return 16.0 * 5.96e-8 * std::sqrt(double(taps)) + 1e-6; }

void register_cpu_backend();  // cpu/conv1d_cpu_backend.cpp

}  // namespace ktune::conv1d

KTUNE_FAMILY_ENTRY(conv1d) {
  ktune::register_family(std::make_unique<ktune::conv1d::Conv1dFamily>());
  ktune::conv1d::register_cpu_backend();
}
