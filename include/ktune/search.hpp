#pragma once
// Sampled tuning: a search strategy picks which configs of each problem to measure, in rounds,
// under a per-problem and a total budget. The round driver (run_search) is the same for a device
// and for a simulation against a stored dataset: it only sees a Measurer. The state is what has
// been measured, so a run resumed from a store replays it and never repeats a measurement.
#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ktune/measurement.hpp"

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

// Per-problem budget: a count and/or a fraction of the problem's candidates (the smaller
// applies); total: new measurements this run (0 = no limit).
struct SearchBudget {
  int64_t per_problem = 0;  // 0 = no count limit
  double fraction = 0;      // (0, 1]; 0 = no fraction limit
  int64_t total = 0;
  int64_t limit(int64_t candidates) const;
  // "43" or "5%" (of the space); throws Error naming the text.
  static SearchBudget parse(const std::string& per_problem, int64_t total = 0);
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
