#pragma once
// A problem is one input instance described by ordered named numeric features; its key is the
// canonical "name=value;..." string stored in the tuning database.
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct Problem {
  std::vector<std::string> names;
  std::vector<double> values;
  std::vector<std::string> tags;  // provenance, e.g. the networks a GEMM shape comes from

  std::string key() const;
  double get(std::string_view name) const;  // throws Error when the feature is absent
  static Problem parse(std::string_view key);
};

struct Workload {
  std::string name;
  std::vector<Problem> problems;
};

}  // namespace ktune
