// ktune demo: the whole pipeline in a few minutes, each step saying which data it used. It
// measures on this CPU (every GEMM config of the CPU's best kind over a few cheap DNN shapes, a
// resumable store in the output directory, the best config per shape against the vendor
// libraries in paired rounds, demo_vendor.hpp), but a few shapes are too few to
// learn from, so the learning steps use a committed dataset (by default the H100 one: 431 shapes):
// prune K configs and train a tree-b selector on 80 % of its shapes, score them on the other
// 20 % (never on fewer than kMinHeldOut shapes), generate the selector's C++ header and write the
// HTML report of that dataset.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "apps/ktune/demo_truth.hpp"
#include "apps/ktune/demo_vendor.hpp"
#include "apps/ktune/progress.hpp"
#include "apps/ktune/verb.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"
#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/codegen.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/ml/prune.hpp"
#include "ktune/ml/selector.hpp"
#include "ktune/report.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

#ifndef KTUNE_SOURCE_DIR
#define KTUNE_SOURCE_DIR "."
#endif

// A held-out score from fewer problems than this says more about the split than the method.
constexpr size_t kMinHeldOut = 20;

struct DemoOptions {
  std::string out_dir = "ktune-demo";
  double budget_s = 60;
  int k = 8;
  std::string learn_data = KTUNE_SOURCE_DIR "/results/h100-80gb-hbm3/gemm-dnn.csv.gz";
  std::string learn_deployed = KTUNE_SOURCE_DIR "/results/h100-80gb-hbm3/deployed-cuda.csv";
  std::string learn_eval = KTUNE_SOURCE_DIR "/results/h100-80gb-hbm3/selection.csv";
  std::string kind = "auto";  // this CPU's best kind (demo_truth.hpp), as the deployed library
  size_t rounds = 7;          // paired rounds of each shape's best config against the vendors
  std::string results_dir = KTUNE_SOURCE_DIR "/results";  // whose datasets name their devices
  std::string workload = "demo";  // hidden: tests run a builtin such as "tiny"
  std::string configs = "all";    // hidden: tests sweep a subset
};

// Three ResNet-50 GEMM shapes of 26 MFLOP (forward and both backward transposes): each sweeps
// in seconds on 2 cores, and their aspect ratios differ enough that different configs win.
Workload demo_workload(const Family& family) {
  Workload w;
  w.name = "demo";
  const double shapes[][6] = {
      {0, 0, 64, 3136, 64, 1}, {1, 0, 256, 49, 1024, 1}, {0, 1, 1024, 256, 49, 1}};
  for (const auto& s : shapes) w.problems.push_back(family.make_problem({s, s + 6}));
  return w;
}

using Clock = std::chrono::steady_clock;

// The device's SIMD width in floats as query_cpu_device reads it from /proc/cpuinfo at run time
// (16: AVX-512F), or 0 when it is not recorded.
double simd_floats(const DeviceInfo& device) {
  for (const auto& [name, value] : device.features)
    if (name == "simd_floats") return value;
  return 0;
}

// The 1-minute load average (Linux), or a negative value when unknown.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return in ? load : -1;
}

// A path as the user would type it from here: relative when it is below the current directory.
std::string shown(const std::string& path) {
  std::error_code ec;
  const auto rel = std::filesystem::relative(path, std::filesystem::current_path(), ec);
  return ec || rel.empty() || *rel.begin() == ".." ? path : rel.string();
}

struct Stage {
  Clock::time_point start = Clock::now();
  void begin(int step, const std::string& what) const {
    fmt::print("\n[{}/7 {:5.1f} s] {}\n", step,
               std::chrono::duration<double>(Clock::now() - start).count(), what);
  }
};

// The stored measurements of this workload and config set (a sweep cut short by the budget
// leaves some shapes partly measured: the table says how far each got).
std::vector<Measurement> swept_measurements(Store& store, const std::string& device,
                                            const Workload& workload,
                                            const std::vector<Config>& configs) {
  std::set<std::string> problems;
  std::set<int64_t> config_ids;
  for (const auto& p : workload.problems) problems.insert(p.key());
  for (const auto& c : configs) config_ids.insert(c.id);
  std::vector<Measurement> kept;
  for (auto& m : store.query(device, "gemm")) {
    if (!problems.count(m.problem)) continue;
    if (m.config_id >= 0 && !config_ids.count(m.config_id)) continue;
    kept.push_back(std::move(m));
  }
  return kept;
}

// Per shape the best config measured ok so far (id -1: none) and how many configs were measured
// (ok); returns the shapes not complete.
struct SweptShape {
  Config best;
  double best_perf = 0;
  size_t measured = 0, ok = 0;
};
std::vector<SweptShape> best_per_shape(const Family& family, const Workload& workload,
                                       const std::vector<Measurement>& ms) {
  std::map<std::string, SweptShape> by_key;
  for (const auto& m : ms) {
    if (m.vendor || m.config_id < 0) continue;
    SweptShape& s = by_key[m.problem];
    ++s.measured;
    if (m.outcome.status != Status::ok) continue;
    ++s.ok;
    if (m.perf > s.best_perf) s.best_perf = m.perf, s.best = family.space().at(m.config_id);
  }
  std::vector<SweptShape> out;
  for (const auto& p : workload.problems) out.push_back(by_key[p.key()]);
  return out;
}

// The best config of each shape against the faster vendor library, from paired rounds; next
// to the rounds' GFLOP/s of the config, the sweep's own figure for it, and under the table
// every shape whose two figures disagree (demo::sweep_disagreement).
void print_vendor_table(const Workload& workload, const std::vector<SweptShape>& swept,
                        const std::vector<demo::VendorComparison>& cmp, size_t configs) {
  fmt::print(
      "| shape (m×n×k, transa/b) | best config of the sweep | GFLOP/s rounds (sweep) | faster "
      "vendor GFLOP/s | ktune / vendor (range of rounds) | configs measured (ok) |\n"
      "|---|---|---:|---:|---|---:|\n");
  std::string disagreements;
  for (size_t i = 0; i < workload.problems.size(); ++i) {
    const demo::VendorComparison& c = cmp[i];
    const kernels::gemm::Shape sh = kernels::gemm::shape_of(workload.problems[i]);
    const std::string shape = fmt::format("{}×{}×{}, {}{}", sh.m, sh.n, sh.k, sh.transa ? 'T' : 'N',
                                          sh.transb ? 'T' : 'N');
    const std::string vendor =
        c.vendor.empty() ? "-" : fmt::format("{:.3g} ({})", c.vendor_gflops, c.vendor);
    const std::string ratio = c.ratio.rounds ? demo::describe(c.ratio) : "- " + c.note;
    const std::string ours = fmt::format(
        "{} ({})", c.ktune_gflops > 0 ? fmt::format("{:.3g}", c.ktune_gflops) : "-",
        swept[i].best_perf > 0 ? fmt::format("sweep {:.3g}", swept[i].best_perf) : "no sweep");
    fmt::print("| {} | {} | {} | {} | {} | {} of {} ({}) |\n", shape,
               c.config.empty() ? "-" : c.config, ours, vendor, ratio, swept[i].measured, configs,
               swept[i].ok);
    if (const std::string d = demo::sweep_disagreement(c.ktune_gflops, swept[i].best_perf);
        !d.empty())
      disagreements += fmt::format("  {}: {}.\n", shape, d);
  }
  if (!disagreements.empty()) fmt::print("\n{}", disagreements);
}

// Step 1: every config of the chosen kind over the demo shapes, into the resumable store, timed
// as `ktune bench` times them (TimingPolicy's defaults); then each shape's best config against
// the vendors in paired rounds with the same policy.
void measure_on_this_cpu(const Stage& stage, const DemoOptions& o) {
  const Family& family = find_family("gemm");
  const Workload workload =
      o.workload == "demo" ? demo_workload(family) : load_workload(family, o.workload);
  auto backend = open_backend(family, "cpu");
  const DeviceInfo& device = backend->device();
  const std::string kind =
      demo::choose_kind(o.kind, kernels::gemm::cpu::packedz_available(), simd_floats(device) >= 16);
  std::filesystem::create_directories(o.out_dir);
  const std::string store_path = (std::filesystem::path(o.out_dir) / "store.sqlite").string();
  Store store(store_path);
  SweepOptions sweep;
  // Only the kinds this backend implements: the sweep skips the others without recording them,
  // and a shape is complete when each of these is in the store.
  for (const Config& c : parse_config_list(family.space(), o.configs))
    if (backend->implements(c) &&
        (kind == "all" || family.space().kinds()[size_t(c.kind)].name == kind))
      sweep.configs.push_back(c);
  if (sweep.configs.empty())
    throw Error(fmt::format("demo: no config of kind '{}' to sweep on this CPU", kind));
  sweep.budget_ms = o.budget_s * 1000;
  const std::string kind_text =
      kind == "all" ? "every kind"
      : o.kind == kind
          ? "kind " + kind + "; --kind all for every kind"
          : fmt::format("kind {}, this CPU's best ({} AVX-512); --kind all for every kind", kind,
                        kind == "packedz" ? "with" : "without");
  stage.begin(1, fmt::format("measure on this CPU: {} GEMM configs ({}) × {} DNN shapes + "
                             "vendors on {} ({}), store {} (resumed when present, budget {:.0f} s)",
                             sweep.configs.size(), kind_text, workload.problems.size(), device.name,
                             device.slug, shown(store_path), o.budget_s));
  Progress progress("demo");
  sweep.on_progress = [&](size_t done, size_t total, const Measurement& m) {
    progress.update(done, total, m.config);
  };
  const SweepSummary s = run_sweep(family, *backend, workload, store, sweep);
  progress.finish();
  fmt::print("  {} measurements taken now, {} already in the store", s.measured,
             s.skipped_existing);
  if (const double load = load_average(); load >= 0)
    fmt::print(
        " (load average {:.1f} on {} cores: under load the timings are noisy, multi-threaded "
        "OpenBLAS suffers most; results/ holds sweeps of a quiet machine)",
        load, std::thread::hardware_concurrency());
  fmt::print("\n");

  const std::vector<SweptShape> swept = best_per_shape(
      family, workload, swept_measurements(store, device.slug, workload, sweep.configs));
  std::vector<Config> best;
  for (const auto& sh : swept) best.push_back(sh.best);
  fmt::print(
      "  Each shape's best config and every vendor timed again in {} paired rounds (the bench's "
      "protocol: verified, warmed up, a {:.0f} ms idle gap before each; ratio > 1: ktune faster; "
      "a range that holds 1 is within noise):\n\n",
      o.rounds, kernels::gemm::cpu::kSettleMs);
  const auto cmp =
      demo::compare_with_vendors(family, *backend, workload, best, o.rounds, sweep.timing);
  print_vendor_table(workload, swept, cmp, sweep.configs.size());
  size_t incomplete = 0;
  for (const auto& sh : swept) incomplete += sh.measured < sweep.configs.size();
  if (s.budget_exhausted || incomplete) {
    fmt::print(
        "\nThe time budget ran out with {} shape(s) not fully measured: rerun the same command "
        "to continue (the store keeps every finished measurement).\n",
        incomplete);
  }
  fmt::print("\n  {}.\n", demo::committed_cpu_note(device.name, device.slug,
                                                   demo::committed_device_slugs(o.results_dir)));
  fmt::print(
      "\n{} shapes are enough to show the measurement, not to learn from: the next steps use a "
      "dataset of many shapes.\n",
      workload.problems.size());
}

struct Learned {
  ml::Split split;
  Dataset train, test;
  std::vector<Eigen::Index> shipped;
  std::unique_ptr<ml::Selector> selector;
};

// Steps 3 and 4: prune and train on the training shapes of the seeded 80/20 split.
Learned learn(const Stage& stage, const Dataset& data, const DemoOptions& o, ml::Norm norm) {
  Learned l;
  l.split = ml::random_split(data, 0.2, 0);
  l.train = data.subset_rows(l.split.train);
  l.test = data.subset_rows(l.split.test);
  stage.begin(3, fmt::format("prune: K = {} configs to ship (pca-kmeans, {} normalization) from "
                             "the {} training shapes of {} (seeded 80/20 split)",
                             o.k, ml::to_string(norm), l.train.rows(), shown(o.learn_data)));
  ml::PruneOptions po;
  po.method = ml::PruneMethod::pca_kmeans;
  po.k = o.k;
  po.norm = norm;
  l.shipped = ml::prune(l.train, po);
  std::string list;
  for (auto c : l.shipped) {
    const std::vector<Eigen::Index> one = {c};
    fmt::print("  {:<52} alone {:5.1f} % of oracle\n", l.train.config_names[size_t(c)],
               100 * ml::ceiling(l.train, one));
    list += l.train.config_names[size_t(c)] + "\n";
  }
  fmt::print("  together (ceiling on the training shapes): {:.1f} % of oracle\n",
             100 * ml::ceiling(l.train, l.shipped));
  write_text_file((std::filesystem::path(o.out_dir) / "configs.txt").string(), list);

  stage.begin(4, fmt::format("train: tree-b selector over the shipped configs, on the same {} "
                             "training shapes",
                             l.train.rows()));
  l.selector = ml::make_selector("tree-b");
  l.selector->fit(l.train, l.shipped, norm);
  const auto fit = ml::evaluate_selector(*l.selector, l.train, l.shipped, ml::safe_order(l.train));
  fmt::print(
      "  on its own training shapes: {:.1f} % of oracle (ceiling {:.1f} %; not a score: "
      "see the next step)\n",
      fit.pct_of_oracle, fit.ceiling_pct);
  return l;
}

// Step 5: the same model on the shapes it never saw; no score from too few of them.
void print_held_out(const Learned& l, const DemoOptions& o) {
  const size_t n = l.split.test.size();
  if (n < kMinHeldOut) {
    fmt::print(
        "  only {} held-out shapes (fewer than {}): too few for a meaningful score, none "
        "printed. Learn from a dataset with more shapes (--learn-data).\n",
        n, kMinHeldOut);
    return;
  }
  const auto m = ml::evaluate_selector(*l.selector, l.test, l.shipped, ml::safe_order(l.train));
  // speedup_vs_reference = geomean(served / fixed) and pct = geomean(served / oracle), with the
  // same floor, so their quotient is the fixed config's own % of oracle on these shapes.
  const double fixed = m.pct_of_oracle / m.speedup_vs_reference;
  fmt::print(
      "  % of oracle = 100 × geometric mean over the {} held-out shapes of GFLOP/s of the served "
      "config / GFLOP/s of the best of all {} configs.\n\n",
      m.problems, l.test.cols());
  fmt::print("| what is shipped | % of oracle |\n|---|---:|\n");
  fmt::print("| best single fixed config of the training shapes (no selector) | {:.1f} |\n", fixed);
  fmt::print("| tree-b over K = {} pca-kmeans configs | {:.1f} |\n", o.k, m.pct_of_oracle);
  fmt::print("| ceiling of those K = {} (a perfect selector) | {:.1f} |\n", o.k, m.ceiling_pct);
  fmt::print(
      "\n  (`ktune eval --data {}` runs every pruner × selector on this and the "
      "leave-one-network-out splits.)\n",
      shown(o.learn_data));
}

int run_demo(const DemoOptions& o) {
  const Stage stage;
  const std::filesystem::path dir(o.out_dir);
  measure_on_this_cpu(stage, o);

  stage.begin(2, fmt::format("learning data: {}", shown(o.learn_data)));
  const Dataset data = load_dataset(o.learn_data, "", "gemm");
  fmt::print(
      "  {} shapes × {} configs measured on {} (provenance: results/INDEX.md); every "
      "step below uses it\n",
      data.rows(), data.cols(), data.device);
  const ml::Norm norm = ml::Norm::cutoff;  // the deployed recipe of results/LOG.md
  const Learned l = learn(stage, data, o, norm);

  stage.begin(5, fmt::format("eval: the same model on the {} held-out shapes of {} (not used in "
                             "steps 3-4)",
                             l.split.test.size(), shown(o.learn_data)));
  print_held_out(l, o);

  stage.begin(6, "codegen: the tree as a self-contained C++17 header");
  nlohmann::json model = l.selector->to_json();
  model["family"] = data.family;
  model["device"] = data.device;
  model["dataset"] = shown(o.learn_data);
  const std::string model_path = (dir / "tree-b.json").string();
  write_text_file(model_path, model.dump(1) + "\n");
  ml::CodegenOptions co;
  co.command = "ktune demo --out-dir " + o.out_dir;
  co.model_path = model_path;
  const std::string header = ml::generate_selector_header(model, co);
  const std::string header_path = (dir / "ktune_selector.hpp").string();
  write_text_file(header_path, header);
  fmt::print("  wrote {} (model {}); its first lines:\n", header_path, model_path);
  std::istringstream lines(header);
  std::string line;
  for (int i = 0; i < 14 && std::getline(lines, line); ++i) fmt::print("    {}\n", line);
  fmt::print(
      "    ...\n  Include it and call ktune_selector::select(transa, transb, m, n, k, batch).\n");

  // The deployed run and the evaluation table (`ktune eval --csv`) of the learning data, when
  // they are there; otherwise the report evaluates the pruners itself (minutes on 2 cores).
  report::HtmlReportRequest r;
  r.out = (dir / "report.html").string();
  if (std::filesystem::exists(o.learn_deployed)) r.deployed = o.learn_deployed;
  if (std::filesystem::exists(o.learn_eval)) r.eval = o.learn_eval;
  stage.begin(7, fmt::format("report: the figures of {}{}{}", shown(o.learn_data),
                             r.deployed.empty() ? "" : ", its deployed run " + shown(r.deployed),
                             r.eval.empty() ? ", its pruners evaluated now"
                                            : ", its evaluation table " + shown(r.eval)));
  const auto summary = report::write_html_report(data, shown(o.learn_data), r);
  fmt::print("  {} figures.\n\nDone in {:.0f} s. Report: {}\n", summary.figures,
             std::chrono::duration<double>(Clock::now() - stage.start).count(), shown(r.out));
  return 0;
}

void demo_options(CLI::App& app, DemoOptions& o) {
  app.add_option("-o,--out-dir", o.out_dir,
                 "Directory for the store (resumed when present), model, tables and header")
      ->capture_default_str();
  app.add_option("--budget-s", o.budget_s, "Sweep time budget in seconds")->capture_default_str();
  app.add_option("--k", o.k, "Number of configs to ship")->capture_default_str();
  app.add_option("--learn-data", o.learn_data,
                 "Dataset the learning steps use (store or exported CSV)")
      ->capture_default_str();
  app.add_option("--learn-deployed", o.learn_deployed,
                 "That dataset's deployed run, plotted in the report when the file exists")
      ->capture_default_str();
  app.add_option("--learn-eval", o.learn_eval,
                 "That dataset's `ktune eval --csv` table, plotted in the report when the file "
                 "exists (else the report evaluates the pruners)")
      ->capture_default_str();
  app.add_option(
         "--kind", o.kind,
         "Config kind to sweep on this CPU, all, or auto: packedz with AVX-512, else packed")
      ->capture_default_str();
  app.add_option("--rounds", o.rounds,
                 "Paired rounds of each shape's best config against the vendors (a ratio is "
                 "claimed from 5 or more)")
      ->capture_default_str();
  app.add_option("--results-dir", o.results_dir,
                 "Committed datasets, to say whether any was measured on this CPU")
      ->capture_default_str();
  // Hidden: a smaller workload and config subset keep the end-to-end test short.
  app.add_option("--workload", o.workload, "")->group("");
  app.add_option("--configs", o.configs, "")->group("");
}

const bool verb_demo_registered = add_verb(
    "demo",
    "The whole pipeline in minutes: sweep on this CPU, then prune, train, eval, codegen and the "
    "HTML report on a committed dataset",
    demo_options, run_demo);

}  // namespace
}  // namespace ktune::cli
