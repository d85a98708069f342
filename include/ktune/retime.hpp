#pragma once
// Re-timing a sweep's close calls (ktune retime): a sweep times each config once, back to back,
// so where a problem's best configs are within a few percent of each other one noisy moment
// picks the winner. Per problem, the verified configs within `within` of the best median (at
// most max_configs) and the vendor baselines are timed again in interleaved rounds, the order
// rotated by one each round, every turn through the family's ProblemSession::run (so each turn
// re-verifies on poisoned output); each candidate's samples of all rounds are pooled into one
// median, and the pooled rows replace the stored ones (Store::supersede keeps the originals).
// Problems are committed one at a time: an interrupted retime resumes after the last one done.
#include <functional>
#include <string>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/measurement.hpp"
#include "ktune/store.hpp"
#include "ktune/timing.hpp"

namespace ktune {

struct RetimeOptions {
  double within = 0.15;  // configs whose median is at most (1 + within) × the best one's
  int max_configs = 4;   // of those, the fastest this many (vendors come on top)
  // Rounds at least; rounded up to whole rotations (a multiple of the candidate count), so every
  // candidate runs at every place of a round equally often and a linear drift reaches all alike.
  int rounds = 4;
  // One candidate's turn in a round (its samples are pooled): the verification run, which warms
  // up, then exactly min_reps timed runs.
  TimingPolicy turn = {.warmups = 0, .min_reps = 3, .max_reps = 3, .budget_ms = 0};
  std::vector<std::string> problems;  // problem keys to re-time, in order; empty = every stored
  // Called once the store's problems are found, before the first is timed (the caller's header).
  std::function<void(size_t problems)> on_start;
  // Called after each problem, done or skipped (the caller's progress line).
  std::function<void(size_t done, size_t total, const std::string& problem)> on_problem;
};

struct RetimeSummary {
  size_t problems = 0;       // considered
  size_t already_done = 0;   // re-timed by an earlier (interrupted) run: skipped
  size_t nothing_to_do = 0;  // no verified config stored
  size_t retimed = 0;        // problems re-timed now
  size_t rows = 0;           // rows replaced now
  size_t picks_changed = 0;  // problems whose fastest config is another one after re-timing
  size_t not_ok = 0;         // rows a re-timing turn found wrong, failed or timed out
};

// The stored rows of one problem that a retime times again: the configs within `within` of the
// fastest verified config's median, fastest first, at most max_configs, then the problem's
// verified vendor rows in stored order. Empty when no config is verified.
std::vector<Measurement> retime_candidates(const std::vector<Measurement>& problem_rows,
                                           double within, int max_configs);

// One candidate's re-timed row: `original` with its outcome replaced by the pooled samples of
// the turns (all ok), or by the first turn that was not ok (its message naming the round).
Measurement pooled_measurement(const Measurement& original, const std::vector<Outcome>& turns,
                               double flops);

// Re-times the problems of `family` the store holds for backend's device (options.problems:
// those, in that order). Throws Error naming the input when nothing matches.
RetimeSummary retime_store(const Family& family, Backend& backend, Store& store,
                           const RetimeOptions& options);

}  // namespace ktune
