#pragma once
// A tune-and-remember cache file (ktune/remember.hpp) as measurements a store takes: every
// candidate a deployed library timed, so that its first calls feed the next training.
#include <string>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune::cli {

// Status ok rows with the cache's device, family, problem and times; a shipped config becomes
// its canonical string and id in the family's space, "vendor=<name>" the vendor row <name>;
// perf from the family's work. Throws Error naming the file for a file that is not a cache.
std::vector<Measurement> remembered_measurements(const std::string& cache);

}  // namespace ktune::cli
