#include "interchange_json.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "ktune/error.hpp"
#include "ktune/excerpt.hpp"
#include "ktune/interchange.hpp"
#include "ktune/json_limits.hpp"
#include "ktune/timing.hpp"

namespace ktune {

bool objective_higher_is_better(const std::string& name, int direction) {
  if (direction != 0) return direction > 0;
  // Kernel Tuner's objective_default_map (kernel_tuner/util.py).
  for (const char* lower : {"time", "energy", "cost", "loss"})
    if (name == lower) return false;
  for (const char* higher : {"fitness", "GFLOP/s", "TFLOP/s", "GB/s", "TB/s", "GFLOPS/W",
                             "TFLOPS/W", "GFLOP/J", "TFLOP/J"})
    if (name == higher) return true;
  throw Error(fmt::format(
      "objective '{}': is higher or lower better? pass --direction max or --direction min", name));
}

namespace interchange {

Json parse_json(std::string_view text, const std::string& source) {
  check_json_depth(text, source);
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann quotes the bytes it last read, raw: a binary file's would reach the terminal.
    throw Error(fmt::format("{}: not valid JSON: {}", source, excerpt(e.what(), 300)));
  }
}

const Json* member(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string string_member(const Json& obj, const char* key) {
  const Json* v = member(obj, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

int64_t checked_integer(const Json& v, int64_t lo, int64_t hi, const std::string& what) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(hi) : true) {
      const int64_t i = v.is_number_unsigned() ? int64_t(v.get<uint64_t>()) : v.get<int64_t>();
      if (i >= lo && i <= hi) return i;
    }
  }
  throw Error(fmt::format("{} is {}, expected an integer in [{}, {}]", what, v.dump(), lo, hi));
}

std::string text_of(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 1e15)  // 16.0 is the parameter value 16
      return std::to_string(static_cast<int64_t>(d));
    return v.dump();  // JSON's own shortest spelling: 0.0001 stays "0.0001", not "1e-04"
  }
  return v.dump();  // bool, null, arrays: their JSON spelling (depth bounded by parse_json)
}

std::string config_string(const std::vector<std::pair<std::string, const Json*>>& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += ';';
    out += name + "=" + text_of(*value);
  }
  return out;
}

double ms_per_unit(const Json& unit, const std::string& source) {
  const std::string u = unit.is_string() ? unit.get<std::string>() : unit.dump();
  if (u == "milliseconds" || u == "miliseconds" || u == "ms") return 1.0;
  if (u == "seconds" || u == "s") return 1e3;
  if (u == "microseconds" || u == "us") return 1e-3;
  if (u == "nanoseconds" || u == "ns") return 1e-6;
  throw Error(fmt::format("{}: unknown metadata.timeunit '{}'", source, u));
}

void check_runtimes(const std::vector<double>& runtimes_ms, const std::string& where) {
  for (const double t : runtimes_ms)
    if (!(t > 0) || !std::isfinite(t))
      throw Error(fmt::format("{}: runtime {} ms is not a positive time", where, t));
}

void set_ok_outcome(Measurement& m, std::vector<double> runtimes_ms, const std::string& objective,
                    bool higher_is_better, double value, const std::string& where) {
  check_runtimes(runtimes_ms, where);
  m.outcome.status = Status::ok;
  if (objective == "time") {
    if (runtimes_ms.empty()) {
      if (!std::isfinite(value))
        throw Error(fmt::format("{}: a valid result without runtimes or a numeric time", where));
      runtimes_ms.push_back(value);
    }
    m.outcome.timing = summarize(std::move(runtimes_ms));
    const double median = m.outcome.timing.median_ms;
    if (!(median > 0) || !std::isfinite(median))
      throw Error(fmt::format("{}: median time {} ms is not positive", where, median));
    m.perf = 1.0 / median;  // ktune perf is higher-is-better
    return;
  }
  if (!runtimes_ms.empty()) m.outcome.timing = summarize(std::move(runtimes_ms));
  if (!std::isfinite(value) || !(value > 0))
    throw Error(fmt::format("{}: objective '{}' has no positive finite value", where, objective));
  m.perf = higher_is_better ? value : 1.0 / value;
}

}  // namespace interchange
}  // namespace ktune
