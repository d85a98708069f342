// ktune tune-device: a new device in minutes (docs/deploy.md, "Adding a device"). Sampled tuning
// on the device it runs on (`ktune bench --strategy model`, the one search driver, with other
// devices' data as its prior), then the device's selector: added to a multi-device package
// beside the other devices' datasets (`ktune deploy`), or written as a model for deploy --model.
// The verbs run in this process with the arguments printed, so each step can be rerun alone.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "apps/ktune/shell_word.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/store.hpp"

namespace ktune::cli {
namespace {

struct TuneDeviceArgs {
  std::string family = "gemm", device = "cpu", workload, store, budget = "5%", simulate, name,
              output, model, k = "16", pruner = "pca-kmeans", selector = "tree-b", backends = "cpu";
  int64_t total_budget = 0;
  uint64_t seed = 0;
  std::vector<std::string> prior, with, device_info;
  // Handed to bench as given (unset: bench's defaults): the space searched and the timing.
  std::vector<std::pair<std::string, std::string>> bench_options;
  // The recipe's vendor candidates and unsure rule (as deploy; train for --emit-model).
  bool vendors = false, complete = false;
  std::string min_vote_share;
};

// Runs another verb of this CLI with args, printing it as a command line first.
int run_verb(const std::string& name, std::vector<std::string> args) {
  std::string line = "ktune " + name;
  for (const auto& a : args) line += " " + shell_word(a);
  fmt::print(stderr, "tune-device: {}\n", line);
  for (const auto& verb : verbs()) {
    if (verb.name != name) continue;
    CLI::App app{verb.help, name};
    const Action action = verb.setup(app);
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
    try {
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      throw Error(fmt::format("{}: {}", line, e.what()));
    }
    return action();
  }
  throw Error("no verb " + name);
}

size_t stored_rows(const std::string& path) {
  return std::filesystem::exists(path) ? Store(path, Store::Mode::read_only).count() : 0;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ktune bench on the device (or the replay): the model search, or every config of `configs`.
int run_bench(const TuneDeviceArgs& a, const std::string& configs) {
  std::vector<std::string> bench = {"--family",   a.family,   "--device", a.device,
                                    "--workload", a.workload, "--store",  a.store};
  if (configs.empty()) {
    bench.insert(bench.end(),
                 {"--strategy", "model", "--budget", a.budget, "--seed", std::to_string(a.seed)});
    if (a.total_budget > 0)
      bench.insert(bench.end(), {"--total-budget", std::to_string(a.total_budget)});
    for (const auto& p : a.prior) bench.insert(bench.end(), {"--prior", p});
  } else {
    bench.insert(bench.end(), {"--configs", configs});
  }
  for (const auto& [option, value] : a.bench_options)
    if (configs.empty() || option != "--configs") bench.insert(bench.end(), {option, value});
  if (!a.simulate.empty()) bench.insert(bench.end(), {"--simulate", a.simulate});
  return run_verb("bench", bench);
}

// The kept configs that bench can measure (a vendor candidate is measured on every problem
// anyway), as one --configs list.
std::string measurable_configs(const std::string& configs_file) {
  std::istringstream in(read_text_file(configs_file));
  std::string list, line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#' && !line.starts_with("vendor="))
      list += (list.empty() ? "" : ",") + line;
  return list;
}

// The new device's record from its store, for deploy --model (which sees only a slug).
std::string device_info_of(const std::string& store) {
  std::string out;
  for (const auto& d : Store(store, Store::Mode::read_only).devices()) {
    out = d.slug + ":name=" + d.name;
    for (const auto& [feature, value] : d.features) out += fmt::format(";{}={}", feature, value);
  }
  return out;
}

int run_tune_device(const TuneDeviceArgs& a) {
  if (a.output.empty() == a.model.empty())
    throw Error("tune-device: give -o <package dir> or --emit-model <file>, one of them");
  if (!a.with.empty() && a.output.empty())
    throw Error("tune-device: --with joins other devices' data to a package: give -o");
  const auto start = std::chrono::steady_clock::now();
  const size_t before = stored_rows(a.store);
  if (const int rc = run_bench(a, ""); rc != 0) return rc;

  std::vector<std::string> recipe = {"--seed", std::to_string(a.seed)}, rule;
  if (a.vendors) recipe.push_back("--vendors");
  if (!a.min_vote_share.empty()) rule = {"--min-vote-share", a.min_vote_share};  // not prune's
  // deploy's recipe as its two steps (docs/deploy.md): prune, then train over the kept configs;
  // --complete measures the kept configs on every problem between the two.
  const std::string model =
      a.model.empty() ? (std::filesystem::path(a.output) / "new-device-model.json").string()
                      : a.model;
  const bool steps = !a.model.empty() || a.complete;
  if (steps) {
    if (!a.output.empty()) std::filesystem::create_directories(a.output);
    const std::string configs = model + ".configs.txt";
    std::vector<std::string> prune = {"--data", a.store, "--family", a.family, "--method", a.pruner,
                                      "--k",    a.k,     "--norm",   "cutoff", "-o",       configs};
    prune.insert(prune.end(), recipe.begin(), recipe.end());
    if (const int rc = run_verb("prune", prune); rc != 0) return rc;
    if (a.complete) {
      const std::string list = measurable_configs(configs);
      if (!list.empty())
        if (const int rc = run_bench(a, list); rc != 0) return rc;
    }
    std::vector<std::string> train = {"--data",     a.store,    "--family", a.family,
                                      "--selector", a.selector, "--norm",   "cutoff",
                                      "--configs",  configs,    "-o",       model};
    train.insert(train.end(), recipe.begin(), recipe.end());
    train.insert(train.end(), rule.begin(), rule.end());
    if (const int rc = run_verb("train", train); rc != 0) return rc;
  }
  const size_t measured = stored_rows(a.store) - before;
  const double tuned_s = seconds_since(start);

  if (!a.output.empty()) {
    std::vector<std::string> deploy;
    if (!steps) {
      deploy = {"--family", a.family, "--data", a.store};
    } else {  // the new device's model, and its record from the store (a model names the slug)
      deploy = {"--model", model};
      if (const std::string info = device_info_of(a.store); !info.empty())
        deploy.insert(deploy.end(), {"--device-info", info});
    }
    for (const auto& w : a.with) deploy.insert(deploy.end(), {"--family", a.family, "--data", w});
    for (const auto& d : a.device_info) deploy.insert(deploy.end(), {"--device-info", d});
    if (!a.with.empty() || !steps) {
      deploy.insert(deploy.end(), {"--k", a.k, "--pruner", a.pruner, "--selector", a.selector});
      deploy.insert(deploy.end(), recipe.begin(), recipe.end());
      deploy.insert(deploy.end(), rule.begin(), rule.end());
    }
    if (!a.name.empty()) deploy.insert(deploy.end(), {"--name", a.name});
    deploy.insert(deploy.end(), {"--backends", a.backends, "-o", a.output});
    if (const int rc = run_verb("deploy", deploy); rc != 0) return rc;
  }
  fmt::print("tune-device: {} measurements of {} in {:.1f} s of tuning, {:.1f} s in all\n",
             measured, a.family, tuned_s, seconds_since(start));
  return 0;
}

void tune_device_options(CLI::App& sub, TuneDeviceArgs& a) {
  sub.add_option("--family", a.family, "Kernel family")->capture_default_str();
  sub.add_option("--device", a.device, "Device to tune (cpu, cuda:0)")->capture_default_str();
  sub.add_option("--workload", a.workload, "Workload to tune for (as ktune bench)")->required();
  sub.add_option("--store", a.store, "Store the new device's measurements go to")->required();
  sub.add_option("--budget", a.budget,
                 "Configs measured per problem: a count or a percentage of the space")
      ->capture_default_str();
  sub.add_option("--total-budget", a.total_budget, "New measurements in this run at most");
  sub.add_option("--prior", a.prior,
                 "Other devices' measurements the model search learns from (repeatable)");
  sub.add_option("--simulate", a.simulate,
                 "Replay this dataset instead of measuring (tests; --device names its device)");
  sub.add_option("--seed", a.seed, "Seed of the search and the recipe")->capture_default_str();
  // bench's space and timing options, passed on only when given (a GPU sweep's short timing).
  // Not --budget-ms: the steps after a bench cut short would learn from what it left.
  for (const char* option :
       {"--configs", "--warmups", "--min-reps", "--max-reps", "--rep-budget-ms", "--timeout-ms"})
    sub.add_option_function<std::string>(
        option, [&a, option](const std::string& v) { a.bench_options.emplace_back(option, v); },
        std::string("As ktune bench ") + option);
  sub.add_option("--with", a.with,
                 "Another device's dataset of the family to ship beside the new one (repeatable)");
  sub.add_option("--device-info", a.device_info, "As ktune deploy --device-info (repeatable)");
  sub.add_option("--k", a.k, "Recipe: configs per device (as ktune deploy)")->capture_default_str();
  sub.add_option("--pruner", a.pruner, "Recipe: pruner")->capture_default_str();
  sub.add_option("--selector", a.selector, "Recipe: tree selector")->capture_default_str();
  sub.add_flag("--complete", a.complete,
               "After the search, measure the recipe's K pruned configs on every problem and "
               "train the selector on them (a sampled store leaves most of them unmeasured)");
  sub.add_flag("--vendors", a.vendors,
               "Recipe: the vendor libraries' rows as candidates (as ktune deploy)");
  sub.add_option("--min-vote-share", a.min_vote_share, "Recipe: the unsure rule (as ktune deploy)");
  sub.add_option("--name", a.name, "Package name (as ktune deploy)");
  sub.add_option("--backends", a.backends,
                 "The package's backends (as ktune deploy; cuda for a GPU)")
      ->capture_default_str();
  sub.add_option("-o,--output", a.output, "Package directory to write (ktune deploy)");
  sub.add_option("--emit-model", a.model, "Write the device's selector model here instead");
}

const bool verb_tune_device_registered =
    add_verb("tune-device",
             "Tune the device it runs on by sampled search and add it to a multi-device library",
             tune_device_options, run_tune_device);

}  // namespace
}  // namespace ktune::cli
