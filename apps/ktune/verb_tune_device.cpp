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

#include "apps/ktune/shell_word.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/store.hpp"

namespace ktune::cli {
namespace {

struct TuneDeviceArgs {
  std::string family = "gemm", device = "cpu", workload, store, budget = "5%", simulate, name,
              output, model, k = "16", pruner = "pca-kmeans", selector = "tree-b", backends = "cpu";
  int64_t total_budget = 0;
  uint64_t seed = 0;
  std::vector<std::string> prior, with, device_info;
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

int run_tune_device(const TuneDeviceArgs& a) {
  if (a.output.empty() == a.model.empty())
    throw Error("tune-device: give -o <package dir> or --emit-model <file>, one of them");
  if (!a.with.empty() && a.output.empty())
    throw Error("tune-device: --with joins other devices' data to a package: give -o");
  const auto start = std::chrono::steady_clock::now();
  const size_t before = stored_rows(a.store);
  std::vector<std::string> bench = {"--family",   a.family,
                                    "--device",   a.device,
                                    "--workload", a.workload,
                                    "--store",    a.store,
                                    "--strategy", "model",
                                    "--budget",   a.budget,
                                    "--seed",     std::to_string(a.seed)};
  if (a.total_budget > 0)
    bench.insert(bench.end(), {"--total-budget", std::to_string(a.total_budget)});
  for (const auto& p : a.prior) bench.insert(bench.end(), {"--prior", p});
  if (!a.simulate.empty()) bench.insert(bench.end(), {"--simulate", a.simulate});
  if (const int rc = run_verb("bench", bench); rc != 0) return rc;
  const size_t measured = stored_rows(a.store) - before;
  const double tuned_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<std::string> recipe = {
      "--k", a.k, "--pruner", a.pruner, "--selector", a.selector, "--seed", std::to_string(a.seed)};
  if (!a.output.empty()) {
    std::vector<std::string> deploy = {"--family", a.family, "--data", a.store};
    for (const auto& w : a.with) deploy.insert(deploy.end(), {"--family", a.family, "--data", w});
    for (const auto& d : a.device_info) deploy.insert(deploy.end(), {"--device-info", d});
    deploy.insert(deploy.end(), recipe.begin(), recipe.end());
    if (!a.name.empty()) deploy.insert(deploy.end(), {"--name", a.name});
    deploy.insert(deploy.end(), {"--backends", a.backends});
    deploy.insert(deploy.end(), {"-o", a.output});
    if (const int rc = run_verb("deploy", deploy); rc != 0) return rc;
  } else {
    // deploy's recipe as its two steps (docs/deploy.md): prune, then train over the kept configs.
    const std::string configs = a.model + ".configs.txt";
    if (const int rc = run_verb(
            "prune", {"--data", a.store, "--family", a.family, "--method", a.pruner, "--k", a.k,
                      "--norm", "cutoff", "--seed", std::to_string(a.seed), "-o", configs});
        rc != 0)
      return rc;
    if (const int rc = run_verb("train", {"--data", a.store, "--family", a.family, "--selector",
                                          a.selector, "--norm", "cutoff", "--configs", configs,
                                          "--seed", std::to_string(a.seed), "-o", a.model});
        rc != 0)
      return rc;
  }
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("tune-device: {} measurements of {} in {:.1f} s of tuning, {:.1f} s in all\n",
             measured, a.family, tuned_s, total_s);
  return 0;
}

Action setup_tune_device(CLI::App& sub) {
  auto a = std::make_shared<TuneDeviceArgs>();
  sub.add_option("--family", a->family, "Kernel family")->capture_default_str();
  sub.add_option("--device", a->device, "Device to tune (cpu, cuda:0)")->capture_default_str();
  sub.add_option("--workload", a->workload, "Workload to tune for (as ktune bench)")->required();
  sub.add_option("--store", a->store, "Store the new device's measurements go to")->required();
  sub.add_option("--budget", a->budget,
                 "Configs measured per problem: a count or a percentage of the space")
      ->capture_default_str();
  sub.add_option("--total-budget", a->total_budget, "New measurements in this run at most");
  sub.add_option("--prior", a->prior,
                 "Other devices' measurements the model search learns from (repeatable)");
  sub.add_option("--simulate", a->simulate,
                 "Replay this dataset instead of measuring (tests; --device names its device)");
  sub.add_option("--seed", a->seed, "Seed of the search and the recipe")->capture_default_str();
  sub.add_option("--with", a->with,
                 "Another device's dataset of the family to ship beside the new one (repeatable)");
  sub.add_option("--device-info", a->device_info, "As ktune deploy --device-info (repeatable)");
  sub.add_option("--k", a->k, "Recipe: configs per device (as ktune deploy)")
      ->capture_default_str();
  sub.add_option("--pruner", a->pruner, "Recipe: pruner")->capture_default_str();
  sub.add_option("--selector", a->selector, "Recipe: tree selector")->capture_default_str();
  sub.add_option("--name", a->name, "Package name (as ktune deploy)");
  sub.add_option("--backends", a->backends,
                 "The package's backends (as ktune deploy; cuda for a GPU)")
      ->capture_default_str();
  sub.add_option("-o,--output", a->output, "Package directory to write (ktune deploy)");
  sub.add_option("--emit-model", a->model, "Write the device's selector model here instead");
  return [a] { return run_tune_device(*a); };
}

const bool verb_tune_device_registered =
    add_verb("tune-device",
             "Tune the device it runs on by sampled search and add it to a multi-device library",
             setup_tune_device);

}  // namespace
}  // namespace ktune::cli
