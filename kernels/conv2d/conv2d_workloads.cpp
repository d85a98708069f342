#include "kernels/conv2d/conv2d_workloads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "ktune/csv.hpp"
#include "ktune/error.hpp"

namespace ktune {
namespace kernels::conv2d {

namespace {

int64_t parse_int(const std::string& text, const std::string& where) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw Error(fmt::format("{}: '{}' is not an integer", where, text));
  return v;
}

// '#' lines become blank lines, so records keep their line numbers.
std::string without_comments(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text[pos] != '#') out.append(text, pos, end - pos);
    out += '\n';
    pos = end + 1;
  }
  return out;
}

// Reads an embedded layer CSV (header: [network,]layer,[n,]h,w,c,k,r,s,stride,pad[,count]),
// '#' lines are comments. Files without n give one layer per batch in `batches`.
std::vector<Layer> read_layers(const std::string& file, const std::string& network,
                               const std::vector<int64_t>& batches) {
  const std::string source = "workloads/conv2d/" + file;
  const std::string text = without_comments(embedded_file(file));
  const auto records = read_csv_records(text, source);
  if (records.empty()) throw Error(fmt::format("{}: no header line", source));
  const auto& header = records.front().fields;
  auto column = [&](const char* name) -> int {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : int(it - header.begin());
  };
  std::vector<Layer> by_record;
  for (size_t i = 1; i < records.size(); ++i) {
    const auto& f = records[i].fields;
    const std::string where = fmt::format("{}:{}", source, records[i].line);
    if (f.size() != header.size())
      throw Error(fmt::format("{}: expected {} fields, found {}", where, header.size(), f.size()));
    auto get = [&](const char* name) {
      const int at = column(name);
      if (at < 0) throw Error(fmt::format("{}: the header lacks '{}'", source, name));
      return parse_int(f[size_t(at)], where);
    };
    Layer l;
    l.network = column("network") >= 0 ? f[size_t(column("network"))] : network;
    l.layer = f[size_t(column("layer") >= 0 ? column("layer") : 0)];
    l.count = column("count") >= 0 ? int(get("count")) : 1;
    l.shape = {column("n") >= 0 ? get("n") : 1,
               get("h"),
               get("w"),
               get("c"),
               get("k"),
               get("r"),
               get("s"),
               get("stride"),
               get("pad")};
    try {
      shape_of(problem_of(l.shape));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", where, e.what()));
    }
    by_record.push_back(l);
  }
  if (column("n") >= 0) return by_record;
  std::vector<Layer> out;
  for (int64_t batch : batches)
    for (Layer l : by_record) {
      l.shape.n = batch;
      out.push_back(l);
    }
  return out;
}

std::vector<Layer> tiny_layers() {
  // n, h, w, c, k, r, s, stride, pad: odd sizes, c and k off the vector widths, every kind.
  const Shape shapes[] = {
      {1, 9, 11, 5, 13, 3, 3, 1, 1}, {2, 8, 7, 17, 9, 3, 3, 1, 0},  {1, 13, 10, 7, 11, 3, 3, 2, 1},
      {1, 6, 9, 19, 29, 1, 1, 1, 0}, {2, 7, 5, 8, 16, 1, 1, 2, 0},  {1, 15, 12, 3, 10, 5, 5, 2, 2},
      {1, 11, 13, 4, 7, 7, 7, 2, 3}, {1, 4, 4, 33, 25, 3, 3, 1, 1}, {1, 5, 3, 6, 5, 2, 3, 1, 1}};
  std::vector<Layer> out;
  int i = 0;
  for (const Shape& s : shapes) out.push_back({"tiny", fmt::format("tiny{}", ++i), 1, s});
  return out;
}

}  // namespace

std::vector<std::string> builtin_workload_names() {
  return {"vgg16-conv",    "resnet50-conv",    "dnn",    "conv-small",     "tiny",
          "vgg16-conv-b1", "resnet50-conv-b1", "dnn-b1", "vgg16-conv-b16", "resnet50-conv-b16",
          "dnn-b16"};
}

std::vector<Layer> workload_layers(const std::string& name) {
  const std::vector<int64_t> batches = {1, 16};
  if (name == "vgg16-conv") return read_layers("conv2d-vgg16.csv", "vgg16", batches);
  if (name == "resnet50-conv") return read_layers("conv2d-resnet50.csv", "resnet50", batches);
  if (name == "dnn") {
    auto out = workload_layers("vgg16-conv");
    for (auto& l : workload_layers("resnet50-conv")) out.push_back(std::move(l));
    return out;
  }
  if (name == "conv-small") return read_layers("conv2d-small.csv", "", {});
  if (name == "tiny") return tiny_layers();
  // "<network workload>-b1" / "-b16": its layers at that batch only (a CPU sweep's budget).
  for (const char* base : {"vgg16-conv", "resnet50-conv", "dnn"})
    for (const int64_t batch : batches)
      if (name == fmt::format("{}-b{}", base, batch)) {
        std::vector<Layer> out;
        for (Layer& l : workload_layers(base))
          if (l.shape.n == batch) out.push_back(std::move(l));
        return out;
      }
  return {};
}

std::vector<Problem> builtin_workload(const std::string& name) {
  std::vector<Problem> out;
  std::map<std::string, size_t> position;
  for (const Layer& l : workload_layers(name)) {
    Problem p = problem_of(l.shape);
    auto [it, fresh] = position.emplace(p.key(), out.size());
    if (fresh) out.push_back(std::move(p));
    auto& tags = out[it->second].tags;
    if (std::find(tags.begin(), tags.end(), l.network) == tags.end()) tags.push_back(l.network);
  }
  return out;
}

}  // namespace kernels::conv2d
}  // namespace ktune
