// T4 results JSON import: ktune's own files (a "ktune" object per result) and foreign ones
// (Kernel Tuner's store_output_file, the benchmark hub's datasets). See docs/interchange.md.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "interchange_json.hpp"
#include "ktune/device.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"
#include "ktune/timing.hpp"

namespace ktune {

namespace {

using interchange::checked_integer;
using interchange::Json;
using interchange::member;
using interchange::string_member;

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

std::string metadata_device(const Json& metadata) {
  for (const char* key : {"device", "device_name"})
    if (std::string d = string_member(metadata, key); !d.empty()) return d;
  // The nvidia-smi query Kernel Tuner stores: one "gpu" object, or an array of them.
  const Json* g = &metadata;
  for (const char* key : {"environment", "device_query", "nvidia-smi", "nvidia_smi_log", "gpu"})
    if (!(g = member(*g, key))) return "";
  if (g->is_array()) {
    if (g->empty()) return "";
    g = &g->front();
  }
  return string_member(*g, "product_name");
}

std::string metadata_family(const Json& metadata) {
  for (const char* key : {"kernel_name", "kernel", "family"})
    if (std::string f = string_member(metadata, key); !f.empty()) return f;
  return "";
}

// What every result of one document shares.
struct Document {
  const T4ImportOptions& options;
  std::string source;
  std::string device, family, problem;  // labels of foreign results
  Json timeunit;                        // as the file spells it; kept in each row's source
  double ms_per_unit = 1.0;
  std::map<std::string, int64_t> config_ids;  // first-seen order
};

Document document_of(const Json& doc, const std::string& source, const T4ImportOptions& o) {
  static const Json kNoMetadata = Json::object();
  const Json* found = member(doc, "metadata");
  const Json& metadata = found ? *found : kNoMetadata;
  Document d{o, source, "", "", "", "milliseconds", 1.0, {}};
  if (const Json* unit = member(metadata, "timeunit")) d.timeunit = *unit;
  d.ms_per_unit = interchange::ms_per_unit(d.timeunit, source);
  // An explicit label wins (a relabel), unless it only fills in what the file lacks.
  auto label = [&](const std::string& option, const std::string& from_metadata) {
    if (!option.empty() && !o.fallback_labels) return option;
    const std::string slug = slugify(from_metadata);
    return slug.empty() ? option : slug;
  };
  d.device = label(o.device, metadata_device(metadata));
  d.family = label(o.family, metadata_family(metadata));
  d.problem = o.problem.empty() ? "problem=0" : o.problem;
  return d;
}

std::vector<double> runtimes_of(const Json& r, double scale, const std::string& where) {
  std::vector<double> out;
  const Json* times = member(r, "times");
  const Json* runtimes = times ? member(*times, "runtimes") : nullptr;
  if (!runtimes) return out;
  if (!runtimes->is_array()) throw Error(fmt::format("{}: times.runtimes is not an array", where));
  for (const Json& v : *runtimes) {
    if (!v.is_number()) throw Error(fmt::format("{}: times.runtimes holds {}", where, v.dump()));
    out.push_back(v.get<double>() * scale);
  }
  return out;
}

std::string timestamp_of(const Json& r, const std::string& where) {
  const Json* t = member(r, "timestamp");
  if (!t) return "";
  if (!t->is_string()) throw Error(fmt::format("{}: timestamp is not a string", where));
  return t->get<std::string>();
}

// The foreign record as the store keeps it (Measurement::source).
std::string source_of(const Json& result, const Document& d) {
  return Json{{"timeunit", d.timeunit}, {"t4", result}}.dump();
}

Measurement ktune_measurement(const Json& r, const Document& d, const std::string& where) {
  const Json& k = r["ktune"];
  const T4ImportOptions& o = d.options;
  auto label = [&](const std::string& option, const char* key) {
    return option.empty() || o.fallback_labels ? k.at(key).get<std::string>() : option;
  };
  Measurement m;
  m.device = label(o.device, "device");
  m.family = label(o.family, "family");
  m.problem = label(o.problem, "problem");
  m.config = k.at("config").get<std::string>();
  set_stored_config_id(m,
                       checked_integer(k.at("config_id"), INT64_MIN, INT64_MAX, "ktune.config_id"));
  m.outcome.status = parse_status(k.at("status").get<std::string>());
  TimingStats& t = m.outcome.timing;
  t.median_ms = k.at("median_ms").get<double>();
  t.min_ms = k.at("min_ms").get<double>();
  t.max_ms = k.at("max_ms").get<double>();
  t.mad_ms = k.at("mad_ms").get<double>();
  t.reps = static_cast<int>(checked_integer(k.at("reps"), 0, INT32_MAX, "ktune.reps"));
  t.samples_ms = runtimes_of(r, d.ms_per_unit, where);
  m.perf = k.at("perf").get<double>();
  m.outcome.rel_error = k.at("rel_error").get<double>();
  m.outcome.message = k.at("message").get<std::string>();
  m.created_at = timestamp_of(r, where);
  if (const Json* tags = member(k, "tags"); tags && tags->is_array()) {
    for (const Json& t : *tags) {
      if (!t.is_string())
        throw Error(fmt::format("{}: field 'ktune.tags' holds a non-string", where));
      m.tags.push_back(t.get<std::string>());
    }
  }
  if (const Json* foreign = member(k, "foreign_t4"); foreign && *foreign == true) {
    Json body = r;
    body.erase("ktune");
    m.source = source_of(body, d);
  } else if (const Json* source = member(k, "source")) {
    m.source = source->dump();
  }
  return m;
}

// The objective a result declares (its first "objectives" entry), unless overridden.
std::string t4_objective(const Json& r, const ImportObjective& o) {
  if (!o.name.empty()) return o.name;
  const Json* objectives = member(r, "objectives");
  if (objectives && objectives->is_array() && !objectives->empty() &&
      objectives->front().is_string())
    return objectives->front().get<std::string>();
  return "time";
}

// The numeric value of the measurement named `name`, NaN when there is none.
double measured(const Json& r, const std::string& name) {
  const Json* ms = member(r, "measurements");
  if (!ms || !ms->is_array()) return NAN;
  for (const Json& x : *ms)
    if (string_member(x, "name") == name) {
      const Json* v = member(x, "value");
      return v && v->is_number() ? v->get<double>() : NAN;
    }
  return NAN;
}

Measurement foreign_measurement(const Json& r, Document& d, const std::string& where) {
  if (d.device.empty())
    throw Error(fmt::format("{}: the file's metadata names no device; pass --device", d.source));
  if (d.family.empty())
    throw Error(
        fmt::format("{}: the file's metadata names no kernel family; pass --family", d.source));
  Measurement m;
  m.device = d.device;
  m.family = d.family;
  m.problem = d.problem;
  const Json& configuration = r.at("configuration");
  if (!configuration.is_object() || configuration.empty())
    throw Error(fmt::format("{}: configuration must be a non-empty object", where));
  std::vector<std::pair<std::string, const Json*>> params;
  for (const auto& [name, value] : configuration.items()) params.emplace_back(name, &value);
  m.config = interchange::config_string(params);
  auto [it, added] = d.config_ids.emplace(m.config, static_cast<int64_t>(d.config_ids.size()));
  m.config_id = it->second;
  const std::string invalidity = r.at("invalidity").get<std::string>();
  m.outcome.status = status_of_invalidity(invalidity, where);
  m.created_at = timestamp_of(r, where);
  m.source = source_of(r, d);
  std::vector<double> samples = runtimes_of(r, d.ms_per_unit, where);
  if (m.outcome.status != Status::ok) {
    m.outcome.message = fmt::format("T4 invalidity '{}'", invalidity);
    if (!samples.empty()) m.outcome.timing = summarize(std::move(samples));
    return m;
  }
  const std::string objective = t4_objective(r, d.options.objective);
  const bool time = objective == "time";
  const bool higher = !time && objective_higher_is_better(objective, d.options.objective.direction);
  const double value = measured(r, objective) * (time ? d.ms_per_unit : 1.0);
  interchange::set_ok_outcome(m, std::move(samples), objective, higher, value, where);
  return m;
}

void read_document(const Json& doc, const std::string& source, const T4ImportOptions& options,
                   std::vector<Measurement>& out) {
  const Json* results = member(doc, "results");
  if (!results || !results->is_array())
    throw Error(fmt::format("{}: not a T4 results document (no \"results\" array)", source));
  Document d = document_of(doc, source, options);
  for (size_t i = 0; i < results->size(); ++i) {
    const std::string where = fmt::format("{}: results[{}]", source, i);
    const Json& r = (*results)[i];
    try {
      if (!r.is_object()) throw Error(fmt::format("{}: not an object", where));
      const Json* k = member(r, "ktune");
      if (k && !k->is_object()) throw Error(fmt::format("{}: \"ktune\" is not an object", where));
      out.push_back(k ? ktune_measurement(r, d, where) : foreign_measurement(r, d, where));
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

std::vector<Measurement> parse_t4(std::string_view text, const std::string& source,
                                  const T4ImportOptions& options) {
  const Json doc = interchange::parse_json(text, source);
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
