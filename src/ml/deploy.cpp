// The deploy recipe: prune, then fit a selector over the picked configs (deploy.hpp).
#include "ktune/ml/deploy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "ktune/error.hpp"
#include "ktune/vendor_candidates.hpp"

namespace ktune::ml {

std::string recipe_arguments(const DeployRecipe& r) {
  const PruneMethod pruner = r.k > 0 ? r.pruner : PruneMethod::topn;  // "all" keeps every one
  std::string args =
      fmt::format("--pruner {} --k {} --norm {} --selector {}", to_string(pruner),
                  r.k > 0 ? std::to_string(r.k) : "all", to_string(r.norm), r.selector);
  const SelectorOptions& s = r.selector_options;
  if (s.fallback != Fallback::baseline) args += " --fallback " + to_string(s.fallback);
  if (s.unsure.min_vote_share > 0)
    args += fmt::format(" --min-vote-share {}", s.unsure.min_vote_share);
  if (s.unsure.range_guard) args += " --range-guard";
  if (s.unsure.leaf_margin > 0)
    args += fmt::format(" --unsure-leaf-margin {}", s.unsure.leaf_margin);
  if (s.unsure.vendor) args += " --unsure-vendor";
  if (!s.unsure.range_guard_skip.empty())
    args += fmt::format(" --range-guard-skip {}", fmt::join(s.unsure.range_guard_skip, ","));
  if (s.unsure.leaf_floor > 0) args += fmt::format(" --leaf-floor {}", s.unsure.leaf_floor);
  if (!s.unsure.floor_vendors.empty())
    args += fmt::format(" --floor-vendors {}", fmt::join(s.unsure.floor_vendors, ","));
  if (s.unsure.leaf_box) args += " --leaf-box";
  if (s.unsure.leaf_box_all) args += " --leaf-box-all";
  if (s.unsure.leaf_vendor) args += " --unsure-leaf-vendor";
  if (r.seed != 0 || s.seed != 0) args += fmt::format(" --seed {}", r.seed);
  if (r.vendors) args += " --vendors";
  if (r.vendors && !r.vendor_names.empty())
    args += fmt::format(" --vendor-names {}", fmt::join(r.vendor_names, ","));
  if (r.vendors && r.ship_vendors) args += " --ship-vendors";
  if (r.vendors && r.refuse_untimed_vendors) args += " --refuse-untimed-vendors";
  return args;
}

nlohmann::json train_recipe(const Dataset& given, const DeployRecipe& recipe,
                            const std::string& dataset_label) {
  if (recipe.refuse_untimed_vendors && !recipe.vendors)
    throw Error(dataset_label + ": --refuse-untimed-vendors needs --vendors");
  const Dataset data =
      !recipe.vendors ? given
      : recipe.refuse_untimed_vendors
          ? refuse_unmeasured_vendor_cells(with_vendor_candidates(given, recipe.vendor_names))
          : with_vendor_candidates(given, recipe.vendor_names);
  PruneOptions prune_options;
  prune_options.method = recipe.pruner;
  prune_options.norm = recipe.norm;
  prune_options.seed = recipe.seed;
  // "all": every config with a verified run, which topn keeps in full.
  prune_options.k = recipe.k > 0 ? recipe.k : int(data.valid.colwise().any().count());
  if (recipe.k <= 0) prune_options.method = PruneMethod::topn;
  if (prune_options.k < 1) throw Error(dataset_label + ": no config ran on any problem");
  auto shipped = prune(data, prune_options);
  if (recipe.ship_vendors) {
    if (!recipe.vendors) throw Error(dataset_label + ": --ship-vendors needs --vendors");
    for (size_t c = 0; c < data.config_names.size(); ++c)
      if (is_vendor_config(data.config_names[c]) &&
          std::find(shipped.begin(), shipped.end(), Eigen::Index(c)) == shipped.end())
        shipped.push_back(Eigen::Index(c));
  }
  auto selector = make_selector(recipe.selector, recipe.selector_options);
  selector->fit(data, shipped, recipe.norm);
  auto model = selector->to_json();
  model["family"] = data.family;
  model["device"] = data.device;
  model["dataset"] = dataset_label;
  return model;
}

}  // namespace ktune::ml
