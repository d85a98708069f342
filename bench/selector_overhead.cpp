// Selection overhead per call: the tree selector as `ktune codegen` generates it (nested ifs,
// compiled in) against the selectors the library loads from JSON (ktune::ml::Selector), all
// trained at build time on the committed H100 dataset (see bench/CMakeLists.txt).
//
// Every benchmark cycles through the dataset's 431 real GEMM problems in a seeded shuffled order,
// so successive calls take different paths through the model and nothing can be hoisted out of
// the loop. The JSON selectors get their feature rows precomputed (raw + derived features, as
// Eigen rows): the figure is the model alone, which favours them; the generated function
// computes its derived features itself on every call.
//
//   selector_overhead [benchmark flags]     run the benchmarks
//   selector_overhead --print-device-slug   print ktune's slug of this CPU and exit
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/device.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/selector.hpp"
#include "ktune_selector.hpp"  // generated at build time from the tree-b model

namespace {

using GemmArgs = std::array<long long, 6>;  // transa, transb, m, n, k, batch

struct Problems {
  std::vector<GemmArgs> args;      // in rotation order
  std::vector<Eigen::Index> rows;  // dataset row of each entry
  Eigen::MatrixXd features;        // dataset features, rows × features
  std::vector<std::string> feature_names;
};

Problems load_problems() {
  const ktune::Dataset d = ktune::load_dataset(KTUNE_BENCH_DATA);
  Problems p;
  p.features = d.features;
  p.feature_names = d.feature_names;
  std::vector<Eigen::Index> raw;
  for (const char* name : {"transa", "transb", "m", "n", "k", "batch"}) {
    const auto it = std::find(d.feature_names.begin(), d.feature_names.end(), name);
    if (it == d.feature_names.end())
      throw ktune::Error(std::string(KTUNE_BENCH_DATA) + ": no GEMM feature " + name);
    raw.push_back(it - d.feature_names.begin());
  }
  for (Eigen::Index r = 0; r < d.rows(); ++r) p.rows.push_back(r);
  std::mt19937_64 rng(0);
  std::shuffle(p.rows.begin(), p.rows.end(), rng);
  for (Eigen::Index r : p.rows) {
    GemmArgs a;
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<long long>(d.features(r, raw[i]));
    p.args.push_back(a);
  }
  return p;
}

const Problems& problems() {
  static const Problems p = load_problems();
  return p;
}

struct LoadedSelector {
  std::unique_ptr<ktune::ml::Selector> model;
  std::vector<Eigen::RowVectorXd> rows;  // per rotation entry, in the model's feature order
};

LoadedSelector load_selector(const std::string& name) {
  const std::string path = std::string(KTUNE_BENCH_MODELS) + "/" + name + ".json";
  LoadedSelector s;
  s.model = ktune::ml::Selector::from_json(nlohmann::json::parse(ktune::read_text_file(path)));
  const Problems& p = problems();
  std::vector<Eigen::Index> cols;
  for (const auto& f : s.model->feature_names()) {
    const auto it = std::find(p.feature_names.begin(), p.feature_names.end(), f);
    if (it == p.feature_names.end()) throw ktune::Error(path + ": feature " + f + " not in data");
    cols.push_back(it - p.feature_names.begin());
  }
  for (Eigen::Index r : p.rows) {
    Eigen::RowVectorXd row(Eigen::Index(cols.size()));
    for (size_t c = 0; c < cols.size(); ++c) row[Eigen::Index(c)] = p.features(r, cols[c]);
    s.rows.push_back(std::move(row));
  }
  return s;
}

int generated(const GemmArgs& a) {
  return ktune_selector::select(a[0], a[1], a[2], a[3], a[4], a[5]);
}

// Independent calls: the CPU may overlap consecutive selections (throughput per call).
void BM_generated_tree(benchmark::State& state) {
  const auto& args = problems().args;
  size_t i = 0;
  for (auto _ : state) {
    int pick = generated(args[i]);
    benchmark::DoNotOptimize(pick);
    if (++i == args.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

// Each call's input depends on the previous pick, so calls cannot overlap (latency per call).
void BM_generated_tree_latency(benchmark::State& state) {
  const auto& args = problems().args;
  size_t i = 0;
  for (auto _ : state) {
    const int pick = generated(args[i]);
    i += 1 + static_cast<size_t>(pick & 1);
    if (i >= args.size()) i -= args.size();
  }
  benchmark::DoNotOptimize(i);
  state.SetItemsProcessed(state.iterations());
}

void BM_json_selector(benchmark::State& state, const LoadedSelector* s) {
  size_t i = 0;
  for (auto _ : state) {
    int pick = s->model->select(s->rows[i]);
    benchmark::DoNotOptimize(pick);
    if (++i == s->rows.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) out.push_back(name);
  return out;
}

// The benchmark is only meaningful if the header is the model: same pick on every problem.
int check_generated_matches(const LoadedSelector& tree) {
  const auto& args = problems().args;
  for (size_t i = 0; i < args.size(); ++i) {
    const int want = tree.model->select(tree.rows[i]), got = generated(args[i]);
    if (want != got) {
      std::fprintf(stderr, "selector_overhead: generated pick %d != JSON tree-b pick %d\n", got,
                   want);
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 2 && std::strcmp(argv[1], "--print-device-slug") == 0) {
      std::printf("%s\n", ktune::query_cpu_device().slug.c_str());
      return 0;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    ktune::register_builtin();  // the dataset's derived features, as `ktune train` saw them
    const ktune::DeviceInfo cpu = ktune::query_cpu_device();
    benchmark::AddCustomContext("ktune_device_slug", cpu.slug);
    benchmark::AddCustomContext("ktune_device_name", cpu.name);
    benchmark::AddCustomContext("ktune_dataset", KTUNE_BENCH_DATA);
    benchmark::AddCustomContext("ktune_problems", std::to_string(problems().args.size()));
    benchmark::AddCustomContext("ktune_k", std::to_string(KTUNE_BENCH_K));

    std::vector<std::unique_ptr<LoadedSelector>> selectors;
    for (const auto& name : split_names(KTUNE_BENCH_SELECTORS)) {
      selectors.push_back(std::make_unique<LoadedSelector>(load_selector(name)));
      if (name == "tree-b" && check_generated_matches(*selectors.back())) return 1;
    }
    benchmark::RegisterBenchmark("generated_tree/tree-b", BM_generated_tree);
    benchmark::RegisterBenchmark("generated_tree_latency/tree-b", BM_generated_tree_latency);
    for (const auto& s : selectors)
      benchmark::RegisterBenchmark(("json_selector/" + s->model->kind()).c_str(), BM_json_selector,
                                   s.get());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  } catch (const ktune::Error& e) {
    std::fprintf(stderr, "selector_overhead: error: %s\n", e.what());
    return 1;
  }
}
