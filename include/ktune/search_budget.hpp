#pragma once
// How much a search measures (search.hpp); apart from the search state so that the sweep's
// options (bench.hpp) carry it without Eigen.
#include <cstdint>
#include <string>

namespace ktune {

// Per-problem budget: a count and/or a fraction of the problem's candidates (the smaller
// applies); total: new measurements this run (0 = no limit).
struct SearchBudget {
  int64_t per_problem = 0;  // 0 = no count limit
  double fraction = 0;      // (0, 1]; 0 = no fraction limit
  int64_t total = 0;
  int64_t limit(int64_t candidates) const;
  // "43" or "5%" (of the space); throws Error naming the text.
  static SearchBudget parse(const std::string& per_problem, int64_t total = 0);
};

}  // namespace ktune
