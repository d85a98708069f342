#pragma once
// One `ktune` command line run in this process: the executable's main() and the Python package
// (python/bindings.cpp) call the same parsing and verbs, so the package adds no second pipeline.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace ktune::cli {

// What to do with a command line CLI11 refuses (a bad option, --help): the executable prints and
// returns its exit status; the Python package raises.
using ParseErrorHandler = std::function<int(const CLI::App& app, const CLI::ParseError& error)>;

// Runs `ktune argv[1] ...` (argv[0]: the program name): registers the built-in families (once),
// parses, registers the --family-file families and runs the verb. Returns the verb's exit
// status; ktune::Error and every other exception of the verb propagate.
int run(int argc, const char* const* argv, const ParseErrorHandler& on_parse_error);

// Each verb (sorted by name) with its long options (`--name` spellings, the common --family-file
// included) and whether each takes a value (false: a flag): what the Python package checks its
// keyword arguments against.
struct OptionName {
  std::string name;
  bool takes_value;
};
struct VerbOptions {
  std::string verb;
  std::vector<OptionName> options;
};
std::vector<VerbOptions> verb_options();

}  // namespace ktune::cli
