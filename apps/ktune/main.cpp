// The ktune command line: one subcommand per verb (see verb.hpp); every ktune::Error becomes a
// one-line message on stderr and exit status 1.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "apps/ktune/numeric_options.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/excerpt.hpp"
#include "ktune/family.hpp"
#include "ktune/file_family.hpp"

#ifdef KTUNE_HAVE_CUDA
#include "ktune/cuda.hpp"
#endif

namespace ktune::cli {

static std::vector<Verb>& registry() {
  static std::vector<Verb> all;
  return all;
}

bool add_verb(std::string name, std::string help, Setup setup) {
  registry().push_back({std::move(name), std::move(help), std::move(setup)});
  return true;
}

const std::vector<Verb>& verbs() { return registry(); }

}  // namespace ktune::cli

namespace {

// The command line as typed, so that an unexpected failure still names its inputs.
std::string command_line(int argc, char** argv) {
  std::string out = "ktune";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    out += plain ? " " + arg : " '" + arg + "'";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ktune;
  try {
    register_builtin();
#ifdef KTUNE_HAVE_CUDA
    register_cuda_backends();
#endif
    CLI::App app{"ktune: tune parameterized kernels per device, learn a selector, deploy it"};
    app.require_subcommand(1);
    // Every verb reads the families of tuning-problem files (docs/own-kernels.md): verbs inherit
    // fallthrough, so `ktune eval --family-file p.json ...` reaches this option.
    std::vector<std::string> family_files;
    app.add_option("--family-file", family_files,
                   "A tuning-problem file whose family joins the built-in ones (own kernels)");
    app.fallthrough();
    auto sorted = cli::verbs();
    std::sort(sorted.begin(), sorted.end(),
              [](const cli::Verb& a, const cli::Verb& b) { return a.name < b.name; });
    std::vector<std::pair<CLI::App*, cli::Action>> actions;
    for (const auto& verb : sorted) {
      CLI::App* sub = app.add_subcommand(verb.name, verb.help);
      actions.emplace_back(sub, verb.setup(*sub));
    }
    cli::check_numeric_options(app);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ValidationError& e) {
      // A value the option refuses (numeric_options.hpp, ranges): one line naming the option.
      std::fprintf(stderr, "ktune: error: %s\n", e.what());
      return 1;
    } catch (const CLI::ParseError& e) {
      return app.exit(e);
    }
    for (const auto& file : family_files) register_file_family(file);
    for (auto& [sub, action] : actions) {
      if (sub->parsed()) return action();
    }
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "ktune: error: %s\n", e.what());
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path given on the command line that cannot be made or read (e.g. an output directory
    // that is a file): the user's input, not an internal error; the message names the path.
    std::fprintf(stderr, "ktune: error: %s\n", excerpt(e.what(), 1000).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune: internal error in '%s': %s\n", command_line(argc, argv).c_str(),
                 e.what());
    return 3;
  }
}
