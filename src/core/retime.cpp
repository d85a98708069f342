// retime_store (include/ktune/retime.hpp): per problem, the close calls of the sweep timed again
// in rotating interleaved rounds and written back over the stored rows.
#include "ktune/retime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "ktune/error.hpp"
#include "ktune/provenance.hpp"
#include "ktune/timing_loop.hpp"

namespace ktune {
namespace {

bool verified(const Measurement& m) {
  return m.outcome.status == Status::ok && m.outcome.timing.median_ms > 0;
}

// The stored rows of the device and family, grouped by problem in first-stored order.
std::vector<std::pair<std::string, std::vector<Measurement>>> rows_by_problem(
    std::vector<Measurement> rows) {
  std::vector<std::pair<std::string, std::vector<Measurement>>> out;
  std::map<std::string, size_t> index;
  for (Measurement& m : rows) {
    const auto [it, added] = index.emplace(m.problem, out.size());
    if (added) out.emplace_back(m.problem, std::vector<Measurement>{});
    out[it->second].second.push_back(std::move(m));
  }
  return out;
}

// The fastest verified config of the rows ("" for none).
std::string fastest_config(const std::vector<Measurement>& rows) {
  const Measurement* best = nullptr;
  for (const Measurement& m : rows)
    if (!m.vendor && verified(m) &&
        (!best || m.outcome.timing.median_ms < best->outcome.timing.median_ms))
      best = &m;
  return best ? best->config : "";
}

// Runs the candidates in interleaved rounds on one open problem; each one's turns.
std::vector<std::vector<Outcome>> run_rounds(const Space& space, ProblemSession& session,
                                             const std::vector<Measurement>& candidates,
                                             const RetimeOptions& options) {
  const int n = int(candidates.size());
  std::vector<Config> configs;
  for (const Measurement& m : candidates)
    configs.push_back(m.vendor ? Config{} : space.parse(m.config));
  std::vector<std::vector<Outcome>> turns(candidates.size());
  std::vector<bool> dropped(candidates.size(), false);  // a turn that was not ok ends its turns
  TimingPolicy rounds;  // run_interleaved's rotation: whole rounds, nothing untimed
  rounds.warmups = 0;
  rounds.min_reps = rounds.max_reps = whole_rotation_rounds(options.rounds, n);
  rounds.budget_ms = 0;
  run_interleaved(
      n,
      [&](int c) {
        const auto i = size_t(c);
        if (dropped[i]) return 0.0;
        Outcome o = candidates[i].vendor ? session.run_vendor(candidates[i].config, options.turn)
                                         : session.run(configs[i], options.turn);
        dropped[i] = o.status != Status::ok;
        const double ms = o.timing.median_ms;
        turns[i].push_back(std::move(o));
        return ms;
      },
      rounds);
  return turns;
}

}  // namespace

std::vector<Measurement> retime_candidates(const std::vector<Measurement>& problem_rows,
                                           double within, int max_configs) {
  std::vector<Measurement> configs;
  for (const Measurement& m : problem_rows)
    if (!m.vendor && verified(m)) configs.push_back(m);
  if (configs.empty()) return {};
  std::stable_sort(configs.begin(), configs.end(), [](const auto& a, const auto& b) {
    return a.outcome.timing.median_ms < b.outcome.timing.median_ms;
  });
  const double limit = configs.front().outcome.timing.median_ms * (1 + within);
  std::erase_if(configs, [&](const Measurement& m) { return m.outcome.timing.median_ms > limit; });
  if (configs.size() > size_t(max_configs)) configs.resize(size_t(max_configs));
  for (const Measurement& m : problem_rows)
    if (m.vendor && verified(m)) configs.push_back(m);
  return configs;
}

Measurement pooled_measurement(const Measurement& original, const std::vector<Outcome>& turns,
                               double flops) {
  Measurement m = original;
  m.created_at.clear();  // the store stamps the time of the re-timing
  m.source.clear();
  m.perf = 0;
  for (size_t round = 0; round < turns.size(); ++round) {
    const Outcome& o = turns[round];
    if (o.status != Status::ok) {
      m.outcome = o;
      m.outcome.message = fmt::format("re-timing round {}: {}", round + 1, o.message);
      return m;
    }
  }
  m.outcome = pool_outcomes(turns);
  if (m.outcome.timing.reps == 0)
    throw Error(fmt::format("re-timing of '{}' took no samples", m.config));
  if (m.outcome.timing.median_ms > 0) m.perf = flops / m.outcome.timing.median_ms / 1e6;
  return m;
}

RetimeSummary retime_store(const Family& family, Backend& backend, Store& store,
                           const RetimeOptions& options) {
  if (const std::string why = timing_policy_problem(options.turn); !why.empty())
    throw Error("retime: timing policy: " + why);
  if (!(options.within >= 0) || options.max_configs < 1 || options.rounds < 1)
    throw Error("retime: within must be >= 0, max_configs and rounds at least 1");
  const std::string& slug = backend.device().slug;
  auto grouped = rows_by_problem(store.query(slug, family.name()));
  if (grouped.empty())
    throw Error(fmt::format("store '{}' has no {} measurements of device '{}'", store.path(),
                            family.name(), slug));
  if (!options.problems.empty()) {  // the caller's problems, in its order
    std::map<std::string, size_t> at;
    for (size_t i = 0; i < grouped.size(); ++i) at.emplace(grouped[i].first, i);
    decltype(grouped) chosen;
    for (const std::string& key : options.problems)
      if (const auto it = at.find(key); it != at.end()) chosen.push_back(grouped[it->second]);
    if (chosen.empty())
      throw Error(fmt::format("store '{}' has none of the {} requested problems of device '{}'",
                              store.path(), options.problems.size(), slug));
    grouped = std::move(chosen);
  }
  std::set<std::string> done;  // problems an earlier retime of this store finished
  for (const Measurement& m : store.superseded(slug, family.name())) done.insert(m.problem);
  stamp_store(store, family.space());  // refuses a store of other code before writing
  stamp_vendors(store, backend);

  RetimeSummary summary;
  summary.problems = grouped.size();
  if (options.on_start) options.on_start(grouped.size());
  for (size_t p = 0; p < grouped.size(); ++p) {
    const auto& [key, rows] = grouped[p];
    const std::vector<Measurement> candidates =
        retime_candidates(rows, options.within, options.max_configs);
    if (done.count(key)) {
      ++summary.already_done;
    } else if (candidates.empty()) {
      ++summary.nothing_to_do;
    } else {
      const Problem problem = Problem::parse(key);
      family.validate(problem);
      const auto session = backend.open(problem);
      const auto turns = run_rounds(family.space(), *session, candidates, options);
      std::vector<Measurement> retimed;
      for (size_t i = 0; i < candidates.size(); ++i) {
        retimed.push_back(pooled_measurement(candidates[i], turns[i], family.flops(problem)));
        summary.not_ok += retimed.back().outcome.status != Status::ok;
      }
      summary.rows += store.supersede(retimed);  // the problem's rows at once: resumable
      std::vector<Measurement> after = rows;
      for (Measurement& m : after)
        for (const Measurement& r : retimed)
          if (r.config == m.config) m = r;
      summary.picks_changed += fastest_config(after) != fastest_config(rows);
      ++summary.retimed;
    }
    if (options.on_problem) options.on_problem(p + 1, grouped.size(), key);
  }
  return summary;
}

}  // namespace ktune
