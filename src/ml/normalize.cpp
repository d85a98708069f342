// Per-problem normalizations (see normalize.hpp).
#include "ktune/ml/normalize.hpp"

#include <fmt/format.h>

#include <cmath>

#include "ktune/enum_names.hpp"
#include "ktune/error.hpp"

namespace ktune::ml {

namespace {
constexpr EnumName<Norm> kNorms[] = {{Norm::scale, "scale"},
                                     {Norm::cutoff, "cutoff"},
                                     {Norm::rawcutoff, "rawcutoff"},
                                     {Norm::sigmoid, "sigmoid"}};
}  // namespace

std::vector<std::string> norm_names() { return enum_names(kNorms); }

Norm parse_norm(const std::string& text) {
  if (const auto norm = enum_value(kNorms, text)) return *norm;
  throw Error(fmt::format("unknown normalization '{}' (expected {})", text, enum_choices(kNorms)));
}

std::string to_string(Norm norm) { return enum_name(kNorms, norm, "scale"); }

namespace {

// An unmeasured cell takes its config's mean normalized value over the rows where that config
// was measured (0 when measured nowhere): a neutral guess, where a 0 would read as a refusal.
void impute_unmeasured(const Dataset& data, Eigen::MatrixXd& out) {
  if (data.unmeasured_count() == 0) return;
  for (Eigen::Index c = 0; c < data.cols(); ++c) {
    double sum = 0;
    Eigen::Index n = 0;
    for (Eigen::Index r = 0; r < data.rows(); ++r) {
      if (data.is_measured(r, c)) {
        sum += out(r, c);
        ++n;
      }
    }
    const double mean = n ? sum / double(n) : 0.0;
    for (Eigen::Index r = 0; r < data.rows(); ++r) {
      if (!data.is_measured(r, c)) out(r, c) = mean;
    }
  }
}

}  // namespace

Eigen::MatrixXd normalize(const Dataset& data, Norm norm) {
  constexpr double kCut = 0.9;
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(data.rows(), data.cols());
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    double best = 0;
    for (Eigen::Index c = 0; c < data.cols(); ++c) {
      if (data.valid(r, c)) best = std::max(best, data.perf(r, c));
    }
    if (!(best > 0)) continue;  // no valid entry: the row stays zero
    for (Eigen::Index c = 0; c < data.cols(); ++c) {
      if (!data.valid(r, c)) continue;
      const double x = data.perf(r, c) / best;
      double y = x;
      switch (norm) {
        case Norm::scale:
          break;
        case Norm::cutoff:
          y = x < kCut ? 0.0 : (x - kCut) / (1.0 - kCut);
          break;
        case Norm::rawcutoff:
          y = x < kCut ? 0.0 : x;
          break;
        case Norm::sigmoid:
          y = 1.0 / (1.0 + std::exp(50.0 * (0.85 - x)));
          break;
      }
      out(r, c) = y;
    }
  }
  impute_unmeasured(data, out);
  return out;
}

}  // namespace ktune::ml
