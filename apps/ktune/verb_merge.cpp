// ktune merge OUT IN...: combines stores (the shards of a Slurm job array, or sweeps of several
// devices) into one; see include/ktune/store_merge.hpp for what it refuses and why it is kill-safe.
#include <fmt/format.h>

#include <memory>

#include "apps/ktune/verb.hpp"
#include "ktune/store_merge.hpp"

namespace ktune::cli {
namespace {

struct MergeArgs {
  std::string out;
  std::vector<std::string> inputs;
};

Action setup_merge(CLI::App& sub) {
  auto a = std::make_shared<MergeArgs>();
  sub.add_option("out", a->out, "Store to merge into (created when absent)")->required();
  sub.add_option("inputs", a->inputs, "Stores to merge (read only)")->required();
  return [a] {
    const MergeSummary s = merge_stores(a->out, a->inputs);
    fmt::print("merged {} stores into {}: {} measurements read, {} added, {} already there\n",
               a->inputs.size(), a->out, s.read, s.added, s.duplicates);
    return 0;
  };
}

const bool verb_merge_registered = add_verb(
    "merge", "Combine stores (shards, devices) into one; refuses mismatched code or spaces",
    setup_merge);

}  // namespace
}  // namespace ktune::cli
