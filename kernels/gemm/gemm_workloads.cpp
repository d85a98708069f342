// GEMM's built-in workloads: the VGG16 / ResNet-50 / MobileNet shapes (workloads/gemm, embedded)
// and the three derived from them, the big and transformer shapes of `large`, the LLM projections
// of `llm`, plus a tiny one for tests.
#include <algorithm>
#include <iterator>
#include <map>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/error.hpp"
#include "ktune/workload.hpp"

namespace ktune::kernels::gemm {
namespace {

const char* const kNetworks[] = {"vgg", "resnet", "mobilenet"};

std::vector<Problem> dnn(const Family& family) {
  std::vector<std::pair<std::string, std::vector<Problem>>> parts;
  for (const char* net : kNetworks) {
    const std::string file = std::string(net) + ".csv";
    parts.emplace_back(net,
                       parse_workload_csv(family, embedded_file(file), "workloads/gemm/" + file));
  }
  return merge_tagged(parts);
}

// dnn-small: per network, its 6 cheapest distinct shapes by FLOPs (workload order breaks ties;
// a shape already taken for an earlier network is skipped). 18 shapes, 0.8 GFLOP in all: a
// 640-config CPU sweep on 2 cores fits in 45 minutes, and every network, both transposes and
// batched (Winograd-style) shapes are present.
std::vector<Problem> dnn_small(const Family& family) {
  const auto all = dnn(family);
  std::vector<Problem> out;
  std::map<std::string, bool> taken;
  for (const char* net : kNetworks) {
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

// dnn-sample: 48 dnn shapes stratified by FLOP quartile, transposes, batching and m/n aspect,
// disjoint from dnn-small (scripts/make_dnn_sample.py writes the list and states the rule). The
// problems are taken from `dnn`, so they carry their networks' tags.
std::vector<Problem> dnn_sample(const Family& family) {
  const std::string file = "workloads/gemm/dnn-sample.csv";
  const auto listed = parse_workload_csv(family, embedded_file("dnn-sample.csv"), file);
  std::map<std::string, Problem> all;
  for (auto& p : dnn(family)) all.emplace(p.key(), std::move(p));
  std::vector<Problem> out;
  for (const auto& p : listed) {
    const auto it = all.find(p.key());
    if (it == all.end()) throw Error(file + ": " + p.key() + " is not a dnn shape");
    out.push_back(it->second);
  }
  return out;
}

// large: big squares and transformer GEMMs (workloads/gemm/README.md says where they come from).
std::vector<Problem> large(const Family& family) {
  return merge_tagged({{"large", parse_workload_csv(family, embedded_file("large.csv"),
                                                    "workloads/gemm/large.csv")}});
}

// llm: the projections of three public LLMs at several token counts, both transposes of training
// (workloads/gemm/README.md); the held-out workload of the tensor-core selectors.
std::vector<Problem> llm(const Family& family) {
  return merge_tagged(
      {{"llm", parse_workload_csv(family, embedded_file("llm.csv"), "workloads/gemm/llm.csv")}});
}

// tiny: small odd shapes covering every transpose pair, batching and non-multiple edges.
std::vector<Problem> tiny() {
  std::vector<Problem> out;
  const int64_t shapes[][6] = {
      {0, 0, 37, 29, 53, 1}, {1, 0, 16, 24, 31, 1}, {0, 1, 9, 70, 12, 2}, {1, 1, 64, 5, 40, 1}};
  for (const auto& s : shapes) {
    Shape shape;
    shape.transa = s[0];
    shape.transb = s[1];
    shape.m = s[2];
    shape.n = s[3];
    shape.k = s[4];
    shape.batch = s[5];
    out.push_back(problem_of(shape, {"tiny"}));
  }
  return out;
}

}  // namespace

namespace {
const char* const kBaseWorkloads[] = {"dnn", "dnn-small", "dnn-sample", "large", "llm", "tiny"};
// A workload runs per precision: "large@bf16" is `large` with every problem in bf16 (and
// "large@bf16:c=bf16" with C in bf16 too: parse_variant).
const Precision kTensorPrecisions[] = {Precision::tf32, Precision::bf16, Precision::fp16};
}  // namespace

std::vector<std::string> GemmFamily::builtin_workloads() const {
  std::vector<std::string> names(std::begin(kBaseWorkloads), std::end(kBaseWorkloads));
  for (const char* base : kBaseWorkloads)
    for (Precision p : kTensorPrecisions)
      names.push_back(std::string(base) + "@" + precision_name(p));
  // With C in the 16-bit input type ("large@bf16:c=bf16"), after the names above.
  for (const char* base : kBaseWorkloads)
    for (Precision p : {Precision::bf16, Precision::fp16})
      names.push_back(std::string(base) + "@" + precision_name(p) + ":c=" + precision_name(p));
  return names;
}

Workload GemmFamily::builtin_workload(const std::string& name) const {
  const size_t at = name.find('@');
  if (at != std::string::npos) {
    Workload w = builtin_workload(name.substr(0, at));
    w.problems = workload_variant(std::move(w.problems), name.substr(at + 1));
    w.name = name;
    return w;
  }
  Workload w;
  w.name = name;
  if (name == "dnn") w.problems = dnn(*this);
  if (name == "dnn-small") w.problems = dnn_small(*this);
  if (name == "dnn-sample") w.problems = dnn_sample(*this);
  if (name == "large") w.problems = large(*this);
  if (name == "llm") w.problems = llm(*this);
  if (name == "tiny") w.problems = tiny();
  return w;
}

std::vector<Problem> GemmFamily::workload_variant(std::vector<Problem> problems,
                                                  const std::string& variant) const {
  const Variant v = parse_variant(variant);
  for (Problem& p : problems) {
    Shape s = shape_of(p);
    s.precision = v.precision;
    s.c16 = v.c16;
    p = problem_of(s, std::move(p.tags));
  }
  return problems;
}

// The shared/data layout: TransposeLHS, TransposeRHS, M, N, K, lda, ldb, ldc, batch.
std::vector<std::pair<std::string, std::string>> GemmFamily::feature_aliases() const {
  return {
      {"TransposeLHS", "transa"}, {"TransposeRHS", "transb"}, {"M", "m"}, {"N", "n"}, {"K", "k"}};
}

std::string GemmFamily::feature_text(const std::string& name, double value) const {
  if (name == "transa" || name == "transb") return value != 0 ? "true" : "false";
  return Family::feature_text(name, value);
}

}  // namespace ktune::kernels::gemm
