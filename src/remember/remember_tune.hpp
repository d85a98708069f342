#pragma once
// The first call of a shape: its candidates timed with the measurement protocol's repetition
// rule (ktune/timing_loop.hpp) within a budget, and the winner.
#include <functional>
#include <string>
#include <vector>

#include "ktune/remember.hpp"

namespace ktune::remember {

// Times candidates[0 .. n) in order (time_run(i) runs config i once and returns its
// milliseconds), each with the sweep's policy (1 warm-up, 3 to 30 runs, 20 ms) cut to its share of
// what is left of budget_ms, spent on the wall clock; no run starts once the budget is spent, so
// the cost is at most the budget plus one run. A candidate with no timed run (budget spent, or
// time_run threw) is left out; Abort is rethrown. Each result has config and the times set.
std::vector<RememberedTiming> time_candidates(const Library& lib, const int* candidates, int n,
                                              const std::function<double(int)>& time_run,
                                              double budget_ms);

// The fastest by median; equal medians go to the smaller config string (its stable id).
const RememberedTiming& winner_of(const std::vector<RememberedTiming>& timings);

}  // namespace ktune::remember
