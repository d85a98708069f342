#pragma once
// Workloads: a family's built-in ones (Family::builtin_workloads) and CSV files whose header
// names the family's features (or their Family::feature_aliases).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/problem.hpp"

namespace ktune {

// The built-in workload names of a registered family (empty for an unknown family).
std::vector<std::string> builtin_workload_names(const std::string& family);
// A builtin name or a path to a CSV file whose header names the family's features.
// Throws Error naming the file and line for malformed input.
Workload load_workload(const Family& family, const std::string& name_or_path);

// Problems of workload CSV text (blank lines and lines starting with '#' skipped); source names
// the text in errors ("file:line: ..."). For families that build their built-in workloads.
std::vector<Problem> parse_workload_csv(const Family& family, std::string_view text,
                                        const std::string& source);
// Distinct problems in first-seen order, each tagged with the names of the parts it is in.
std::vector<Problem> merge_tagged(
    const std::vector<std::pair<std::string, std::vector<Problem>>>& parts);

}  // namespace ktune
