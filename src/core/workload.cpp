#include "ktune/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kernels/conv2d/conv2d_workloads.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/error.hpp"

namespace ktune {

namespace embedded {
const std::map<std::string, std::string>& files();
}

namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, ',')) out.push_back(trim(field));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
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

// Reads problems from CSV text. The header names the family's features; the GEMM layout of
// shared/data (TransposeLHS, TransposeRHS, M, N, K, lda, ldb, ldc, batch) is accepted too.
std::vector<Problem> parse_problems(const Family& family, const std::string& text,
                                    const std::string& source) {
  std::map<std::string, std::string> aliases = {
      {"TransposeLHS", "transa"}, {"TransposeRHS", "transb"}, {"M", "m"}, {"N", "n"}, {"K", "k"}};
  std::istringstream in(text);
  std::string line;
  size_t line_no = 0;
  std::vector<int> column_of;  // feature index -> column
  std::vector<std::string> header;
  std::vector<Problem> problems;
  const auto names = family.feature_names();
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    auto fields = split_fields(line);
    const std::string where = fmt::format("{}:{}", source, line_no);
    if (header.empty()) {
      header = fields;
      for (auto& h : header)
        if (aliases.count(h)) h = aliases[h];
      for (const auto& name : names) {
        auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
          throw Error(
              fmt::format("{}: header lacks the {} feature '{}'", where, family.name(), name));
        column_of.push_back(static_cast<int>(it - header.begin()));
      }
      continue;
    }
    if (fields.size() != header.size())
      throw Error(
          fmt::format("{}: expected {} fields, found {}", where, header.size(), fields.size()));
    std::vector<double> values;
    for (size_t i = 0; i < names.size(); ++i)
      values.push_back(parse_value(fields[static_cast<size_t>(column_of[i])], where));
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

// Distinct problems in first-seen order; tags (networks) merged.
std::vector<Problem> merge_distinct(
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

std::vector<Problem> gemm_dnn(const Family& family) {
  std::vector<std::pair<std::string, std::vector<Problem>>> parts;
  for (const char* net : {"vgg", "resnet", "mobilenet"}) {
    const std::string file = std::string(net) + ".csv";
    parts.emplace_back(
        net, parse_problems(family, embedded::files().at(file), "workloads/gemm/" + file));
  }
  return merge_distinct(parts);
}

// dnn-small: per network, its 6 cheapest distinct shapes by FLOPs (workload order breaks ties;
// a shape already taken for an earlier network is skipped). 18 shapes, 0.8 GFLOP in all: a
// 640-config CPU sweep on 2 cores fits in 45 minutes, and every network, both transposes and
// batched (Winograd-style) shapes are present.
std::vector<Problem> gemm_dnn_small(const Family& family) {
  const auto all = gemm_dnn(family);
  std::vector<Problem> out;
  std::map<std::string, bool> taken;
  for (const char* net : {"vgg", "resnet", "mobilenet"}) {
    std::vector<Problem> candidates;
    for (const auto& p : all)
      if (std::find(p.tags.begin(), p.tags.end(), net) != p.tags.end() && !taken.count(p.key()))
        candidates.push_back(p);
    std::stable_sort(candidates.begin(), candidates.end(), [&](const Problem& a, const Problem& b) {
      return family.flops(a) < family.flops(b);
    });
    for (size_t i = 0; i < candidates.size() && i < 6; ++i) {
      taken[candidates[i].key()] = true;
      out.push_back(candidates[i]);
    }
  }
  return out;
}

// tiny: small odd shapes covering every transpose pair, batching and non-multiple edges.
std::vector<Problem> gemm_tiny() {
  std::vector<Problem> out;
  const int64_t shapes[][6] = {
      {0, 0, 37, 29, 53, 1}, {1, 0, 16, 24, 31, 1}, {0, 1, 9, 70, 12, 2}, {1, 1, 64, 5, 40, 1}};
  for (const auto& s : shapes) {
    kernels::gemm::Shape shape;
    shape.transa = s[0];
    shape.transb = s[1];
    shape.m = s[2];
    shape.n = s[3];
    shape.k = s[4];
    shape.batch = s[5];
    out.push_back(kernels::gemm::problem_of(shape, {"tiny"}));
  }
  return out;
}

}  // namespace

std::vector<std::string> builtin_workload_names(const std::string& family) {
  if (family == "gemm") return {"dnn", "dnn-small", "tiny"};
  // Stencil workloads are embedded as workloads/stencil/stencil-<name>.csv.
  if (family == "stencil") return {"synthetic", "real", "stencil-small", "tiny"};
  if (family == "conv2d") return kernels::conv2d::builtin_workload_names();
  return {};
}

Workload load_workload(const Family& family, const std::string& name_or_path) {
  Workload w;
  w.name = name_or_path;
  if (family.name() == "gemm") {
    if (name_or_path == "dnn") w.problems = gemm_dnn(family);
    if (name_or_path == "dnn-small") w.problems = gemm_dnn_small(family);
    if (name_or_path == "tiny") w.problems = gemm_tiny();
    if (!w.problems.empty()) return w;
  }
  if (family.name() == "stencil") {
    const auto names = builtin_workload_names("stencil");
    if (std::find(names.begin(), names.end(), name_or_path) != names.end()) {
      const std::string file =
          name_or_path.rfind("stencil-", 0) == 0 ? name_or_path + ".csv" : "stencil-" + name_or_path + ".csv";
      w.problems = parse_problems(family, embedded::files().at(file), "workloads/stencil/" + file);
      return w;
    }
  }
  if (family.name() == "conv2d") {
    w.problems = kernels::conv2d::builtin_workload(name_or_path);
    if (!w.problems.empty()) return w;
  }
  std::ifstream in(name_or_path);
  if (!in) {
    std::string known;
    for (const auto& n : builtin_workload_names(family.name()))
      known += (known.empty() ? "" : ", ") + n;
    throw Error(
        fmt::format("workload '{}' is neither a built-in {} workload ({}) nor a readable file",
                    name_or_path, family.name(), known));
  }
  std::stringstream text;
  text << in.rdbuf();
  w.name = std::filesystem::path(name_or_path).stem().string();
  w.problems = merge_distinct({{"", parse_problems(family, text.str(), name_or_path)}});
  return w;
}

}  // namespace ktune
