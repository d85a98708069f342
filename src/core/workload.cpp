#include "ktune/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>

#include "ktune/csv.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"

namespace ktune {

namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

double parse_value(const std::string& text, const std::string& where) {
  if (text == "true") return 1;
  if (text == "false") return 0;
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw Error(fmt::format("{}: '{}' is not a number", where, text));
  return v;
}

// Blank lines and comment lines ('#' first) carry no problem.
bool skipped(const CsvRecord& r) {
  const std::string first = trim(r.fields.empty() ? "" : r.fields[0]);
  return first.empty() ? r.fields.size() <= 1 : first[0] == '#';
}

}  // namespace

std::vector<Problem> parse_workload_csv(const Family& family, std::string_view text,
                                        const std::string& source) {
  const auto aliases = family.feature_aliases();
  const auto names = family.feature_names();
  std::vector<size_t> column_of;  // feature index -> column
  std::vector<std::string> header;
  std::vector<Problem> problems;
  CsvReader reader(text, source);
  CsvRecord record;
  while (reader.next(record)) {
    if (skipped(record)) continue;
    std::vector<std::string> fields;
    for (const auto& f : record.fields) fields.push_back(trim(f));
    const std::string where = fmt::format("{}:{}", source, record.line);
    if (header.empty()) {
      header = fields;
      for (auto& h : header)
        for (const auto& [alias, name] : aliases)
          if (h == alias) h = name;
      for (const auto& name : names) {
        auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
          throw Error(
              fmt::format("{}: header lacks the {} feature '{}'", where, family.name(), name));
        column_of.push_back(static_cast<size_t>(it - header.begin()));
      }
      continue;
    }
    if (fields.size() != header.size())
      throw Error(
          fmt::format("{}: expected {} fields, found {}", where, header.size(), fields.size()));
    std::vector<double> values;
    for (size_t i = 0; i < names.size(); ++i)
      values.push_back(parse_value(fields[column_of[i]], where));
    try {
      problems.push_back(family.make_problem(values));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", where, e.what()));
    }
  }
  if (header.empty()) throw Error(fmt::format("{}: no header line", source));
  if (problems.empty()) throw Error(fmt::format("{}: no problems", source));
  return problems;
}

std::vector<Problem> merge_tagged(
    const std::vector<std::pair<std::string, std::vector<Problem>>>& parts) {
  std::vector<Problem> out;
  std::map<std::string, size_t> position;
  for (const auto& [tag, problems] : parts) {
    for (const auto& p : problems) {
      auto [it, fresh] = position.emplace(p.key(), out.size());
      if (fresh) out.push_back(p);
      auto& tags = out[it->second].tags;
      if (!tag.empty() && std::find(tags.begin(), tags.end(), tag) == tags.end())
        tags.push_back(tag);
    }
  }
  return out;
}

std::vector<std::string> builtin_workload_names(const std::string& family) {
  const Family* f = find_registered_family(family);
  return f ? f->builtin_workloads() : std::vector<std::string>{};
}

Workload load_workload(const Family& family, const std::string& name_or_path) {
  const auto builtin = family.builtin_workloads();
  if (std::find(builtin.begin(), builtin.end(), name_or_path) != builtin.end()) {
    Workload w = family.builtin_workload(name_or_path);
    w.name = name_or_path;
    return w;
  }
  // "BASE@VARIANT": BASE's problems in one of the family's variants (e.g. a precision), BASE a
  // built-in the list does not name with that variant (a variant spelled another way, or a bad
  // one: the family's error names it) or a workload file.
  const auto in_variant = [&](size_t at) {
    Workload w = load_workload(family, name_or_path.substr(0, at));
    w.problems = family.workload_variant(std::move(w.problems), name_or_path.substr(at + 1));
    w.name += name_or_path.substr(at);
    return w;
  };
  const bool is_file = std::filesystem::is_regular_file(name_or_path);
  if (const size_t at = name_or_path.find('@');
      at != std::string::npos && !is_file &&
      std::find(builtin.begin(), builtin.end(), name_or_path.substr(0, at)) != builtin.end())
    return in_variant(at);
  if (const size_t at = name_or_path.rfind('@');
      at != std::string::npos && !is_file &&
      std::filesystem::is_regular_file(name_or_path.substr(0, at)))
    return in_variant(at);
  if (!is_file) {
    std::string known;
    for (const auto& n : builtin) known += (known.empty() ? "" : ", ") + n;
    throw Error(
        fmt::format("workload '{}' is neither a built-in {} workload ({}) nor a readable file",
                    name_or_path, family.name(), known));
  }
  Workload w;
  w.name = std::filesystem::path(name_or_path).stem().string();
  w.problems =
      merge_tagged({{"", parse_workload_csv(family, read_text_file(name_or_path), name_or_path)}});
  return w;
}

}  // namespace ktune
