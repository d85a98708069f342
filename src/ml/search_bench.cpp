// bench with a search strategy (see search_bench.hpp): state from the store, device and stored
// measurers, the store as the only state.
#include "ktune/search_bench.hpp"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "ktune/error.hpp"
#include "ktune/provenance.hpp"

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

// Measures on a backend with one problem session open at a time; the vendor baselines of a
// problem are measured (and handed to on_vendor) when its session first opens.
class BackendMeasurer final : public Measurer {
 public:
  BackendMeasurer(const Family& family, Backend& backend, const std::vector<Problem>& problems,
                  const std::vector<Config>& configs, const SearchSweepOptions& options,
                  std::set<std::string> vendors_done,
                  std::function<void(const Measurement&)> on_vendor)
      : family_(family),
        backend_(backend),
        problems_(problems),
        configs_(configs),
        options_(options),
        vendors_done_(std::move(vendors_done)),
        on_vendor_(std::move(on_vendor)) {}

  void before_round(const std::vector<Eigen::Index>& cols) override {
    std::vector<Config> round;  // compiled in parallel (CUDA) instead of one by one on demand
    for (Eigen::Index c : cols) round.push_back(configs_[size_t(c)]);
    backend_.prepare(round);
  }
  Measurement measure(Eigen::Index row, Eigen::Index col) override {
    const Problem& problem = problems_[size_t(row)];
    if (row != open_row_) open(row);
    const Config& config = configs_[size_t(col)];
    Measurement m = blank(problem, family_.space().to_string(config), config.id);
    if (!session_) {
      m.outcome.status = Status::failed;
      m.outcome.message = "could not open problem: " + open_error_;
    } else if (auto why = family_.space().violates(config)) {
      m.outcome.status = Status::refused;
      m.outcome.message = *why;
    } else {
      m.outcome = session_->run(config, options_.timing);
    }
    set_perf(problem, m);
    return m;
  }

 private:
  Measurement blank(const Problem& problem, std::string config, int64_t id) const {
    Measurement m;
    m.device = backend_.device().slug;
    m.family = family_.name();
    m.problem = problem.key();
    m.config = std::move(config);
    m.config_id = id;
    return m;
  }
  void set_perf(const Problem& problem, Measurement& m) const {
    if (m.outcome.status == Status::ok && m.outcome.timing.median_ms > 0)
      m.perf = family_.flops(problem) / m.outcome.timing.median_ms / 1e6;  // GFLOP/s, as bench
  }
  void open(Eigen::Index row) {
    session_.reset();  // one problem's buffers at a time
    open_row_ = row;
    open_error_.clear();
    const Problem& problem = problems_[size_t(row)];
    try {
      session_ = backend_.open(problem);
    } catch (const std::exception& e) {
      open_error_ = e.what();
      return;
    }
    if (!options_.vendors || !vendors_done_.insert(problem.key()).second) return;
    for (const auto& v : session_->vendors()) {
      Measurement m = blank(problem, v, -1);
      m.outcome = session_->run_vendor(v, options_.timing);
      set_perf(problem, m);
      on_vendor_(m);
    }
  }

  const Family& family_;
  Backend& backend_;
  const std::vector<Problem>& problems_;
  const std::vector<Config>& configs_;
  const SearchSweepOptions& options_;
  std::set<std::string> vendors_done_;  // problem keys whose vendors are stored
  std::function<void(const Measurement&)> on_vendor_;
  Eigen::Index open_row_ = -1;
  std::unique_ptr<ProblemSession> session_;
  std::string open_error_;
};

// Returns the stored measurement of a (problem, config) exactly.
class StoredMeasurer final : public Measurer {
 public:
  StoredMeasurer(const SearchState& state,
                 std::map<std::pair<std::string, std::string>, const Measurement*> rows)
      : state_(state), rows_(std::move(rows)) {}
  Measurement measure(Eigen::Index row, Eigen::Index col) override {
    return *rows_.at({state_.problem_keys[size_t(row)], state_.config_names[size_t(col)]});
  }

 private:
  const SearchState& state_;
  std::map<std::pair<std::string, std::string>, const Measurement*> rows_;
};

// The common part of a device run and a simulation: replay the store, search, store each row.
SearchSweepSummary search_into_store(const Workload& workload, Store& store,
                                     SearchStrategy& strategy, const SearchSweepOptions& options,
                                     SearchState& state, Measurer& measurer) {
  SearchSweepSummary summary;
  const auto searched = Eigen::Index(workload.problems.size());
  for (Eigen::Index r = 0; r < state.rows(); ++r) {
    if (r < searched) {
      summary.replayed += size_t(state.measured(r));
      summary.candidates += size_t(state.candidate.row(r).count());
    } else {
      ++summary.prior_rows;
    }
  }
  size_t planned = 0, done = 0;
  for (Eigen::Index r = 0; r < searched; ++r) {
    const int64_t left =
        options.budget.limit(int64_t(state.candidate.row(r).count())) - state.measured(r);
    planned += size_t(std::max<int64_t>(0, std::min(left, state.open(r))));
  }
  if (options.budget.total > 0) planned = std::min(planned, size_t(options.budget.total));
  const auto start = std::chrono::steady_clock::now();
  auto out_of_time = [&] {
    return options.budget_ms &&
           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count() > *options.budget_ms;
  };
  summary.search = run_search(
      state, strategy, measurer, options.budget,
      [&](Eigen::Index, Eigen::Index, const Measurement& m) {
        store.put(m);
        ++done;
        if (options.on_progress) options.on_progress(done, std::max(planned, done), m);
      },
      out_of_time);
  return summary;
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

SearchSweepSummary run_search_sweep(const Family& family, Backend& backend,
                                    const Workload& workload, Store& store,
                                    SearchStrategy& strategy, const SearchSweepOptions& options) {
  std::vector<Config> configs;
  for (const Config& c : options.configs.empty() ? family.space().enumerate() : options.configs)
    if (backend.implements(c)) configs.push_back(c);
  if (configs.empty())
    throw Error(fmt::format("none of the requested {} configs has a kernel on device '{}'",
                            family.name(), backend.device().slug));
  const std::string& device = backend.device().slug;
  stamp_store(store, family.space());
  if (options.vendors) stamp_vendors(store, backend);
  store.put_device(backend.device());
  const auto stored = store.query(device, family.name());
  SearchState state =
      make_search_state(family, workload.problems, configs, device, stored, options.prior);
  std::set<std::string> vendors_done;
  for (const auto& m : stored)
    if (m.config_id < 0) vendors_done.insert(m.problem);
  size_t vendors = 0;
  BackendMeasurer measurer(family, backend, workload.problems, configs, options,
                           std::move(vendors_done),
                           [&](const Measurement& m) { vendors += store.put(m) ? 1 : 0; });
  auto summary = search_into_store(workload, store, strategy, options, state, measurer);
  summary.vendors = vendors;
  return summary;
}

SearchSweepSummary run_search_simulation(const Family& family, const std::vector<Measurement>& data,
                                         const std::string& device, const Workload& workload,
                                         Store& store, SearchStrategy& strategy,
                                         const SearchSweepOptions& options) {
  std::map<std::pair<std::string, std::string>, const Measurement*> rows;
  std::set<std::string> names;
  for (const auto& m : data) {
    if (m.device != device || m.family != family.name() || m.config_id < 0) continue;
    rows.emplace(std::pair{m.problem, m.config}, &m);
    names.insert(m.config);
  }
  if (rows.empty())
    throw Error(
        fmt::format("simulation: no {} measurements of device '{}'", family.name(), device));
  std::vector<Config> configs;
  for (const Config& c : options.configs.empty() ? family.space().enumerate() : options.configs)
    if (names.count(family.space().to_string(c))) configs.push_back(c);
  bool known = false;  // never overwrite a real device's features
  for (const auto& d : store.devices()) known |= d.slug == device;
  if (!known) {
    DeviceInfo info;
    info.slug = device;
    info.name = "simulated from stored measurements";
    info.backend = "simulation";
    store.put_device(info);
  }
  const auto stored = store.query(device, family.name());
  SearchState state =
      make_search_state(family, workload.problems, configs, device, stored, options.prior);
  for (Eigen::Index r = 0; r < Eigen::Index(workload.problems.size()); ++r)
    for (Eigen::Index c = 0; c < state.cols(); ++c)
      state.candidate(r, c) =
          rows.count({state.problem_keys[size_t(r)], state.config_names[size_t(c)]}) > 0;
  StoredMeasurer measurer(state, std::move(rows));
  return search_into_store(workload, store, strategy, options, state, measurer);
}

}  // namespace ktune
