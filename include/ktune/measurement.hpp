#pragma once
// The outcome of one (device, family, problem, config) benchmark, as stored.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

// The T4 "invalidity" values: only ok measurements carry a time that counts.
enum class Status { ok, refused, failed, wrong, timeout };

std::string_view to_string(Status s);
Status parse_status(std::string_view text);  // throws Error for unknown text

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0, mad_ms = 0;  // mad: median absolute deviation
  int reps = 0;
  std::vector<double> samples_ms;
};

struct Outcome {
  Status status = Status::failed;
  TimingStats timing;
  double rel_error = -1;  // relative Frobenius-norm error vs the reference; -1 when not checked
  std::string message;    // error text for non-ok outcomes
};

struct Measurement {
  std::string device;  // slug
  std::string family;
  std::string problem;     // problem key
  std::string config;      // canonical config string, or the vendor name ("cublas", "openblas")
  int64_t config_id = -1;  // -1 for vendor pseudo-configs
  Outcome outcome;
  double perf = 0;  // higher is better: GFLOP/s for GEMM; 0 unless ok
  std::string created_at;
  // The foreign record this row was imported from, as JSON ({"t4": result, "timeunit": ...} or
  // {"kernel_tuner": cache entry}), kept so an export gives it back unchanged (every runtime,
  // compile/framework time, observable, timestamp and value type); empty for ktune's own rows.
  std::string source;
};

}  // namespace ktune
