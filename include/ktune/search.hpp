#pragma once
// Search strategies: which configs of each problem to measure, in rounds, under a per-problem and
// a total budget. The strategy interface of the one sweep driver (run_sweep, bench.hpp), where
// exhaustive is the strategy that proposes every config in one round; random here, model in
// ktune_ml. The state is what has been measured, so a run resumed from a store replays it and
// never repeats a measurement. run_search runs rounds in memory against a Measurer (the offline
// evaluation of strategies, search_eval.hpp); both take each round from plan_round.
#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/measurement.hpp"
#include "ktune/search_budget.hpp"

namespace ktune {

// The three states of a (problem, config) cell.
namespace cell {
enum : int8_t { unmeasured = 0, ok = 1, invalid = 2 };
}
using CellMatrix = Eigen::Matrix<int8_t, Eigen::Dynamic, Eigen::Dynamic>;

// Rows are problems, columns the candidate configs. Rows that are not `searched` are prior data
// (other problems of the device, or problems of another device: source > 0); the strategy
// learns from them but the driver never measures them.
struct SearchState {
  std::vector<std::string> config_names;
  std::vector<std::string> config_feature_names;
  Eigen::MatrixXd config_features;  // configs × numeric params (Space::numeric_values)

  std::vector<std::string> problem_keys;
  std::vector<std::string> problem_feature_names;
  Eigen::MatrixXd problem_features;  // rows × features (raw, then the family's derived ones)
  std::vector<int> source;           // per row: 0 = the device searched, k > 0 = prior source k
  std::vector<bool> searched;        // per row

  CellMatrix cell;       // rows × configs
  Eigen::MatrixXd perf;  // higher is better; > 0 exactly where cell == ok
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> candidate;  // may be measured

  // Per row, the columns in the order they were measured in this process (replayed cells of a
  // store come first, in column order).
  std::vector<std::vector<Eigen::Index>> order;

  Eigen::Index rows() const { return cell.rows(); }
  Eigen::Index cols() const { return cell.cols(); }
  // Sizes every per-cell matrix for the names already set (all unmeasured, all candidates).
  void resize();
  int64_t measured(Eigen::Index row) const;  // ok + invalid cells
  int64_t open(Eigen::Index row) const;      // unmeasured candidates
  void record(Eigen::Index row, Eigen::Index col, bool ok, double perf);
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;
  // How many configs a row measures in its next round, given how many it has measured (the
  // driver caps it at the remaining budget).
  virtual int64_t round_size(int64_t measured) const = 0;
  // For each of `rows`, up to want[i] unmeasured candidate columns, best first. Must depend only
  // on the state (and the strategy's seed): a run cut short takes the head of the same list.
  virtual std::vector<std::vector<Eigen::Index>> propose(const SearchState& state,
                                                         const std::vector<Eigen::Index>& rows,
                                                         const std::vector<int64_t>& want) = 0;
};

// Column order (config id order).
std::unique_ptr<SearchStrategy> exhaustive_strategy();
// A seeded permutation of the columns per problem (from the seed and the problem key).
std::unique_ptr<SearchStrategy> random_strategy(uint64_t seed);

// One round: the searched rows that still have budget and open candidates, and for each the
// strategy's picks, at most its round size, each an open candidate picked once (else Error).
// No rows: the search is over.
struct SearchRound {
  std::vector<Eigen::Index> rows;
  std::vector<std::vector<Eigen::Index>> picks;
};
SearchRound plan_round(const SearchState& state, SearchStrategy& strategy,
                       const SearchBudget& budget);

// Cells the searched rows may still measure under the per-problem budget (the total budget not
// applied).
int64_t search_remaining(const SearchState& state, const SearchBudget& budget);

// The state of a search over problems × configs for one device: `stored` (the device's rows)
// replayed into it; `prior` rows appended (the device's other problems as source 0, other devices
// as sources 1, 2, ...; a prior row of a searched problem of this device is ignored: the store
// alone says what was measured). Measurements of other families, vendors, configs outside
// `configs` and problems the family cannot parse are ignored.
SearchState make_search_state(const Family& family, const std::vector<Problem>& problems,
                              const std::vector<Config>& configs, const std::string& device,
                              const std::vector<Measurement>& stored,
                              const std::vector<Measurement>& prior);

class Measurer {
 public:
  virtual ~Measurer() = default;
  // Measures column col of row; perf > 0 and status ok for a valid measurement.
  virtual Measurement measure(Eigen::Index row, Eigen::Index col) = 0;
  // Called with the columns a round is about to measure (e.g. to compile them in parallel).
  virtual void before_round(const std::vector<Eigen::Index>& cols) { (void)cols; }
};

struct SearchSummary {
  int64_t rounds = 0, measured = 0, ok = 0;
  bool total_exhausted = false;  // stopped by the total budget
  bool stopped = false;          // stopped by the caller's stop()
};

using SearchObserver =
    std::function<void(Eigen::Index row, Eigen::Index col, const Measurement& m)>;

// Rounds over the searched rows until each reached its budget or ran out of candidates, the
// total budget is spent, or stop() (asked before each measurement) says so. Rows are visited in
// order within a round.
SearchSummary run_search(SearchState& state, SearchStrategy& strategy, Measurer& measurer,
                         const SearchBudget& budget, const SearchObserver& on_measure = {},
                         const std::function<bool()>& stop = {});

// Deterministic 64-bit mix (splitmix64) for seeds derived from (seed, text, counter).
uint64_t search_seed(uint64_t seed, const std::string& text, uint64_t counter = 0);

}  // namespace ktune
