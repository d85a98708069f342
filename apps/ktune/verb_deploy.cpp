// ktune deploy: datasets and a recipe (or trained models) to an installable CMake package of a
// tuned library (ktune/ml/deploy.hpp, docs/deploy.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/ktune/dataset_source.hpp"
#include "apps/ktune/shell_word.hpp"
#include "apps/ktune/unsure_args.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/file_family_deploy.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/deploy.hpp"
#include "ktune/store.hpp"
#include "ktune/strict_number.hpp"

namespace ktune::cli {
namespace {

struct DeployArgs {
  std::string name, output, device, pruner = "pca-kmeans", k = "16", norm = "cutoff",
                                    selector = "tree-b", fallback = "baseline";
  std::vector<std::string> families, data, labels, models, backends{"cpu"}, device_info;
  uint64_t seed = 0;
  ml::UnsureRule unsure;
  bool vendors = false, ship_vendors = false, refuse_untimed_vendors = false;
  std::vector<std::string> vendor_names;
  const CLI::Option* backends_option = nullptr;
};

ml::DeployRecipe recipe_of(const DeployArgs& a) {
  ml::DeployRecipe r;
  r.pruner = ml::parse_prune_method(a.pruner);
  if (a.k == "all") {
    r.k = 0;
  } else {
    size_t used = 0;
    try {
      r.k = std::stoi(a.k, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != a.k.size() || r.k < 1)
      throw Error(fmt::format("--k '{}' is not a positive whole number or 'all'", a.k));
  }
  r.norm = ml::parse_norm(a.norm);
  r.selector = a.selector;
  r.selector_options = {ml::parse_fallback(a.fallback), a.seed, a.unsure};
  r.seed = a.seed;
  r.vendors = a.vendors;
  r.vendor_names = a.vendor_names;
  r.ship_vendors = a.ship_vendors;
  r.refuse_untimed_vendors = a.refuse_untimed_vendors;
  return r;
}

// What the package's files record: the inputs and the recipe, not where the package went, so
// the same inputs give byte-identical files wherever they are written. A labelled dataset is
// recorded by its label (its path is often a temporary file).
std::string command_of(const DeployArgs& a, const ml::DeployRecipe& recipe) {
  std::string c = "ktune deploy --name " + shell_word(a.name);
  for (size_t i = 0; i < a.data.size(); ++i) {
    if (!a.families.empty()) c += " --family " + shell_word(a.families[i]);
    c += a.labels.empty() ? " --data " + shell_word(a.data[i])
                          : " --label " + shell_word(a.labels[i]);
  }
  if (!a.device.empty()) c += " --device " + shell_word(a.device);
  for (const auto& d : a.device_info) c += " --device-info " + shell_word(d);
  for (const auto& m : a.models) c += " --model " + shell_word(m);
  if (!a.data.empty()) c += " " + ml::recipe_arguments(recipe);
  std::string backends;
  for (const auto& b : a.backends) backends += (backends.empty() ? "" : ",") + b;
  return c + " --backends " + shell_word(backends);
}

// --device-info "<slug>:name=<model name>;<feature>=<value>;...": a device's record where the
// dataset does not carry it (an exported CSV keeps only the slug).
std::map<std::string, ml::DeviceRecord> parse_device_info(const std::vector<std::string>& given) {
  std::map<std::string, ml::DeviceRecord> out;
  for (const auto& text : given) {
    const size_t colon = text.find(':');
    if (colon == std::string::npos || colon == 0)
      throw Error(fmt::format("--device-info '{}' is not <slug>:<name>=<value>;...", text));
    ml::DeviceRecord d{text.substr(0, colon), "", {}};
    for (size_t at = colon + 1; at <= text.size();) {
      const size_t end = std::min(text.find(';', at), text.size());
      const std::string item = text.substr(at, end - at);
      at = end + 1;
      if (item.empty()) continue;
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw Error(fmt::format("--device-info '{}': '{}' is not <name>=<value>", text, item));
      if (item.substr(0, eq) == "name") {
        d.name = item.substr(eq + 1);
        continue;
      }
      const auto value = parse_finite_double(item.substr(eq + 1));
      if (!value)
        throw Error(fmt::format("--device-info '{}': '{}' is not a finite number", text, item));
      d.features.emplace_back(item.substr(0, eq), *value);
    }
    out[d.slug] = d;
  }
  return out;
}

// The device's record: --device-info, else the store's devices table, else the slug alone.
ml::DeviceRecord device_record(const std::string& data, const std::string& slug,
                               const std::map<std::string, ml::DeviceRecord>& given) {
  if (auto it = given.find(slug); it != given.end()) return it->second;
  ml::DeviceRecord d{slug, "", {}};
  if (!data.ends_with(".sqlite")) return d;
  for (const auto& info : Store(data, Store::Mode::read_only).devices()) {
    if (info.slug == slug) d = {slug, info.name, info.features};
  }
  return d;
}

nlohmann::json read_model(const std::string& path) {
  try {
    return nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
}

int run_deploy(DeployArgs a) {
  if (a.data.empty() && a.models.empty())
    throw Error("deploy: give --data (with a recipe) or --model");
  if (!a.families.empty() && a.families.size() != a.data.size())
    throw Error(fmt::format("deploy: {} --family for {} --data (give one per --data, in order)",
                            a.families.size(), a.data.size()));
  if (!a.labels.empty() && a.labels.size() != a.data.size())
    throw Error(fmt::format("deploy: {} --label for {} --data (give one per --data, in order)",
                            a.labels.size(), a.data.size()));
  const ml::DeployRecipe recipe = recipe_of(a);
  const auto device_info = parse_device_info(a.device_info);
  std::vector<ml::PackageSelector> selectors;
  for (size_t i = 0; i < a.data.size(); ++i) {
    DatasetSource source;
    source.data = a.data[i];
    source.device = a.device;
    source.family = a.families.empty() ? "" : a.families[i];
    const std::string label = a.labels.empty() ? a.data[i] : a.labels[i];
    const Dataset data = source.load();
    selectors.push_back({ml::train_recipe(data, recipe, label), label,
                         device_record(a.data[i], data.device, device_info)});
    std::fprintf(stdout, "%s/%s: %lld problems, %zu configs shipped (%s)\n", data.device.c_str(),
                 data.family.c_str(), (long long)data.rows(),
                 selectors.back().model["configs"].size(), ml::recipe_arguments(recipe).c_str());
  }
  for (const auto& m : a.models) {
    auto model = read_model(m);
    const std::string slug = model.value("device", "");
    selectors.push_back({model, m, device_record("", slug, device_info)});
  }
  if (a.name.empty()) {
    const auto& m = selectors.front().model;
    a.name = m.is_object() && m.contains("family") && m["family"].is_string()
                 ? m["family"].get<std::string>()
                 : "";
  }
  ml::PackageOptions options{a.name, a.backends, command_of(a, recipe)};
  // Families from problem files (docs/own-kernels.md) ship their kernels in a package of their own.
  const bool own_kernels = std::any_of(selectors.begin(), selectors.end(), [](const auto& s) {
    const auto& m = s.model;
    return m.is_object() && m.contains("family") && m["family"].is_string() &&
           is_file_family(m["family"].template get<std::string>());
  });
  if (own_kernels)
    write_file_family_package(a.output, selectors, options, a.backends_option->count() > 0);
  else
    ml::write_deploy_package(a.output, selectors, options);
  std::fprintf(stderr, "ktune: wrote the package ktune_tuned_%s to %s\n", a.name.c_str(),
               a.output.c_str());
  return 0;
}

void deploy_options(CLI::App& sub, DeployArgs& a) {
  sub.add_option("--family", a.families,
                 "Family of the --data at the same position (repeatable; needed when a dataset "
                 "holds several)");
  sub.add_option("--data", a.data,
                 "Store (.sqlite) or exported measurements (.csv, .csv.gz) to learn a selector "
                 "from (repeatable: one per family and device; several devices of a family make a "
                 "multi-device library)");
  sub.add_option("--label", a.labels,
                 "What the generated files call the --data at the same position, in place of its "
                 "path (default: the path)");
  sub.add_option("--device", a.device, "Device slug (needed when a dataset holds several)");
  sub.add_option("--device-info", a.device_info,
                 "A device's record for a multi-device library, where its dataset lacks it: "
                 "'<slug>:name=<model name>;<feature>=<value>;...' (repeatable; stores carry it)");
  sub.add_option("--model", a.models,
                 "A trained tree selector (ktune train -o) to ship as it is (repeatable)");
  sub.add_option("--pruner", a.pruner,
                 "Recipe: how the K configs are picked (ktune prune --method)")
      ->capture_default_str();
  sub.add_option("--k", a.k, "Recipe: configs to ship, or 'all' (every config that ran)")
      ->capture_default_str();
  sub.add_option("--norm", a.norm, "Recipe: normalization (scale, cutoff, rawcutoff, sigmoid)")
      ->capture_default_str();
  sub.add_option("--selector", a.selector, "Recipe: tree selector (tree-a, tree-b, tree-c)")
      ->capture_default_str();
  sub.add_option("--fallback", a.fallback, "Recipe: when the pick is refused (ktune train)")
      ->capture_default_str();
  sub.add_option("--seed", a.seed, "Recipe: seed of the randomized pruners and models")
      ->capture_default_str();
  add_unsure_options(sub, a.unsure);
  DatasetSource::add_vendors_option(sub, a.vendors, a.vendor_names);
  sub.add_flag("--ship-vendors", a.ship_vendors,
               "With --vendors: ship every vendor call besides the K pruned configs")
      ->needs("--vendors");
  sub.add_flag("--refuse-untimed-vendors", a.refuse_untimed_vendors,
               "With --vendors: a vendor call is refused where the data has no timing of it (not "
               "imputed), e.g. cuBLASLt's heuristic answers timed only where they won")
      ->needs("--vendors");
  a.backends_option =
      sub.add_option("--backends", a.backends,
                     "Backends of the library: cpu, cuda (file families: their kernels' language)")
          ->delimiter(',')
          ->capture_default_str();
  sub.add_option("--name", a.name,
                 "Library name: the package is ktune_tuned_<name> (default: the first family)");
  sub.add_option("-o,--output", a.output, "Package directory to write")->required();
}

const bool verb_deploy_registered = add_verb(
    "deploy", "Build an installable CMake package of a tuned library from datasets or models",
    deploy_options, run_deploy);

}  // namespace
}  // namespace ktune::cli
