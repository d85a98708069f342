#include "ktune/host_measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>

#include "ktune/error.hpp"

namespace ktune {

double last_level_cache_bytes(const DeviceInfo& cpu) {
  double llc = 32.0 * 1024 * 1024;
  for (const auto& [name, value] : cpu.features)
    if (name == "l3_bytes" || (name == "l2_bytes" && value > llc)) llc = value;
  return llc;
}

RunVerdict judge_error(double error, double bound) {
  RunVerdict v;
  v.ok = error <= bound;  // false for NaN
  v.rel_error = std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
  if (!v.ok) {
    v.message = std::isfinite(error)
                    ? fmt::format("relative error {:.3e} exceeds the bound {:.3e}", error, bound)
                    : "result holds NaN or Inf";
  }
  return v;
}

int rotation_copies(double bytes, double llc_bytes) {
  return int(std::min(8.0, std::max(1.0, std::ceil(2.0 * llc_bytes / bytes))));
}

Outcome verify_then_time_on_host(const std::function<RunVerdict()>& verify,
                                 const std::function<void(size_t copy)>& run, size_t copies,
                                 const TimingPolicy& policy) {
  // An unusable policy is the caller's error, not a config's failure.
  if (const std::string problem = timing_policy_problem(policy); !problem.empty())
    throw Error("timing policy: " + problem);
  Outcome out;
  try {
    const RunVerdict verdict = verify();
    out.rel_error = verdict.rel_error;
    if (!verdict.ok) {
      out.status = Status::wrong;
      out.message = verdict.message;
      return out;
    }
    size_t next = 0;
    Outcome timed = time_adaptive(
        [&] {
          const size_t copy = next++ % copies;
          const auto start = std::chrono::steady_clock::now();
          run(copy);
          const auto stop = std::chrono::steady_clock::now();
          return std::chrono::duration<double, std::milli>(stop - start).count();
        },
        policy);
    timed.rel_error = out.rel_error;
    return timed;
  } catch (const std::exception& e) {
    out.status = Status::failed;
    out.message = e.what();
  }
  return out;
}

}  // namespace ktune
