// T4 results JSON (the autotuning community's schema, as written by Kernel Tuner): export of
// ktune measurements; rows imported from foreign T4 files give back their original result
// (interchange_t4_read.cpp reads both kinds).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include "interchange_json.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"

namespace ktune {

namespace {

using interchange::Json;
using interchange::member;

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
  // JSON's own spelling, as interchange::text_of gives it back: "0.0001" is a number.
  if (!text.empty() && dec == std::errc() && dend == text.data() + text.size() &&
      std::isfinite(d) && Json(d).dump() == text)
    return d;
  return text;
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

// --- export -------------------------------------------------------------------------------

double finite(double v, const Measurement& m, const char* field) {
  if (!std::isfinite(v))
    throw Error(fmt::format("cannot write {} = {} of {} {} {} '{}' to T4: JSON has no such number",
                            field, v, m.device, m.family, m.problem, m.config));
  return v;
}

// The time unit of the exported document: that of the foreign T4 files the rows came from
// when they all share one, so their results come back unchanged; else milliseconds.
Json document_unit(const std::vector<Json>& sources) {
  std::optional<Json> unit;
  for (const Json& s : sources) {
    const Json* u = member(s, "timeunit");
    if (!member(s, "t4") || !u || (unit && *unit != *u)) return "milliseconds";
    unit = *u;
  }
  return unit ? *unit : Json("milliseconds");
}

// A foreign result kept verbatim, its runtimes and time measurements rescaled only when the
// document's unit differs from the file it came from.
Json foreign_body(const Json& source, double doc_ms_per_unit) {
  Json body = source["t4"];
  const double factor =
      interchange::ms_per_unit(source.value("timeunit", Json("milliseconds")), "stored row") /
      doc_ms_per_unit;
  if (factor == 1.0 || !body.is_object()) return body;
  auto scale = [&](Json& v) {
    if (v.is_number()) v = v.get<double>() * factor;
  };
  if (body.contains("times") && body["times"].is_object() && body["times"].contains("runtimes") &&
      body["times"]["runtimes"].is_array())
    for (Json& v : body["times"]["runtimes"]) scale(v);
  if (body.contains("measurements") && body["measurements"].is_array())
    for (Json& x : body["measurements"])
      if (x.is_object() && x.value("name", "") == "time" && x.contains("value")) scale(x["value"]);
  return body;
}

Json result_of(const Measurement& m, const Json& source, double doc_ms_per_unit) {
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
                {"config_id", stored_config_id(m)},
                {"status", std::string(to_string(o.status))},
                {"median_ms", finite(t.median_ms, m, "median_ms")},
                {"min_ms", finite(t.min_ms, m, "min_ms")},
                {"max_ms", finite(t.max_ms, m, "max_ms")},
                {"mad_ms", finite(t.mad_ms, m, "mad_ms")},
                {"reps", t.reps},
                {"perf", finite(m.perf, m, "perf")},
                {"rel_error", finite(o.rel_error, m, "rel_error")},
                {"message", o.message}};
  if (!m.tags.empty()) ktune["tags"] = m.tags;
  if (member(source, "t4")) {  // a foreign T4 result: give it back as it came
    Json body = foreign_body(source, doc_ms_per_unit);
    ktune["foreign_t4"] = true;
    body["ktune"] = std::move(ktune);
    return body;
  }
  if (!source.is_null()) ktune["source"] = source;  // e.g. a Kernel Tuner cache entry

  return {{"timestamp", m.created_at},
          {"configuration", configuration_of(m.config)},
          {"times", {{"runtimes", std::move(runtimes)}}},
          {"invalidity", invalidity},
          {"correctness", o.status == Status::ok ? 1 : 0},
          {"measurements", std::move(measurements)},
          {"objectives", Json::array({"time"})},
          {"ktune", std::move(ktune)}};
}

}  // namespace

std::string format_t4(const std::vector<Measurement>& ms) {
  std::vector<Json> sources;
  sources.reserve(ms.size());
  for (const auto& m : ms) {
    const std::string where =
        fmt::format("the stored source of {} {} {} '{}'", m.device, m.family, m.problem, m.config);
    sources.push_back(m.source.empty() ? Json() : interchange::parse_json(m.source, where));
  }
  const Json unit = document_unit(sources);
  const double doc_ms_per_unit = interchange::ms_per_unit(unit, "export");
  // One result per line: diffable, and the file streams out without one huge JSON tree.
  Json metadata = {{"timeunit", unit}, {"generator", "ktune"}};
  std::string out = fmt::format("{{\"schema_version\":\"{}\",\"metadata\":{},\"results\":[",
                                kSchemaVersion, metadata.dump());
  for (size_t i = 0; i < ms.size(); ++i) {
    out += i ? ",\n" : "\n";
    out += result_of(ms[i], sources[i], doc_ms_per_unit).dump();
  }
  out += "\n]}\n";
  return out;
}

void write_t4(const std::vector<Measurement>& ms, const std::string& path) {
  write_text_file(path, format_t4(ms));
}

}  // namespace ktune
