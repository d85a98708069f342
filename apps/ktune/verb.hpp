#pragma once
// Each CLI verb lives in its own file and registers itself at static-initialization time:
//   static const bool registered = ktune::cli::add_verb("bench", "Sweep ...", setup_bench);
// setup adds the verb's options to its subcommand and returns the action run after parsing.
// Most verbs read their options into one struct and run on it; they register its options and
// their run instead:
//   static const bool registered =
//       ktune::cli::add_verb("prune", "Pick ...", prune_options, run_prune);
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ktune::cli {

using Action = std::function<int()>;
using Setup = std::function<Action(CLI::App& subcommand)>;

struct Verb {
  std::string name, help;
  Setup setup;
};

bool add_verb(std::string name, std::string help, Setup setup);
const std::vector<Verb>& verbs();

// options binds the subcommand's options to one Args, which lives as long as the action; the
// action is run(args).
template <class Args, class Run>
bool add_verb(std::string name, std::string help, void (*options)(CLI::App&, Args&), Run run) {
  return add_verb(std::move(name), std::move(help), [options, run](CLI::App& subcommand) {
    auto args = std::make_shared<Args>();
    options(subcommand, *args);
    return Action([args, run] { return run(*args); });
  });
}

}  // namespace ktune::cli
