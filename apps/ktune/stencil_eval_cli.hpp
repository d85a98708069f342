#pragma once
// `ktune eval --protocol stencil`: the every-config protocol (include/ktune/ml/protocol.hpp) with
// the splits, expert config and reference figures of the stencil seed paper (Cummins et al.,
// "Autotuning OpenCL Workgroup Size for Stencil Patterns"), over one or more datasets. The
// stencil knowledge lives here, in the CLI: which problem features make its groups (program 0 =
// synthetic; the real programs; the (rows, cols) sizes). verb_eval.cpp parses the options;
// verb_stencil_eval.cpp runs it; stencil_report.cpp writes it.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "ktune/ml/protocol.hpp"

namespace ktune::cli {

struct StencilEvalArgs {
  std::vector<std::string> data;  // each: store, CSV or T4; every device in it is used
  std::string device, family, markdown, csv, expert = "32x4";
  std::vector<std::string> splits, classifiers, regressors;  // empty = the protocol's defaults
  int folds = 10, threads = 0;
  uint64_t seed = 0;
};

int run_stencil_eval(const StencilEvalArgs& a);

// The paper's splits by name: cv<k> (seeded k-fold), synthetic-real (train on program == 0, test
// on the rest), device (leave one device out; skipped with a note when there is one device),
// program (leave each real program out; training keeps the synthetic ones and the other
// programs), size (leave each (rows, cols) out). Unknown names and splits that cannot be made are
// Errors naming the split.
std::vector<ml::SplitFolds> stencil_splits(const ml::MergedData& d,
                                           const std::vector<std::string>& names, int folds,
                                           uint64_t seed, std::vector<std::string>& notes);

// CSV columns, exactly: method,model,fallback,split,pct_of_oracle,median_speedup_vs_baseline,
// mean_speedup_vs_baseline,median_speedup_vs_expert,accuracy,validity,refused_rate,predict_ns
void write_stencil_csv(const ml::ProtocolResult& r, std::ostream& out);
// Per split a table of every method, the distribution of % of oracle (quartiles) for the best
// ones, and the seed paper's headline figures beside ours.
void write_stencil_markdown(const ml::ProtocolResult& r, std::ostream& out);

}  // namespace ktune::cli
