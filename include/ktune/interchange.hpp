#pragma once
// Export and import of measurements: ktune's own long CSV (one row per measurement) and the
// autotuning community's T4 results JSON, so Kernel Tuner / KTT users can read ktune data and
// ktune can learn from theirs. Both round-trip every stored field exactly; see docs/interchange.md.
#include <string>
#include <string_view>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune {

// The CSV header, in order.
inline constexpr std::string_view kMeasurementCsvHeader =
    "device,family,problem,config,config_id,status,median_ms,min_ms,max_ms,mad_ms,reps,perf,"
    "rel_error,message,created_at";

// RFC 4180 quoting; doubles printed with %.17g so they read back bit-identical. A path ending
// in ".gz" is gzip-compressed; "-" is stdout. Timing samples are not part of the CSV.
void write_measurements_csv(const std::vector<Measurement>& ms, const std::string& path);
std::string format_measurements_csv(const std::vector<Measurement>& ms);

// Reads a file written by write_measurements_csv (gzip or plain, "-" = stdin). Throws Error
// naming file:line for a wrong header, a wrong field count, an unparsable number or status,
// or an unterminated quote.
std::vector<Measurement> read_measurements_csv(const std::string& path);
std::vector<Measurement> parse_measurements_csv(std::string_view text, const std::string& source);

// How foreign T4 files (those without ktune's own fields) are labelled on import. An empty
// device/family is derived from the file's metadata or, failing that, from a file name of the
// form <kernel>_<device>_T4.json[.gz] as used by the public tuning datasets; an empty problem
// becomes "problem=0". When set, device/family/problem also override ktune's own fields.
struct T4ImportOptions {
  std::string device;
  std::string family;
  std::string problem;
};

// One T4 results document ({"schema_version", "metadata", "results": [...]}) holding every
// measurement; each result carries its device/family/problem and the whole ktune row in an
// extra "ktune" object, which T4 allows and other readers ignore. ".gz" → gzip, "-" = stdout.
// Throws Error for a non-finite number (JSON cannot hold it).
void write_t4(const std::vector<Measurement>& ms, const std::string& path);
std::string format_t4(const std::vector<Measurement>& ms);

// Reads a T4 results file (.json or .json.gz). Results with a "ktune" object come back exactly
// as written; foreign results get statistics computed from their runtimes, perf = 1/median_ms
// (T4 times are lower-is-better), and config_id = the index of their configuration in
// first-seen order. Throws Error naming the file (and result index) for malformed input.
std::vector<Measurement> read_t4(const std::string& path, const T4ImportOptions& options = {});
std::vector<Measurement> parse_t4(std::string_view text, const std::string& source,
                                  const T4ImportOptions& options = {});

}  // namespace ktune
