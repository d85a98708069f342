#pragma once
// `ktune eval --protocol stencil`: the work-group protocol of the stencil seed paper over one or
// more datasets (see include/ktune/ml/stencil_eval.hpp). verb_eval.cpp parses the options;
// verb_stencil_eval.cpp runs it.
#include <cstdint>
#include <string>
#include <vector>

namespace ktune::cli {

struct StencilEvalArgs {
  std::vector<std::string> data;  // each: store, CSV or T4; every device in it is used
  std::string device, family, markdown, csv, expert = "32x4";
  std::vector<std::string> splits, classifiers, regressors;  // empty = the protocol's defaults
  int folds = 10, threads = 0;
  uint64_t seed = 0;
};

int run_stencil_eval(const StencilEvalArgs& a);

}  // namespace ktune::cli
