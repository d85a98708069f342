#pragma once
// The run-time part of a deployed file family's library, copied into the package by
// `ktune deploy` (docs/own-kernels.md, "Deploy"): the problem file's expressions (the scalar
// arguments' values, the launch sizes) evaluated by muparser with Python's spellings, as ktune
// evaluated them when it measured, and the pick of a shipped config whose launch sizes fit the
// problem (the selector's, else the next in its safe order), as the sweep refused the others.
#include <muParser.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "python_spellings.hpp"

namespace ktune_tuned_runtime {

// Expressions over named variables; each parsed once, evaluated per call.
class Expressions {
 public:
  Expressions(const std::vector<std::string>& variables, const std::vector<std::string>& texts)
      : slots_(variables.size(), 1.0), parsers_(texts.size()), values_(texts.size()) {
    for (size_t e = 0; e < texts.size(); ++e) {
      try {
        ktune_python_spellings::add_python_spellings(parsers_[e]);
        for (size_t i = 0; i < variables.size(); ++i)
          parsers_[e].DefineVar(variables[i], &slots_[i]);
        parsers_[e].SetExpr(texts[e]);
      } catch (const mu::Parser::exception_type& x) {
        throw std::invalid_argument("'" + texts[e] + "': " + x.GetMsg());
      }
    }
  }
  Expressions(const Expressions&) = delete;  // the parsers hold the addresses of slots_
  Expressions& operator=(const Expressions&) = delete;

  // Every expression's value for `values` (the constructor's variables, in order).
  const std::vector<double>& eval(const std::vector<double>& values) {
    for (size_t i = 0; i < slots_.size(); ++i) slots_[i] = values[i];
    for (size_t e = 0; e < parsers_.size(); ++e) {
      try {
        values_[e] = parsers_[e].Eval();
      } catch (const mu::Parser::exception_type& x) {
        throw std::invalid_argument("'" + x.GetExpr() + "': " + x.GetMsg());
      }
    }
    return values_;
  }

 private:
  std::vector<double> slots_;
  std::vector<mu::Parser> parsers_;
  std::vector<double> values_;
};

// One family of the library: its features, its launch sizes over the features and a config's
// numeric parameters, its scalar arguments over the features, and each shipped config's
// parameters. Not thread-safe: the library keeps one per thread.
class Family {
 public:
  Family(std::string name, std::vector<std::string> features,
         const std::vector<std::string>& launch_variables,
         const std::vector<std::string>& launch_sizes,
         const std::vector<std::string>& scalar_values, std::vector<std::vector<double>> params,
         bool global_in_threads)
      : name_(std::move(name)),
        features_(std::move(features)),
        launch_(launch_variables, launch_sizes),
        scalars_(features_, scalar_values),
        params_(std::move(params)),
        global_in_threads_(global_in_threads) {}

  // `first` if its launch sizes fit the problem, else the first of safe_order that fits;
  // sizes() then holds its grid (in blocks) and block. Throws std::invalid_argument for a
  // feature that is not finite or when none fits.
  int pick(int first, const int* safe_order, const std::vector<double>& features) {
    for (size_t i = 0; i < features.size(); ++i)
      if (!std::isfinite(features[i]))
        throw std::invalid_argument(name_ + ": feature " + features_[i] + " is not finite");
    std::string why;
    const int count = int(params_.size());
    for (int attempt = -1; attempt < count; ++attempt) {
      const int c = attempt < 0 ? first : safe_order[attempt];
      if (c < 0 || c >= count || (attempt >= 0 && c == first)) continue;
      std::vector<double> vars = features;
      vars.insert(vars.end(), params_[size_t(c)].begin(), params_[size_t(c)].end());
      const std::string refusal = fit(launch_.eval(vars));
      if (refusal.empty()) return c;
      if (why.empty()) why = refusal;
    }
    throw std::invalid_argument(name_ + ": no shipped config can launch on the problem (" + why +
                                ")");
  }
  const unsigned* sizes() const { return sizes_; }
  const std::vector<double>& scalars(const std::vector<double>& features) {
    return scalars_.eval(features);
  }

 private:
  // Why the sizes cannot launch ("" when they can), as the sweep refused such a config.
  std::string fit(const std::vector<double>& s) {
    const char* axis = "XYZ";
    for (size_t i = 0; i < 6; ++i) {
      if (!(s[i] >= 1 && s[i] <= 2147483647.0 && std::floor(s[i]) == s[i]))
        return std::string(i < 3 ? "GlobalSize." : "LocalSize.") + axis[i % 3] + " = " +
               std::to_string(s[i]) + " is not a whole positive count";
      sizes_[i] = unsigned(s[i]);
    }
    for (size_t d = 0; global_in_threads_ && d < 3; ++d) {
      if (sizes_[d] % sizes_[d + 3] != 0)
        return std::string("GlobalSize.") + axis[d] + " is not a multiple of LocalSize." + axis[d];
      sizes_[d] /= sizes_[d + 3];
    }
    return "";
  }

  std::string name_;
  std::vector<std::string> features_;
  Expressions launch_, scalars_;
  std::vector<std::vector<double>> params_;
  bool global_in_threads_;
  unsigned sizes_[6] = {};
};

}  // namespace ktune_tuned_runtime
