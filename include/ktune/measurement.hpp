#pragma once
// The outcome of one (device, family, problem, config) benchmark, as stored.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ktune {

// The T4 "invalidity" values: only ok measurements carry a time that counts.
enum class Status { ok, refused, failed, wrong, timeout };
inline constexpr size_t kStatusCount = 5;  // Status values are 0 .. kStatusCount - 1

// Something counted per status (indexed by the status, not by a bare number).
template <typename T>
struct PerStatus {
  std::array<T, kStatusCount> values{};
  T& operator[](Status s) { return values[static_cast<size_t>(s)]; }
  const T& operator[](Status s) const { return values[static_cast<size_t>(s)]; }
};

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

// A refusal (the config does not apply to this problem or device) and why.
inline Outcome refused_outcome(std::string why) {
  Outcome out;
  out.status = Status::refused;
  out.message = std::move(why);
  return out;
}

struct Measurement {
  std::string device;  // slug
  std::string family;
  std::string problem;     // problem key
  std::string config;      // canonical config string, or the vendor name ("cublas", "openblas")
  int64_t config_id = -1;  // the config's id; -1 for vendor rows
  // A vendor library baseline rather than a config of the space. Stores, CSV and T4 files
  // encode it as config_id -1 (so older files read the same); code tests this flag.
  bool vendor = false;
  Outcome outcome;
  double perf = 0;  // higher is better: GFLOP/s for GEMM; 0 unless ok
  std::string created_at;
  // The foreign record this row was imported from, as JSON ({"t4": result, "timeunit": ...} or
  // {"kernel_tuner": cache entry}), kept so an export gives it back unchanged (every runtime,
  // compile/framework time, observable, timestamp and value type); empty for ktune's own rows.
  std::string source;
  // The problem's tags (e.g. the networks of a workload that use it), stored per (family,
  // problem) beside the measurements; the dataset's problem groups come from them.
  std::vector<std::string> tags;
};

// The stored form of config_id and the vendor flag (stores, CSV and T4 files): -1 for vendors.
inline int64_t stored_config_id(const Measurement& m) { return m.vendor ? -1 : m.config_id; }
inline void set_stored_config_id(Measurement& m, int64_t stored) {
  m.config_id = stored;
  m.vendor = stored < 0;
}

}  // namespace ktune
