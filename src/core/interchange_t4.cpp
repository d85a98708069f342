// T4 results JSON (the autotuning community's schema, as written by Kernel Tuner): export of
// ktune measurements and import of ktune's own and foreign T4 files.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "ktune/device.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"
#include "ktune/timing.hpp"

namespace ktune {

namespace {

using Json = nlohmann::ordered_json;  // keeps parameter order, which the config string needs

constexpr const char* kSchemaVersion = "1.0.0";

// --- status <-> T4 invalidity -------------------------------------------------------------

bool mentions_compile(const std::string& message) {
  std::string lower(message);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("compil") != std::string::npos;
}

std::string invalidity_of(const Measurement& m) {
  switch (m.outcome.status) {
    case Status::ok:
      return "correct";
    case Status::wrong:
      return "correctness";
    case Status::failed:
      return mentions_compile(m.outcome.message) ? "compile" : "runtime";
    case Status::refused:
      return "constraints";
    case Status::timeout:
      return "timeout";
  }
  return "runtime";
}

Status status_of_invalidity(const std::string& invalidity, const std::string& where) {
  if (invalidity == "correct") return Status::ok;
  if (invalidity == "correctness") return Status::wrong;
  if (invalidity == "compile" || invalidity == "runtime") return Status::failed;
  if (invalidity == "constraints") return Status::refused;
  if (invalidity == "timeout") return Status::timeout;
  throw Error(
      fmt::format("{}: unknown invalidity '{}' (expected correct, correctness, compile, "
                  "runtime, constraints or timeout)",
                  where, invalidity));
}

// Kernel Tuner puts these strings in place of the objective value of a failed configuration;
// T4 readers such as autotuning_methodology recognise exactly these.
const char* error_marker(const std::string& invalidity) {
  if (invalidity == "compile") return "CompilationFailedConfig";
  if (invalidity == "constraints") return "InvalidConfig";
  return "RuntimeFailedConfig";
}

// --- config string <-> configuration object ----------------------------------------------

// A value becomes a JSON number only when printing that number gives back the same text, so
// the configuration object converts back to the identical config string.
Json json_value(const std::string& text) {
  int64_t i = 0;
  auto [iend, iec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (!text.empty() && iec == std::errc() && iend == text.data() + text.size() &&
      std::to_string(i) == text)
    return i;
  double d = 0;
  auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (!text.empty() && dec == std::errc() && dend == text.data() + text.size() &&
      std::isfinite(d) && text.find_first_of("eE") == std::string::npos) {
    char buf[64];
    auto [pend, pec] = std::to_chars(buf, buf + sizeof buf, d);
    if (pec == std::errc() && std::string(buf, pend) == text) return d;
  }
  return text;
}

std::string text_of(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 1e15)  // 16.0 is the parameter value 16
      return std::to_string(static_cast<int64_t>(d));
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, end);
  }
  return v.dump();  // bool, null, arrays: their JSON spelling
}

Json configuration_of(const std::string& config) {
  Json obj = Json::object();
  size_t start = 0;
  while (start <= config.size()) {
    size_t end = config.find(';', start);
    if (end == std::string::npos) end = config.size();
    const std::string part = config.substr(start, end - start);
    const size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0) {
      // Vendor pseudo-configs ("cublas") are not name=value lists.
      return Json{{"vendor", config}};
    }
    obj[part.substr(0, eq)] = json_value(part.substr(eq + 1));
    start = end + 1;
  }
  return obj;
}

std::string config_of(const Json& configuration, const std::string& where) {
  if (!configuration.is_object() || configuration.empty())
    throw Error(fmt::format("{}: configuration must be a non-empty object", where));
  std::string out;
  for (const auto& [name, value] : configuration.items()) {
    if (!out.empty()) out += ';';
    out += name + "=" + text_of(value);
  }
  return out;
}

// --- export -------------------------------------------------------------------------------

double finite(double v, const Measurement& m, const char* field) {
  if (!std::isfinite(v))
    throw Error(fmt::format("cannot write {} = {} of {} {} {} '{}' to T4: JSON has no such number",
                            field, v, m.device, m.family, m.problem, m.config));
  return v;
}

Json result_of(const Measurement& m) {
  const Outcome& o = m.outcome;
  const TimingStats& t = o.timing;
  const std::string invalidity = invalidity_of(m);
  Json runtimes = Json::array();
  for (double s : t.samples_ms) runtimes.push_back(finite(s, m, "a timing sample"));

  Json measurements = Json::array();
  if (o.status == Status::ok) {
    measurements.push_back({{"name", "time"}, {"value", t.median_ms}, {"unit", "ms"}});
    measurements.push_back({{"name", "perf"}, {"value", m.perf}, {"unit", ""}});
    if (o.rel_error >= 0)
      measurements.push_back({{"name", "rel_error"}, {"value", o.rel_error}, {"unit", ""}});
  } else {
    measurements.push_back({{"name", "time"}, {"value", error_marker(invalidity)}, {"unit", "ms"}});
  }

  Json ktune = {{"device", m.device},
                {"family", m.family},
                {"problem", m.problem},
                {"config", m.config},
                {"config_id", m.config_id},
                {"status", std::string(to_string(o.status))},
                {"median_ms", finite(t.median_ms, m, "median_ms")},
                {"min_ms", finite(t.min_ms, m, "min_ms")},
                {"max_ms", finite(t.max_ms, m, "max_ms")},
                {"mad_ms", finite(t.mad_ms, m, "mad_ms")},
                {"reps", t.reps},
                {"perf", finite(m.perf, m, "perf")},
                {"rel_error", finite(o.rel_error, m, "rel_error")},
                {"message", o.message}};

  return {{"timestamp", m.created_at},
          {"configuration", configuration_of(m.config)},
          {"times", {{"runtimes", std::move(runtimes)}}},
          {"invalidity", invalidity},
          {"correctness", o.status == Status::ok ? 1 : 0},
          {"measurements", std::move(measurements)},
          {"objectives", Json::array({"time"})},
          {"ktune", std::move(ktune)}};
}

// --- import -------------------------------------------------------------------------------

double ms_per_unit(const Json& metadata, const std::string& source) {
  if (!metadata.is_object() || !metadata.contains("timeunit")) return 1.0;  // Kernel Tuner: ms
  const Json& unit = metadata["timeunit"];
  const std::string u = unit.is_string() ? unit.get<std::string>() : unit.dump();
  // "miliseconds" is how the public datasets spell it.
  if (u == "milliseconds" || u == "miliseconds" || u == "ms") return 1.0;
  if (u == "seconds" || u == "s") return 1e3;
  if (u == "microseconds" || u == "us") return 1e-3;
  if (u == "nanoseconds" || u == "ns") return 1e-6;
  throw Error(fmt::format("{}: unknown metadata.timeunit '{}'", source, u));
}

std::string metadata_device(const Json& metadata) {
  if (!metadata.is_object()) return "";
  if (metadata.contains("device") && metadata["device"].is_string())
    return metadata["device"].get<std::string>();
  const Json::json_pointer gpu("/environment/device_query/nvidia-smi/nvidia_smi_log/gpu");
  if (metadata.contains(gpu)) {
    const Json& g = metadata[gpu].is_array() ? metadata[gpu].front() : metadata[gpu];
    if (g.is_object() && g.contains("product_name") && g["product_name"].is_string())
      return g["product_name"].get<std::string>();
  }
  return "";
}

std::string metadata_family(const Json& metadata) {
  for (const char* key : {"kernel_name", "kernel", "family"})
    if (metadata.is_object() && metadata.contains(key) && metadata[key].is_string())
      return metadata[key].get<std::string>();
  return "";
}

// Public tuning datasets name their files <kernel>_<device>_T4.json[.gz].
std::pair<std::string, std::string> kernel_and_device_from_name(const std::string& source) {
  std::string stem = std::filesystem::path(source).filename().string();
  for (const char* ext : {".gz", ".json"})
    if (stem.size() > std::strlen(ext) && stem.ends_with(ext))
      stem.resize(stem.size() - std::strlen(ext));
  if (!stem.ends_with("_T4") && !stem.ends_with("_t4")) return {};
  stem.resize(stem.size() - 3);
  const size_t cut = stem.rfind('_');
  if (cut == std::string::npos || cut == 0 || cut + 1 == stem.size()) return {};
  return {stem.substr(0, cut), stem.substr(cut + 1)};
}

struct ForeignLabels {
  std::string device, family, problem;
  double ms_per_unit = 1.0;
  std::map<std::string, int64_t> config_ids;  // first-seen order
};

ForeignLabels foreign_labels(const Json& doc, const std::string& source,
                             const T4ImportOptions& options) {
  const Json metadata = doc.contains("metadata") ? doc["metadata"] : Json::object();
  auto [name_kernel, name_device] = kernel_and_device_from_name(source);
  ForeignLabels l;
  l.ms_per_unit = ms_per_unit(metadata, source);
  l.device = !options.device.empty() ? options.device : slugify(metadata_device(metadata));
  if (l.device.empty()) l.device = slugify(name_device);
  l.family = !options.family.empty() ? options.family : slugify(metadata_family(metadata));
  if (l.family.empty()) l.family = slugify(name_kernel);
  l.problem = options.problem.empty() ? "problem=0" : options.problem;
  return l;
}

void require_labels(const ForeignLabels& l, const std::string& source) {
  if (l.device.empty())
    throw Error(
        fmt::format("{}: cannot tell the device from its metadata or name; pass --device", source));
  if (l.family.empty())
    throw Error(
        fmt::format("{}: cannot tell the kernel family from its metadata or name; pass "
                    "--family",
                    source));
}

std::vector<double> runtimes_of(const Json& r, double scale) {
  std::vector<double> out;
  if (!r["times"].is_object() || !r["times"].contains("runtimes")) return out;
  for (const Json& v : r["times"]["runtimes"]) out.push_back(v.get<double>() * scale);
  return out;
}

Measurement ktune_measurement(const Json& r, const T4ImportOptions& options, double scale) {
  const Json& k = r["ktune"];
  Measurement m;
  m.device = options.device.empty() ? k.at("device").get<std::string>() : options.device;
  m.family = options.family.empty() ? k.at("family").get<std::string>() : options.family;
  m.problem = options.problem.empty() ? k.at("problem").get<std::string>() : options.problem;
  m.config = k.at("config").get<std::string>();
  m.config_id = k.at("config_id").get<int64_t>();
  m.outcome.status = parse_status(k.at("status").get<std::string>());
  TimingStats& t = m.outcome.timing;
  t.median_ms = k.at("median_ms").get<double>();
  t.min_ms = k.at("min_ms").get<double>();
  t.max_ms = k.at("max_ms").get<double>();
  t.mad_ms = k.at("mad_ms").get<double>();
  t.reps = k.at("reps").get<int>();
  t.samples_ms = runtimes_of(r, scale);
  m.perf = k.at("perf").get<double>();
  m.outcome.rel_error = k.at("rel_error").get<double>();
  m.outcome.message = k.at("message").get<std::string>();
  m.created_at = r.contains("timestamp") ? r["timestamp"].get<std::string>() : "";
  return m;
}

double objective_time(const Json& r) {
  if (!r.contains("measurements")) return NAN;
  for (const Json& x : r["measurements"])
    if (x.is_object() && x.value("name", "") == "time" && x.contains("value") &&
        x["value"].is_number())
      return x["value"].get<double>();
  return NAN;
}

Measurement foreign_measurement(const Json& r, ForeignLabels& l, const std::string& where) {
  require_labels(l, where);
  Measurement m;
  m.device = l.device;
  m.family = l.family;
  m.problem = l.problem;
  m.config = config_of(r.at("configuration"), where);
  auto [it, added] = l.config_ids.emplace(m.config, static_cast<int64_t>(l.config_ids.size()));
  m.config_id = it->second;
  const std::string invalidity = r.at("invalidity").get<std::string>();
  m.outcome.status = status_of_invalidity(invalidity, where);
  m.created_at = r.contains("timestamp") ? r["timestamp"].get<std::string>() : "";
  std::vector<double> samples = runtimes_of(r, l.ms_per_unit);
  if (m.outcome.status != Status::ok) {
    m.outcome.message = fmt::format("T4 invalidity '{}'", invalidity);
    if (!samples.empty()) m.outcome.timing = summarize(std::move(samples));
    return m;
  }
  if (!samples.empty()) {
    m.outcome.timing = summarize(std::move(samples));
  } else {
    const double t = objective_time(r) * l.ms_per_unit;
    if (!std::isfinite(t))
      throw Error(fmt::format("{}: a correct result without runtimes or a numeric time", where));
    m.outcome.timing = summarize({t});
  }
  const double median = m.outcome.timing.median_ms;
  if (!(median > 0) || !std::isfinite(median))
    throw Error(fmt::format("{}: median time {} ms is not positive", where, median));
  m.perf = 1.0 / median;  // T4 times are lower-is-better; ktune perf is higher-is-better
  return m;
}

void read_document(const Json& doc, const std::string& source, const T4ImportOptions& options,
                   std::vector<Measurement>& out) {
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
    throw Error(fmt::format("{}: not a T4 results document (no \"results\" array)", source));
  ForeignLabels labels = foreign_labels(doc, source, options);
  const Json& results = doc["results"];
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string where = fmt::format("{}: results[{}]", source, i);
    const Json& r = results[i];
    try {
      if (!r.is_object()) throw Error(fmt::format("{}: not an object", where));
      if (r.contains("ktune"))
        out.push_back(ktune_measurement(r, options, labels.ms_per_unit));
      else
        out.push_back(foreign_measurement(r, labels, where));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: {}", where, e.what()));
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.starts_with(source)) throw;
      throw Error(fmt::format("{}: {}", where, what));
    }
  }
}

}  // namespace

std::string format_t4(const std::vector<Measurement>& ms) {
  // One result per line: diffable, and the file streams out without one huge JSON tree.
  Json metadata = {{"timeunit", "milliseconds"}, {"generator", "ktune"}};
  std::string out = fmt::format("{{\"schema_version\":\"{}\",\"metadata\":{},\"results\":[",
                                kSchemaVersion, metadata.dump());
  for (size_t i = 0; i < ms.size(); ++i) {
    out += i ? ",\n" : "\n";
    out += result_of(ms[i]).dump();
  }
  out += "\n]}\n";
  return out;
}

void write_t4(const std::vector<Measurement>& ms, const std::string& path) {
  write_text_file(path, format_t4(ms));
}

std::vector<Measurement> parse_t4(std::string_view text, const std::string& source,
                                  const T4ImportOptions& options) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", source, e.what()));
  }
  std::vector<Measurement> out;
  if (doc.is_array()) {  // a list of T4 documents, e.g. one per problem
    for (const Json& d : doc) read_document(d, source, options, out);
  } else {
    read_document(doc, source, options, out);
  }
  return out;
}

std::vector<Measurement> read_t4(const std::string& path, const T4ImportOptions& options) {
  return parse_t4(read_text_file(path), path == "-" ? "<stdin>" : path, options);
}

}  // namespace ktune
