// ktune's own long CSV: one row per measurement, columns as in kMeasurementCsvHeader.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ktune/csv.hpp"
#include "ktune/error.hpp"
#include "ktune/excerpt.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"

namespace ktune {

namespace {

// The header before the tags column came; such files are still read (without tags).
constexpr std::string_view kHeaderWithoutTags =
    kMeasurementCsvHeader.substr(0, kMeasurementCsvHeader.rfind(','));

std::string join_tags(const std::vector<std::string>& tags) {
  std::string out;
  for (const auto& t : tags) out += (out.empty() ? "" : ";") + t;
  return out;
}

std::vector<std::string> split_tags(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

void append_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// %.17g: enough digits that strtod gives back the same double.
void append_double(std::string& out, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += buf;
}

// Strict: the whole field is one number as %.17g writes it (no spaces, hex or '+'). NaN is
// refused: SQLite would store it as NULL and the NOT NULL row would be dropped silently.
double parse_double(const std::string& text, std::string_view column, const std::string& where) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw Error(fmt::format("{}: column {}: '{}' is not a number", where, column, text));
  if (std::isnan(v)) throw Error(fmt::format("{}: column {}: NaN is not a value", where, column));
  return v;
}

int64_t parse_int(const std::string& text, std::string_view column, const std::string& where) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw Error(fmt::format("{}: column {}: '{}' is not an integer", where, column, excerpt(text)));
  return v;
}

// Times are durations: finite and never negative (a row of -5 ms would rank first among every
// config). Zero stays valid: ktune's own exports of rows that carry only a perf (vendor rows
// of older stores, rows made by other tools) write 0 for the times they do not have.
void check_times(const Measurement& m, const std::string& where) {
  const TimingStats& t = m.outcome.timing;
  const std::pair<const char*, double> times[] = {
      {"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"mad_ms", t.mad_ms}};
  for (const auto& [column, v] : times)
    if (!std::isfinite(v) || v < 0)
      throw Error(fmt::format("{}: column {}: {} is not a non-negative time", where, column, v));
}

std::string joined_header(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
  return out;
}

}  // namespace

std::string format_measurements_csv(const std::vector<Measurement>& ms) {
  std::string out(kMeasurementCsvHeader);
  out += '\n';
  for (const auto& m : ms) {
    const Outcome& o = m.outcome;
    for (const std::string* s : {&m.device, &m.family, &m.problem, &m.config}) {
      append_field(out, *s);
      out += ',';
    }
    out += std::to_string(stored_config_id(m));
    out += ',';
    out += to_string(o.status);
    for (double v : {o.timing.median_ms, o.timing.min_ms, o.timing.max_ms, o.timing.mad_ms}) {
      out += ',';
      append_double(out, v);
    }
    out += ',';
    out += std::to_string(o.timing.reps);
    out += ',';
    append_double(out, m.perf);
    out += ',';
    append_double(out, o.rel_error);
    out += ',';
    append_field(out, o.message);
    out += ',';
    append_field(out, m.created_at);
    out += ',';
    append_field(out, join_tags(m.tags));
    out += '\n';
  }
  return out;
}

void write_measurements_csv(const std::vector<Measurement>& ms, const std::string& path) {
  write_text_file(path, format_measurements_csv(ms));
}

std::vector<Measurement> parse_measurements_csv(std::string_view text, const std::string& source) {
  CsvReader scanner(text, source);
  CsvRecord rec;
  if (!scanner.next(rec))
    throw Error(
        fmt::format("{}:1: empty file (expected the header {})", source, kMeasurementCsvHeader));
  const std::string header = joined_header(rec.fields);
  const size_t columns = rec.fields.size();
  if (header != kMeasurementCsvHeader && header != kHeaderWithoutTags)
    throw Error(fmt::format("{}:1: header is '{}', expected '{}'", source, excerpt(header),
                            kMeasurementCsvHeader));
  std::vector<Measurement> out;
  while (scanner.next(rec)) {
    const std::string where = fmt::format("{}:{}", source, rec.line);
    if (rec.blank()) continue;
    if (rec.fields.size() != columns)
      throw Error(fmt::format("{}: {} fields, expected {}", where, rec.fields.size(), columns));
    const auto& f = rec.fields;
    Measurement m;
    m.device = f[0];
    m.family = f[1];
    m.problem = f[2];
    m.config = f[3];
    set_stored_config_id(m, parse_int(f[4], "config_id", where));
    try {
      m.outcome.status = parse_status(f[5]);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: column status: {}", where, e.what()));
    }
    m.outcome.timing.median_ms = parse_double(f[6], "median_ms", where);
    m.outcome.timing.min_ms = parse_double(f[7], "min_ms", where);
    m.outcome.timing.max_ms = parse_double(f[8], "max_ms", where);
    m.outcome.timing.mad_ms = parse_double(f[9], "mad_ms", where);
    check_times(m, where);
    const int64_t reps = parse_int(f[10], "reps", where);
    if (reps < 0 || reps > INT32_MAX)
      throw Error(fmt::format("{}: column reps: {} is out of range", where, reps));
    m.outcome.timing.reps = static_cast<int>(reps);
    m.perf = parse_double(f[11], "perf", where);
    m.outcome.rel_error = parse_double(f[12], "rel_error", where);
    m.outcome.message = f[13];
    m.created_at = f[14];
    if (columns > 15) m.tags = split_tags(f[15]);
    if (m.device.empty() || m.family.empty() || m.problem.empty() || m.config.empty())
      throw Error(fmt::format("{}: device, family, problem and config must not be empty", where));
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Measurement> read_measurements_csv(const std::string& path) {
  return parse_measurements_csv(read_text_file(path), path == "-" ? "<stdin>" : path);
}

}  // namespace ktune
