#pragma once
// Export and import of measurements: ktune's own long CSV (one row per measurement) and the
// autotuning community's T4 results JSON, so Kernel Tuner / KTT users can read ktune data and
// ktune can learn from theirs. Both round-trip every stored field exactly; see docs/interchange.md.
#include <string>
#include <string_view>
#include <vector>

#include "ktune/device.hpp"
#include "ktune/measurement.hpp"

namespace ktune {

// The CSV header, in order. tags: the problem's tags joined by ';'. Files written before the
// tags column (the same header without it) are still read, without tags.
inline constexpr std::string_view kMeasurementCsvHeader =
    "device,family,problem,config,config_id,status,median_ms,min_ms,max_ms,mad_ms,reps,perf,"
    "rel_error,message,created_at,tags";

// RFC 4180 quoting; doubles printed with %.17g so they read back bit-identical. A path ending
// in ".gz" is gzip-compressed; "-" is stdout. Timing samples are not part of the CSV.
void write_measurements_csv(const std::vector<Measurement>& ms, const std::string& path);
std::string format_measurements_csv(const std::vector<Measurement>& ms);

// Reads a file written by write_measurements_csv (gzip or plain, "-" = stdin). Throws Error
// naming file:line for a wrong header, a wrong field count, an unparsable number or status,
// or an unterminated quote.
std::vector<Measurement> read_measurements_csv(const std::string& path);
std::vector<Measurement> parse_measurements_csv(std::string_view text, const std::string& source);

// Which measured quantity ranks the configs of foreign tuning data (T4, Kernel Tuner).
struct ImportObjective {
  std::string name;   // empty: the objective the file declares, else "time"
  int direction = 0;  // +1 higher is better, -1 lower is better, 0: Kernel Tuner's default
};                    // for the name (time/energy/cost/loss lower; fitness, GFLOP/s, ... higher)

// True when the objective is higher-is-better; throws Error for an unknown name without a
// direction (Kernel Tuner refuses those too).
bool objective_higher_is_better(const std::string& name, int direction);

// How foreign T4 files (those without ktune's own fields) are labelled on import. An empty
// device/family comes from the file's metadata (device / device_name / the nvidia-smi product
// name; kernel_name / kernel / family), never from the file name; an empty problem becomes
// "problem=0". When set, device/family/problem also override ktune's own fields, unless
// fallback_labels is set (then they only label results that have no label of their own).
struct T4ImportOptions {
  std::string device;
  std::string family;
  std::string problem;
  ImportObjective objective;
  bool fallback_labels = false;
};

// One T4 results document ({"schema_version", "metadata", "results": [...]}) holding every
// measurement; each result carries its device/family/problem and the whole ktune row in an
// extra "ktune" object, which T4 allows and other readers ignore. ".gz" → gzip, "-" = stdout.
// Throws Error for a non-finite number (JSON cannot hold it).
void write_t4(const std::vector<Measurement>& ms, const std::string& path);
std::string format_t4(const std::vector<Measurement>& ms);

// Reads a T4 results file (.json or .json.gz). Results with a "ktune" object come back exactly
// as written; foreign results get statistics computed from their runtimes and perf from their
// declared objective (time: 1/median of the runtimes), config_id = the index of their
// configuration in first-seen order, and keep the whole result in Measurement::source, so a
// later T4 export gives it back unchanged. Throws Error naming the file (and result index) for
// malformed input, including JSON nested deeper than kMaxJsonDepth and numbers out of range.
std::vector<Measurement> read_t4(const std::string& path, const T4ImportOptions& options = {});
std::vector<Measurement> parse_t4(std::string_view text, const std::string& source,
                                  const T4ImportOptions& options = {});

// Kernel Tuner cache files (tune_kernel(cache=...)): {"device_name", "kernel_name",
// "problem_size", "tune_params_keys", "tune_params", "objective", "cache": {"x1,x2": entry}},
// also when left unclosed by an interrupted run. An entry holds the parameters, "time" (ms),
// "times", compile/benchmark/framework/strategy/verification times, a timestamp and any other
// observable; a failed one holds the marker "InvalidConfig" (→ refused),
// "CompilationFailedConfig" or "RuntimeFailedConfig" (→ failed) in place of a value or in
// "__error__". device/family default to the file's device_name/kernel_name (slugified), the
// problem to problem_size ("problem_size=N", or size_x/size_y/size_z for a list).
struct KernelTunerImportOptions {
  std::string device;
  std::string family;
  std::string problem;
  ImportObjective objective;  // empty name: the file's "objective", else "time"
};
std::vector<Measurement> read_kernel_tuner(const std::string& path,
                                           const KernelTunerImportOptions& options = {});
std::vector<Measurement> parse_kernel_tuner(std::string_view text, const std::string& source,
                                            const KernelTunerImportOptions& options = {});

// The one path -> measurements loader: a store (.sqlite, .db; opened read-only and filtered by
// device and family when given), a CSV export (.csv, .csv.gz) or T4 results (.json, .json.gz).
// Throws Error naming the path when it does not exist, has another extension or holds no
// measurements (for CSV and T4, the caller filters). `devices`, when given, receives the device
// descriptions the file holds (a store's device table; CSV and T4 carry none).
std::vector<Measurement> load_measurements(const std::string& path, const std::string& device = "",
                                           const std::string& family = "",
                                           std::vector<DeviceInfo>* devices = nullptr);

}  // namespace ktune
