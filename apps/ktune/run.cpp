// The verb registry and the parse-and-run of one command line (run.hpp).
#include "apps/ktune/run.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "apps/ktune/numeric_options.hpp"
#include "apps/ktune/verb.hpp"
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

namespace {

// The whole command line's parser: one subcommand per verb, each with the action run after
// parsing. Built afresh for every run, so no option value outlives its command.
struct Parser {
  std::unique_ptr<CLI::App> app;
  std::vector<std::string> family_files;
  std::vector<std::pair<CLI::App*, Action>> actions;
};

std::unique_ptr<Parser> make_parser() {
  auto parser = std::make_unique<Parser>();
  parser->app = std::make_unique<CLI::App>(
      "ktune: tune parameterized kernels per device, learn a selector, deploy it");
  CLI::App& app = *parser->app;
  app.require_subcommand(1);
  // Every verb reads the families of tuning-problem files (docs/own-kernels.md): verbs inherit
  // fallthrough, so `ktune eval --family-file p.json ...` reaches this option.
  app.add_option("--family-file", parser->family_files,
                 "A tuning-problem file whose family joins the built-in ones (own kernels)");
  app.fallthrough();
  auto sorted = verbs();
  std::sort(sorted.begin(), sorted.end(),
            [](const Verb& a, const Verb& b) { return a.name < b.name; });
  for (const auto& verb : sorted) {
    CLI::App* sub = app.add_subcommand(verb.name, verb.help);
    parser->actions.emplace_back(sub, verb.setup(*sub));
  }
  check_numeric_options(app);
  return parser;
}

}  // namespace

int run(int argc, const char* const* argv, const ParseErrorHandler& on_parse_error) {
  register_builtin();
#ifdef KTUNE_HAVE_CUDA
  register_cuda_backends();
#endif
  const auto parser = make_parser();
  try {
    parser->app->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return on_parse_error(*parser->app, e);
  }
  for (const auto& file : parser->family_files) register_file_family(file);
  for (auto& [sub, action] : parser->actions) {
    if (sub->parsed()) return action();
  }
  return 2;
}

std::vector<VerbOptions> verb_options() {
  const auto parser = make_parser();
  std::vector<VerbOptions> out;
  for (const auto& [sub, action] : parser->actions) {
    VerbOptions verb{sub->get_name(), {{"--family-file", true}}};
    for (const CLI::Option* option : sub->get_options())
      for (const std::string& name : option->get_lnames())
        verb.options.push_back({"--" + name, option->get_expected_max() != 0});
    out.push_back(std::move(verb));
  }
  return out;
}

}  // namespace ktune::cli
