// The state of a search from a store and prior measurements (see search.hpp).
#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "ktune/error.hpp"
#include "ktune/search.hpp"

namespace ktune {
namespace {

std::optional<std::vector<double>> features_of(const Family& family, const Problem& p) {
  try {
    family.validate(p);
    std::vector<double> v = p.values;
    const auto derived = family.derived_features(p);
    v.insert(v.end(), derived.begin(), derived.end());
    return v;
  } catch (const Error&) {
    return std::nullopt;  // a prior problem of another shape of features: not learned from
  }
}

}  // namespace

SearchState make_search_state(const Family& family, const std::vector<Problem>& problems,
                              const std::vector<Config>& configs, const std::string& device,
                              const std::vector<Measurement>& stored,
                              const std::vector<Measurement>& prior) {
  const Space& space = family.space();
  SearchState s;
  s.config_feature_names = space.numeric_names();
  s.config_features.resize(Eigen::Index(configs.size()),
                           Eigen::Index(s.config_feature_names.size()));
  std::map<std::string, Eigen::Index> col_of;
  for (size_t c = 0; c < configs.size(); ++c) {
    s.config_names.push_back(space.to_string(configs[c]));
    col_of[s.config_names.back()] = Eigen::Index(c);
    const auto v = space.numeric_values(configs[c]);
    for (size_t j = 0; j < v.size(); ++j)
      s.config_features(Eigen::Index(c), Eigen::Index(j)) = v[j];
  }
  s.problem_feature_names = family.feature_names();
  for (const auto& n : family.derived_feature_names()) s.problem_feature_names.push_back(n);

  // Rows: the searched problems, then prior problems in first-seen order per source.
  std::map<std::pair<int, std::string>, Eigen::Index> row_of;
  std::vector<std::vector<double>> features;
  auto add_row = [&](int source, const Problem& p, bool searched) -> std::optional<Eigen::Index> {
    const std::string key = p.key();
    if (auto it = row_of.find({source, key}); it != row_of.end()) return it->second;
    auto f = features_of(family, p);
    if (!f) {
      if (searched)
        throw Error(fmt::format("search: problem '{}' is not a {} problem", key, family.name()));
      return std::nullopt;
    }
    const auto r = Eigen::Index(s.problem_keys.size());
    row_of[{source, key}] = r;
    s.problem_keys.push_back(key);
    s.source.push_back(source);
    s.searched.push_back(searched);
    features.push_back(std::move(*f));
    return r;
  };
  for (const auto& p : problems) add_row(0, p, true);

  std::map<std::string, int> source_of{{device, 0}};
  std::vector<std::tuple<Eigen::Index, Eigen::Index, const Measurement*>> cells;
  std::set<std::string> searched_keys;
  for (const auto& p : problems) searched_keys.insert(p.key());
  // The store: rows of the device only. Prior files: any device, but never a searched problem
  // of this device (the store alone says what was measured for those).
  auto collect = [&](const std::vector<Measurement>& ms, bool from_store) {
    for (const auto& m : ms) {
      if (m.family != family.name() || m.config_id < 0) continue;
      if (from_store ? m.device != device : m.device == device && searched_keys.count(m.problem))
        continue;
      auto col = col_of.find(m.config);
      if (col == col_of.end()) continue;
      const int source = source_of.emplace(m.device, int(source_of.size())).first->second;
      Problem p;
      try {
        p = Problem::parse(m.problem);
      } catch (const Error&) {
        continue;
      }
      if (auto r = add_row(source, p, false)) cells.emplace_back(*r, col->second, &m);
    }
  };
  collect(stored, true);
  collect(prior, false);

  s.problem_features.resize(Eigen::Index(features.size()),
                            Eigen::Index(s.problem_feature_names.size()));
  for (size_t r = 0; r < features.size(); ++r)
    for (size_t j = 0; j < features[r].size() && j < s.problem_feature_names.size(); ++j)
      s.problem_features(Eigen::Index(r), Eigen::Index(j)) = features[r][j];
  s.resize();
  for (const auto& [r, c, m] : cells) {
    if (s.cell(r, c) != cell::unmeasured) continue;  // merged data may repeat a key
    s.record(r, c, m->outcome.status == Status::ok, m->perf);
  }
  return s;
}

}  // namespace ktune
