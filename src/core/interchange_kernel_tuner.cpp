// Kernel Tuner cache files (kernel_tuner/util.py: process_cache, store_cache, read_cache):
// one JSON object whose "cache" maps "x1,x2,..." to the entry of one evaluated configuration.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>

#include "interchange_json.hpp"
#include "ktune/device.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"
#include "ktune/problem.hpp"
#include "ktune/timing.hpp"

namespace ktune {

namespace {

using interchange::Json;
using interchange::member;
using interchange::string_member;

// Python's json.dump writes float('nan') and infinities as the bare words NaN, Infinity and
// -Infinity, which JSON (and nlohmann_json) does not have: outside strings they become null, a
// value that is not there.
std::string without_non_finite_literals(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const std::string_view word : {"-Infinity", "Infinity", "NaN"})
      if (text.substr(i, word.size()) == word) {
        out += "null";
        i += word.size() - 1;
        replaced = true;
        break;
      }
    if (!replaced) out += c;
  }
  return out;
}

// Kernel Tuner writes the header, then appends `"key": {...},` per result and closes the
// object only when tuning ends; read_cache repairs an unclosed file the same way.
Json parse_cache(std::string_view text, const std::string& source) {
  try {
    return interchange::parse_json(text, source);
  } catch (const Error&) {
    std::string repaired(text);
    while (!repaired.empty() && std::isspace(static_cast<unsigned char>(repaired.back())))
      repaired.pop_back();
    if (repaired.empty() || repaired.ends_with("}\n}") || repaired.ends_with("}}}")) throw;
    if (repaired.back() == ',') repaired.pop_back();
    repaired += "}\n}";
    try {
      return interchange::parse_json(repaired, source);
    } catch (const Error&) {
    }
    throw;  // the error about the file as it is
  }
}

// The failure markers Kernel Tuner stores in place of a value (or in "__error__").
bool failure_of(const Json& entry, Measurement& m) {
  for (const auto& [key, value] : entry.items()) {
    if (!value.is_string()) continue;
    const std::string v = value.get<std::string>();
    if (v == "InvalidConfig")
      m.outcome.status = Status::refused;
    else if (v == "CompilationFailedConfig" || v == "RuntimeFailedConfig" || v == "ErrorConfig")
      m.outcome.status = Status::failed;
    else
      continue;
    m.outcome.message = "Kernel Tuner " + v;  // "Compil..." keeps T4's compile invalidity
    return true;
  }
  return false;
}

// problem_size: a number, or a list of up to three (x, y, z); "callable" or absent → none.
std::string problem_of(const Json& cache, const std::string& source) {
  const Json* size = member(cache, "problem_size");
  Problem p;
  if (size && size->is_number()) {
    p.names = {"problem_size"};
    p.values = {size->get<double>()};
  } else if (size && size->is_array() && !size->empty()) {
    static const char* const kAxes[] = {"size_x", "size_y", "size_z"};
    for (size_t i = 0; i < size->size(); ++i) {
      const Json& v = (*size)[i];
      if (!v.is_number()) return "problem=0";
      p.names.push_back(size->size() <= 3 ? kAxes[i] : fmt::format("size_{}", i));
      p.values.push_back(v.get<double>());
    }
  } else {
    return "problem=0";
  }
  for (double v : p.values)
    if (!std::isfinite(v))
      throw Error(fmt::format("{}: problem_size {} is not finite", source, size->dump()));
  return p.key();
}

std::string kernel_tuner_objective(const Json& cache, const ImportObjective& o) {
  if (!o.name.empty()) return o.name;
  const Json* declared = member(cache, "objective");
  if (declared && declared->is_string()) return declared->get<std::string>();
  if (declared && declared->is_array() && !declared->empty() && declared->front().is_string())
    return declared->front().get<std::string>();  // several objectives: the first ranks
  return "time";
}

struct Context {
  std::string device, family, problem, objective;
  bool higher = false;
  std::vector<std::string> keys;  // tune_params_keys, the parameter order
  std::map<std::string, int64_t> config_ids;
};

Measurement measurement_of(const Json& entry, Context& c, const std::string& where) {
  if (!entry.is_object()) throw Error(fmt::format("{}: not an object", where));
  Measurement m;
  m.device = c.device;
  m.family = c.family;
  m.problem = c.problem;
  std::vector<std::pair<std::string, const Json*>> params;
  for (const auto& key : c.keys) {
    const Json* v = member(entry, key.c_str());
    if (!v) throw Error(fmt::format("{}: no value of tunable parameter '{}'", where, key));
    params.emplace_back(key, v);
  }
  m.config = interchange::config_string(params);
  auto [it, added] = c.config_ids.emplace(m.config, static_cast<int64_t>(c.config_ids.size()));
  m.config_id = it->second;
  if (const Json* t = member(entry, "timestamp"); t && t->is_string())
    m.created_at = t->get<std::string>();
  m.source = Json{{"kernel_tuner", entry}}.dump();
  std::vector<double> times;
  if (const Json* ts = member(entry, "times"); ts && ts->is_array())
    for (const Json& t : *ts)
      if (t.is_number()) times.push_back(t.get<double>());
  interchange::check_runtimes(times, where + ": times");
  if (failure_of(entry, m)) {
    if (!times.empty()) m.outcome.timing = summarize(std::move(times));
    return m;
  }
  const Json* value = member(entry, c.objective.c_str());
  if (value && value->is_null()) {  // NaN or Infinity in the file: measured, but no result
    m.outcome.status = Status::failed;
    m.outcome.message = fmt::format("Kernel Tuner {} is not a finite number", c.objective);
    if (!times.empty()) m.outcome.timing = summarize(std::move(times));
    return m;
  }
  if (!value || !value->is_number())
    throw Error(fmt::format("{}: no numeric value of the objective '{}'", where, c.objective));
  interchange::set_ok_outcome(m, std::move(times), c.objective, c.higher, value->get<double>(),
                              where);
  return m;
}

}  // namespace

std::vector<Measurement> parse_kernel_tuner(std::string_view text, const std::string& source,
                                            const KernelTunerImportOptions& options) {
  const bool non_finite =
      text.find("NaN") != std::string_view::npos || text.find("Infinity") != std::string_view::npos;
  const Json doc = non_finite ? parse_cache(without_non_finite_literals(text), source)
                              : parse_cache(text, source);
  const Json* cache = member(doc, "cache");
  if (!cache || !cache->is_object())
    throw Error(fmt::format("{}: not a Kernel Tuner cache file (no \"cache\" object)", source));
  Context c;
  c.device = options.device.empty() ? slugify(string_member(doc, "device_name")) : options.device;
  c.family = options.family.empty() ? slugify(string_member(doc, "kernel_name")) : options.family;
  if (c.device.empty())
    throw Error(fmt::format("{}: no device_name in the file; pass --device", source));
  if (c.family.empty())
    throw Error(fmt::format("{}: no kernel_name in the file; pass --family", source));
  c.problem = options.problem.empty() ? problem_of(doc, source) : options.problem;
  c.objective = kernel_tuner_objective(doc, options.objective);
  c.higher =
      c.objective != "time" && objective_higher_is_better(c.objective, options.objective.direction);
  const Json* keys = member(doc, "tune_params_keys");
  if (!keys || !keys->is_array() || keys->empty())
    throw Error(fmt::format("{}: no tune_params_keys list", source));
  for (const Json& k : *keys) {
    if (!k.is_string()) throw Error(fmt::format("{}: tune_params_keys holds {}", source, k.dump()));
    c.keys.push_back(k.get<std::string>());
  }
  std::vector<Measurement> out;
  for (const auto& [key, entry] : cache->items()) {
    const std::string where = fmt::format("{}: cache[\"{}\"]", source, key);
    try {
      out.push_back(measurement_of(entry, c, where));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: {}", where, e.what()));
    }
  }
  return out;
}

std::vector<Measurement> read_kernel_tuner(const std::string& path,
                                           const KernelTunerImportOptions& options) {
  return parse_kernel_tuner(read_text_file(path), path == "-" ? "<stdin>" : path, options);
}

}  // namespace ktune
