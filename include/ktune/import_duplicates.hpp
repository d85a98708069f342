#pragma once
// Several rows of one key in one imported file.
#include <cstddef>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune {

// Rows of one key (device, family, problem, config) in one input, e.g. two Kernel Tuner cache
// keys that spell the same parameters ("16" and "16.0"): the first is kept and the others'
// records are added to its Measurement::source under "duplicates" (their own source record, or
// their status and timing when they have none), so no measurement is lost silently and none is
// reported as "already stored". Returns how many rows were folded into an earlier one.
size_t fold_duplicate_keys(std::vector<Measurement>& ms);

}  // namespace ktune
