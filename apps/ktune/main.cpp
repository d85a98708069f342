// The ktune command line: one subcommand per verb (see verb.hpp); every ktune::Error becomes a
// one-line message on stderr and exit status 1.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "apps/ktune/run.hpp"
#include "ktune/error.hpp"
#include "ktune/excerpt.hpp"

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
    return cli::run(argc, argv, [](const CLI::App& app, const CLI::ParseError& e) {
      if (dynamic_cast<const CLI::ValidationError*>(&e)) {
        // A value the option refuses (numeric_options.hpp, ranges): one line naming the option.
        std::fprintf(stderr, "ktune: error: %s\n", e.what());
        return 1;
      }
      return app.exit(e);
    });
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
