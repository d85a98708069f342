// Rounds, the budget and the model-free strategies (see search.hpp).
#include "ktune/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "ktune/error.hpp"

namespace ktune {

void SearchState::resize() {
  const auto r = Eigen::Index(problem_keys.size()), c = Eigen::Index(config_names.size());
  cell = CellMatrix::Constant(r, c, cell::unmeasured);
  perf = Eigen::MatrixXd::Zero(r, c);
  candidate.setConstant(r, c, true);
  order.assign(size_t(r), {});
  if (source.size() != size_t(r)) source.assign(size_t(r), 0);
  if (searched.size() != size_t(r)) searched.assign(size_t(r), true);
}

int64_t SearchState::measured(Eigen::Index row) const {
  return int64_t((cell.row(row).array() != cell::unmeasured).count());
}

int64_t SearchState::open(Eigen::Index row) const {
  return int64_t((candidate.row(row).array() && cell.row(row).array() == cell::unmeasured).count());
}

void SearchState::record(Eigen::Index row, Eigen::Index col, bool ok, double value) {
  if (cell(row, col) != cell::unmeasured)
    throw Error(fmt::format("search: problem '{}' config '{}' is measured twice",
                            problem_keys[size_t(row)], config_names[size_t(col)]));
  ok = ok && std::isfinite(value) && value > 0;
  cell(row, col) = ok ? cell::ok : cell::invalid;
  perf(row, col) = ok ? value : 0;
  order[size_t(row)].push_back(col);
}

int64_t SearchBudget::limit(int64_t n) const {
  int64_t out = n;
  if (per_problem > 0) out = std::min(out, per_problem);
  // At least one measurement for any positive fraction, so "1%" of a small space still tunes.
  if (fraction > 0) out = std::min(out, std::max<int64_t>(1, int64_t(std::ceil(fraction * n))));
  return out;
}

SearchBudget SearchBudget::parse(const std::string& text, int64_t total) {
  SearchBudget b;
  b.total = total;
  if (total < 0) throw Error(fmt::format("total budget {} is negative", total));
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  const double v = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  const bool parsed = !number.empty() && end == number.c_str() + number.size() && std::isfinite(v);
  if (percent) {
    if (!parsed || v <= 0 || v > 100)
      throw Error(fmt::format("budget '{}' is not a percentage in (0, 100]", text));
    b.fraction = v / 100;
  } else {
    if (!parsed || v < 1 || v != std::floor(v) || v > 1e15)
      throw Error(fmt::format("budget '{}' is neither a count >= 1 nor a percentage", text));
    b.per_problem = int64_t(v);
  }
  return b;
}

uint64_t search_seed(uint64_t seed, const std::string& text, uint64_t counter) {
  auto mix = [](uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  uint64_t h = mix(seed);
  for (unsigned char ch : text) h = mix(h ^ ch);  // byte-wise: independent of std::hash
  return mix(h ^ mix(counter));
}

namespace {

// Takes the first `want` unmeasured candidates of `order`.
std::vector<Eigen::Index> head(const SearchState& s, Eigen::Index row,
                               const std::vector<Eigen::Index>& order, int64_t want) {
  std::vector<Eigen::Index> out;
  for (Eigen::Index c : order) {
    if (int64_t(out.size()) >= want) break;
    if (s.candidate(row, c) && s.cell(row, c) == cell::unmeasured) out.push_back(c);
  }
  return out;
}

class Exhaustive final : public SearchStrategy {
 public:
  std::string name() const override { return "exhaustive"; }
  int64_t round_size(int64_t) const override { return std::numeric_limits<int64_t>::max(); }
  std::vector<std::vector<Eigen::Index>> propose(const SearchState& s,
                                                 const std::vector<Eigen::Index>& rows,
                                                 const std::vector<int64_t>& want) override {
    std::vector<Eigen::Index> all(size_t(s.cols()));
    std::iota(all.begin(), all.end(), 0);
    std::vector<std::vector<Eigen::Index>> out;
    for (size_t i = 0; i < rows.size(); ++i) out.push_back(head(s, rows[i], all, want[i]));
    return out;
  }
};

class Random final : public SearchStrategy {
 public:
  explicit Random(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "random"; }
  int64_t round_size(int64_t) const override { return std::numeric_limits<int64_t>::max(); }
  std::vector<std::vector<Eigen::Index>> propose(const SearchState& s,
                                                 const std::vector<Eigen::Index>& rows,
                                                 const std::vector<int64_t>& want) override {
    std::vector<std::vector<Eigen::Index>> out;
    for (size_t i = 0; i < rows.size(); ++i) {
      // The permutation depends on the problem key only, so a resumed run continues it.
      std::vector<Eigen::Index> perm(size_t(s.cols()));
      std::iota(perm.begin(), perm.end(), 0);
      std::mt19937_64 rng(search_seed(seed_, s.problem_keys[size_t(rows[i])]));
      for (size_t k = perm.size(); k > 1; --k)  // Fisher-Yates: portable, unlike std::shuffle
        std::swap(perm[k - 1], perm[size_t(rng() % k)]);
      out.push_back(head(s, rows[i], perm, want[i]));
    }
    return out;
  }

 private:
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<SearchStrategy> exhaustive_strategy() { return std::make_unique<Exhaustive>(); }
std::unique_ptr<SearchStrategy> random_strategy(uint64_t seed) {
  return std::make_unique<Random>(seed);
}

SearchRound plan_round(const SearchState& state, SearchStrategy& strategy,
                       const SearchBudget& budget) {
  SearchRound round;
  std::vector<int64_t> want;
  for (Eigen::Index r = 0; r < state.rows(); ++r) {
    if (!state.searched[size_t(r)]) continue;
    // Cells measured earlier count against the budget, candidates or not.
    const int64_t done = state.measured(r), open = state.open(r);
    const int64_t left =
        std::min(budget.limit(int64_t(state.candidate.row(r).count())) - done, open);
    if (left <= 0) continue;
    round.rows.push_back(r);
    want.push_back(std::min(left, std::max<int64_t>(1, strategy.round_size(done))));
  }
  if (round.rows.empty()) return round;
  round.picks = strategy.propose(state, round.rows, want);
  if (round.picks.size() != round.rows.size())
    throw Error(fmt::format("search: strategy '{}' answered for {} problems, asked {}",
                            strategy.name(), round.picks.size(), round.rows.size()));
  for (size_t i = 0; i < round.rows.size(); ++i) {
    auto& picks = round.picks[i];
    if (int64_t(picks.size()) > want[i]) picks.resize(size_t(want[i]));
    std::vector<bool> seen(size_t(state.cols()), false);
    for (const Eigen::Index c : picks) {
      if (c < 0 || c >= state.cols() || !state.candidate(round.rows[i], c) ||
          state.cell(round.rows[i], c) != cell::unmeasured || seen[size_t(c)])
        throw Error(fmt::format("search: strategy '{}' proposed an unavailable config {}",
                                strategy.name(), c));
      seen[size_t(c)] = true;
    }
  }
  return round;
}

int64_t search_remaining(const SearchState& state, const SearchBudget& budget) {
  int64_t out = 0;
  for (Eigen::Index r = 0; r < state.rows(); ++r) {
    if (!state.searched[size_t(r)]) continue;
    const int64_t left = budget.limit(int64_t(state.candidate.row(r).count())) - state.measured(r);
    out += std::max<int64_t>(0, std::min(left, state.open(r)));
  }
  return out;
}

SearchSummary run_search(SearchState& state, SearchStrategy& strategy, Measurer& measurer,
                         const SearchBudget& budget, const SearchObserver& on_measure,
                         const std::function<bool()>& stop) {
  SearchSummary summary;
  for (;;) {
    const SearchRound round = plan_round(state, strategy, budget);
    if (round.rows.empty()) return summary;
    ++summary.rounds;
    std::vector<Eigen::Index> cols;
    for (const auto& picks : round.picks) cols.insert(cols.end(), picks.begin(), picks.end());
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    measurer.before_round(cols);
    int64_t progressed = 0;
    for (size_t i = 0; i < round.rows.size(); ++i) {
      for (const Eigen::Index c : round.picks[i]) {
        if (budget.total > 0 && summary.measured >= budget.total) {
          summary.total_exhausted = true;
          return summary;
        }
        if (stop && stop()) {
          summary.stopped = true;
          return summary;
        }
        const Eigen::Index r = round.rows[i];
        const Measurement m = measurer.measure(r, c);
        state.record(r, c, m.outcome.status == Status::ok, m.perf);
        ++summary.measured;
        summary.ok += m.outcome.status == Status::ok;
        ++progressed;
        if (on_measure) on_measure(r, c, m);
      }
    }
    // A strategy with nothing left to propose ends the search instead of looping.
    if (progressed == 0) return summary;
  }
}

}  // namespace ktune
