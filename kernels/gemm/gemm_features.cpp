// GEMM's derived features, each as the value the dataset stores and the C++ statement a
// generated selector evaluates, operation for operation (same rounding, so the same thresholds
// split the same problems).
#include <fmt/format.h>

#include <functional>

#include "kernels/gemm/gemm_family.hpp"

namespace ktune::kernels::gemm {
namespace {

using Holder = FeatureCode::Holder;

struct Derived {
  FeatureCode code;
  std::function<double(const Shape&)> value;
};

std::string cast(const std::string& arg) { return "static_cast<double>(" + arg + ")"; }

double dim(const Shape& s, const std::string& name) {
  if (name == "m") return double(s.m);
  if (name == "n") return double(s.n);
  if (name == "k") return double(s.k);
  return double(s.batch);
}

Derived product(const std::string& name, const std::vector<std::string>& args) {
  std::string e;
  for (const auto& a : args) e += (e.empty() ? "" : " * ") + cast(a);
  return {{name, "const double " + name + " = " + e + ";", args, Holder::integer_double},
          [args](const Shape& s) {
            double v = dim(s, args[0]);
            for (size_t i = 1; i < args.size(); ++i) v *= dim(s, args[i]);
            return v;
          }};
}

// (product of num) / k
Derived ratio(const std::string& name, const std::vector<std::string>& num) {
  std::string e;
  for (const auto& a : num) e += (e.empty() ? "" : " * ") + cast(a);
  std::vector<std::string> uses = num;
  uses.push_back("k");
  return {{name, "const double " + name + " = " + e + " / " + cast("k") + ";", uses, Holder::real},
          [num](const Shape& s) {
            double v = dim(s, num[0]);
            for (size_t i = 1; i < num.size(); ++i) v *= dim(s, num[i]);
            return v / double(s.k);
          }};
}

Derived modulo(const std::string& d, int mod) {
  const std::string name = fmt::format("{}_mod{}", d, mod);
  return {{name, fmt::format("const long long {} = {} % {};", name, d, mod), {d}, Holder::integer},
          [d, mod](const Shape& s) {
            const int64_t v = d == "m" ? s.m : d == "n" ? s.n : s.k;
            return double(v % mod);
          }};
}

// Features that scale past the training sizes, computed in long long (exact, so the generated
// selector's thresholds split the same problems; no sum in floating point that a compiler could
// contract): arithmetic intensity m·n·k / (m·k + k·n + m·n), the number of output tiles of a
// tile size (the launch's blocks: waves per SM on a given device are this over its SM count),
// and the share of those tiles' area the output fills (tile fit).
Derived intensity() {
  return {{"intensity",
           "const double intensity = static_cast<double>(m * n * k) / static_cast<double>(m * k "
           "+ k * n + m * n);",
           {"m", "n", "k"},
           Holder::real},
          [](const Shape& s) {
            return double(s.m * s.n * s.k) / double(s.m * s.k + s.k * s.n + s.m * s.n);
          }};
}

Derived tiles(int t) {
  const std::string name = fmt::format("tiles{}", t);
  return {
      {name,
       fmt::format("const long long {0} = batch * ((m + {1}) / {2}) * ((n + {1}) / {2});", name,
                   t - 1, t),
       {"batch", "m", "n"},
       Holder::integer},
      [t](const Shape& s) { return double(s.batch * ((s.m + t - 1) / t) * ((s.n + t - 1) / t)); }};
}

Derived fill(int t) {
  const std::string name = fmt::format("fill{}", t);
  return {{name,
           fmt::format("const double {0} = static_cast<double>(m * n) / static_cast<double>((m + "
                       "{1}) / {2} * {2} * ((n + {1}) / {2} * {2}));",
                       name, t - 1, t),
           {"m", "n"},
           Holder::real},
          [t](const Shape& s) {
            return double(s.m * s.n) / double((s.m + t - 1) / t * t * ((s.n + t - 1) / t * t));
          }};
}

const std::vector<Derived>& derived_table() {
  static const std::vector<Derived> table = [] {
    std::vector<Derived> v = {
        product("mn", {"m", "n"}),      product("bmn", {"batch", "m", "n"}),
        product("kn", {"k", "n"}),      product("km", {"k", "m"}),
        ratio("m_over_k", {"m"}),       ratio("n_over_k", {"n"}),
        ratio("mn_over_k", {"m", "n"}),
    };
    for (const char* d : {"m", "n", "k"})
      for (int mod : {2, 4, 8}) v.push_back(modulo(d, mod));
    v.push_back(product("bmnk", {"batch", "m", "n", "k"}));
    v.push_back(intensity());
    for (int t : {64, 128}) v.push_back(tiles(t));
    for (int t : {64, 128}) v.push_back(fill(t));
    return v;
  }();
  return table;
}

}  // namespace

std::vector<std::string> GemmFamily::derived_feature_names() const {
  std::vector<std::string> names;
  for (const auto& d : derived_table()) names.push_back(d.code.name);
  return names;
}

std::vector<double> GemmFamily::derived_features(const Problem& p) const {
  const Shape s = shape_of(p);
  std::vector<double> v;
  for (const auto& d : derived_table()) v.push_back(d.value(s));
  return v;
}

std::optional<CodegenSignature> GemmFamily::codegen_signature() const {
  CodegenSignature sig;
  sig.doc =
      "Index into kConfigs of the config to run C = op(A) op(B) (batch times) with\n"
      "op(A) m x k, op(B) k x n; transa/transb are 0 or 1.";
  sig.args = feature_names();
  // A dataset of one tensor-core precision carries it as a (constant) feature: its selector then
  // takes it as a seventh argument, which the deployed library passes.
  // Likewise a dataset of 16-bit C (`c16`, constant 1): an eighth argument after precision.
  sig.optional_args = {"precision", "c16"};
  for (const auto& d : derived_table()) sig.derived.push_back(d.code);
  sig.guard = "k == 0";
  sig.guard_why = "the ratio features are not finite";
  sig.guard_uses = {"k"};
  return sig;
}

}  // namespace ktune::kernels::gemm
