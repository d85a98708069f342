#pragma once
// Each CLI verb lives in its own file and registers itself at static-initialization time:
//   static const bool registered = ktune::cli::add_verb("bench", "Sweep ...", setup_bench);
// setup adds the verb's options to its subcommand and returns the action run after parsing.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
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

}  // namespace ktune::cli
