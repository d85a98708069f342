// The every-config protocol: its evaluation loop and metrics (see protocol.hpp).
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>

#include "ktune/error.hpp"
#include "ktune/ml/protocol.hpp"

namespace ktune::ml {
namespace {

// The column named `expert`, or whose single "name=value" param has that value; -1 if none.
Eigen::Index find_expert(const Dataset& d, const std::string& expert) {
  for (Eigen::Index c = 0; c < d.cols(); ++c) {
    const std::string& name = d.config_names[size_t(c)];
    const size_t eq = name.find('=');
    if (name == expert || (eq != std::string::npos && name.find(';') == std::string::npos &&
                           name.substr(eq + 1) == expert))
      return c;
  }
  return -1;
}

// What a fold needs besides the model: its training set and the fixed configs' stand-ins.
struct FoldContext {
  std::string split;
  const Split* fold = nullptr;
  Dataset train;
  std::vector<Eigen::Index> order;             // safe_order(train)
  std::vector<Eigen::Index> baseline, expert;  // per test row
  int expert_substituted = 0;
};

struct Variant {
  std::string method, model, fallback;
  bool operator<(const Variant& o) const {
    return std::tie(method, model, fallback) < std::tie(o.method, o.model, o.fallback);
  }
};

struct Task {
  size_t fold = 0;  // into contexts
  std::string method, model;
};

using Records = std::vector<std::pair<Variant, std::vector<Outcome>>>;

std::vector<bool> valid_mask(const Dataset& d, Eigen::Index row) {
  std::vector<bool> v(size_t(d.cols()));
  for (Eigen::Index c = 0; c < d.cols(); ++c) v[size_t(c)] = d.valid(row, c);
  return v;
}

Outcome base_record(const FoldContext& ctx, size_t i) {
  Outcome rec;
  rec.row = ctx.fold->test[i];
  rec.reference = ctx.baseline[i];
  rec.expert = ctx.expert[i];
  return rec;
}

double elapsed_ns(std::chrono::steady_clock::time_point t0) {
  return double(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
}

Records run_task(const MergedData& d, const FoldContext& ctx, const Task& t, uint64_t seed,
                 const std::vector<Fallback>& fallbacks) {
  const Dataset& data = d.data;
  const auto& test = ctx.fold->test;
  Records out;
  if (t.method == "fixed") {
    for (const char* which : {"baseline", "expert"}) {
      std::vector<Outcome> recs;
      for (size_t i = 0; i < test.size(); ++i) {
        Outcome rec = base_record(ctx, i);
        const bool is_baseline = std::string(which) == "baseline";
        rec.pick = is_baseline ? ctx.order.front() : rec.expert;
        rec.served = is_baseline ? rec.reference : rec.expert;
        recs.push_back(rec);
      }
      out.push_back({{"fixed", which, "safe-order"}, std::move(recs)});
    }
    return out;
  }
  std::vector<Eigen::Index> shipped(size_t(data.cols()));
  std::iota(shipped.begin(), shipped.end(), 0);
  auto sel = make_selector(t.model, {Fallback::baseline, seed});
  sel->fit(ctx.train, shipped, Norm::scale);
  if (t.method == "classifier") {
    for (Fallback fb : fallbacks) {
      std::unique_ptr<Selector> variant;
      const Selector* use = sel.get();
      if (fb != Fallback::baseline) {  // same model, other fallback: no refit
        nlohmann::json j = sel->to_json();
        j["fallback"] = to_string(fb);
        variant = Selector::from_json(j);
        use = variant.get();
      }
      if (!test.empty()) {  // untimed warm-up: the first call pays for cold caches
        use->choose(data.features.row(test.front()), valid_mask(data, test.front()));
      }
      std::vector<Outcome> recs;
      for (size_t i = 0; i < test.size(); ++i) {
        Outcome rec = base_record(ctx, i);
        const std::vector<bool> valid = valid_mask(data, rec.row);
        const auto t0 = std::chrono::steady_clock::now();
        const Choice c = use->choose(data.features.row(rec.row), valid);
        rec.ns = elapsed_ns(t0);
        rec.pick = c.pick;
        rec.served = c.served;
        recs.push_back(rec);
      }
      out.push_back({{"classifier", t.model, to_string(fb)}, std::move(recs)});
    }
    return out;
  }
  // Regressors: rank every config by its prediction, serve the best-ranked valid one.
  if (!test.empty()) sel->scores(data.features.row(test.front()));  // untimed warm-up
  std::vector<Outcome> recs;
  for (size_t i = 0; i < test.size(); ++i) {
    Outcome rec = base_record(ctx, i);
    const auto t0 = std::chrono::steady_clock::now();
    const Eigen::VectorXd s = sel->scores(data.features.row(rec.row));
    std::vector<Eigen::Index> ranking(size_t(s.size()));
    std::iota(ranking.begin(), ranking.end(), 0);
    std::stable_sort(ranking.begin(), ranking.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return s[a] > s[b]; });
    rec.served = first_valid(d, rec.row, ranking);
    rec.ns = elapsed_ns(t0);
    rec.pick = ranking.front();
    recs.push_back(rec);
  }
  out.push_back({{t.method, t.model, "next-best"}, std::move(recs)});
  return out;
}

}  // namespace

Eigen::Index first_valid(const MergedData& d, Eigen::Index row,
                         const std::vector<Eigen::Index>& ranking) {
  for (Eigen::Index c : ranking) {
    if (d.data.valid(row, c)) return c;
  }
  return ranking.empty() ? 0 : ranking.front();
}

ProtocolResult evaluate_protocol(const MergedData& d, const std::vector<SplitFolds>& splits,
                                 const ProtocolOptions& o) {
  const auto t_start = std::chrono::steady_clock::now();
  const Dataset& data = d.data;
  if (data.rows() < 2) {
    throw Error(fmt::format(
        "eval: the data has {} problem(s); at least 2 are needed to hold some out", data.rows()));
  }
  if (splits.empty()) throw Error("eval: no split requested");
  ProtocolResult r;
  r.family = data.family;
  r.devices = d.devices;
  r.problems = data.rows();
  r.configs = data.cols();
  for (const auto& name : o.classifiers) make_selector(name);  // unknown names fail up front
  for (const auto& name : o.regressors) make_selector(name);

  const Eigen::Index expert = o.expert.empty() ? -1 : find_expert(data, o.expert);
  r.expert_config = expert >= 0 ? data.config_names[size_t(expert)] : "";
  if (expert < 0 && !o.expert.empty()) {
    r.notes.push_back("the expert config '" + o.expert +
                      "' is not in the data; the baseline stands in for it everywhere");
  }
  std::vector<FoldContext> contexts;
  for (const auto& s : splits) {
    r.split_folds.emplace_back(s.name, int(s.folds.size()));
    int substituted = 0;
    for (const auto& fold : s.folds) {
      FoldContext ctx;
      ctx.split = s.name;
      ctx.fold = &fold;
      ctx.train = data.subset_rows(fold.train);
      ctx.order = safe_order(ctx.train);
      for (Eigen::Index row : fold.test) {
        ctx.baseline.push_back(first_valid(d, row, ctx.order));
        const bool expert_ok = expert >= 0 && data.valid(row, expert);
        ctx.expert.push_back(expert_ok ? expert : ctx.baseline.back());
        substituted += expert_ok ? 0 : 1;
      }
      contexts.push_back(std::move(ctx));
    }
    r.expert_substituted.emplace_back(s.name, substituted);
  }

  std::vector<Task> tasks;
  for (size_t f = 0; f < contexts.size(); ++f) {
    tasks.push_back({f, "fixed", ""});
    for (const auto& m : o.classifiers) tasks.push_back({f, "classifier", m});
    for (const auto& m : o.regressors) {
      const bool speedup = selector_role(m) == SelectorRole::speedup_regressor;
      tasks.push_back({f, speedup ? "speedup-regressor" : "runtime-regressor", m});
    }
  }
  std::vector<Records> results(tasks.size());
  std::vector<std::string> errors(tasks.size());
  size_t done = 0;
#pragma omp parallel for schedule(dynamic) \
    num_threads(o.threads > 0 ? o.threads : omp_get_max_threads())
  for (size_t i = 0; i < tasks.size(); ++i) {
    try {
      results[i] = run_task(d, contexts[tasks[i].fold], tasks[i], o.seed, o.fallbacks);
    } catch (const std::exception& e) {
      errors[i] = fmt::format("eval: {} {} on {}: {}", tasks[i].method, tasks[i].model,
                              contexts[tasks[i].fold].fold->name, e.what());
    }
    if (o.progress) {
#pragma omp critical(ktune_protocol_progress)
      o.progress(++done, tasks.size());
    }
  }
  for (const auto& e : errors) {
    if (!e.empty()) throw Error(e);
  }
  // Pool per (split, variant), keeping the task order (fixed, classifiers, regressors).
  for (const auto& s : splits) {
    std::vector<Variant> order;
    std::map<Variant, std::vector<Outcome>> pooled;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (contexts[tasks[i].fold].split != s.name) continue;
      for (auto& [variant, recs] : results[i]) {
        if (!pooled.count(variant)) order.push_back(variant);
        auto& into = pooled[variant];
        into.insert(into.end(), recs.begin(), recs.end());
      }
    }
    for (const auto& v : order) {
      r.rows.push_back({s.name, v.method, v.model, v.fallback, score(data, pooled[v])});
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return r;
}

}  // namespace ktune::ml
