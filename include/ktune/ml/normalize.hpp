#pragma once
// Per-problem normalizations of a dataset's performance matrix. Every one starts from the
// scaled value (perf ÷ best valid perf of the row); invalid entries are 0 after all of them.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"

namespace ktune::ml {

enum class Norm {
  scale,      // perf / best valid perf of the row
  cutoff,     // scale; < 0.9 -> 0; [0.9, 1] rescaled linearly to [0, 1]
  rawcutoff,  // scale; < 0.9 -> 0; the rest kept as is
  sigmoid,    // 1 / (1 + exp(50 (0.85 - scale)))
};

Norm parse_norm(const std::string& text);  // throws Error naming the text
std::string to_string(Norm norm);
std::vector<std::string> norm_names();

// rows × configs; invalid entries are 0 and a row without any valid entry is all zeros. An
// unmeasured entry takes its config's mean normalized value over the rows where that config was
// measured (0 when measured nowhere): a neutral guess for the clustering pruners, not a refusal.
Eigen::MatrixXd normalize(const Dataset& data, Norm norm);

}  // namespace ktune::ml
