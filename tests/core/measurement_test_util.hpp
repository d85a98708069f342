#pragma once
// A stored row for the store and interchange tests, built in one place.
#include <cstdint>
#include <string>
#include <utility>

#include "ktune/measurement.hpp"

namespace ktune::testing {

// An ok measurement of config (id config_id) timed median_ms (min and max alike) over reps, its
// perf 1 / median_ms.
inline Measurement ok_measurement(std::string device, std::string family, std::string problem,
                                  std::string config, int64_t config_id, double median_ms,
                                  int reps) {
  Measurement m;
  m.device = std::move(device);
  m.family = std::move(family);
  m.problem = std::move(problem);
  m.config = std::move(config);
  m.config_id = config_id;
  m.outcome.status = Status::ok;
  m.outcome.timing.median_ms = m.outcome.timing.min_ms = m.outcome.timing.max_ms = median_ms;
  m.outcome.timing.reps = reps;
  m.perf = 1 / median_ms;
  return m;
}

}  // namespace ktune::testing
