// The coverage pruner (see prune.hpp): greedy maximization of the size-stratified mean of
// log(best shipped / oracle) over the training problems.
#include <cmath>
#include <limits>
#include <map>

#include "prune_internal.hpp"

namespace ktune::ml {

std::vector<int> size_classes(const Dataset& data) {
  std::vector<int> classes(size_t(data.rows()), 0);
  if (data.work.size() != data.rows()) return classes;
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    const double w = data.work(r);
    // Decades of work: a class is an order of magnitude of problem size, whatever the family.
    classes[size_t(r)] = std::isfinite(w) && w > 0 ? int(std::floor(std::log10(w))) : 0;
  }
  return classes;
}

namespace detail {
namespace {

// Row weights: each size class weighs the same in all, split evenly among its rows, so 27 big
// problems count as much as 400 small ones of another decade.
Eigen::VectorXd stratified_weights(const Dataset& data) {
  const std::vector<int> classes = size_classes(data);
  std::map<int, int> members;
  for (int c : classes) ++members[c];
  Eigen::VectorXd w(data.rows());
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    w(r) = 1.0 / (double(members.size()) * members[classes[size_t(r)]]);
  }
  return w;
}

}  // namespace

std::vector<Eigen::Index> cover_picks(const Dataset& data, int k, const std::vector<bool>& usable) {
  const Eigen::VectorXd weight = stratified_weights(data);
  const Eigen::VectorXd oracle = data.oracle_perf();
  // log of the ratio each problem gets from the best valid config picked so far (the floor
  // before any pick); an unmeasured cell serves nothing, as in the evaluation.
  Eigen::VectorXd covered = Eigen::VectorXd::Constant(data.rows(), std::log(kInvalidRatio));
  auto log_ratio = [&](Eigen::Index r, Eigen::Index c) {
    return data.valid(r, c) && oracle(r) > 0 ? std::log(data.perf(r, c) / oracle(r))
                                             : -std::numeric_limits<double>::infinity();
  };
  std::vector<Eigen::Index> picks;
  std::vector<bool> taken(size_t(data.cols()), false);
  while (int(picks.size()) < k) {
    Eigen::Index best = -1;
    double best_gain = 0;
    for (Eigen::Index c = 0; c < data.cols(); ++c) {
      if (!usable[size_t(c)] || taken[size_t(c)]) continue;
      double gain = 0;
      for (Eigen::Index r = 0; r < data.rows(); ++r) {
        gain += weight(r) * std::max(0.0, log_ratio(r, c) - covered(r));
      }
      if (gain > best_gain) {  // strictly: the lowest column wins a tie
        best_gain = gain;
        best = c;
      }
    }
    if (best < 0) break;  // nothing left improves any problem: prune() fills up by geomean
    taken[size_t(best)] = true;
    picks.push_back(best);
    for (Eigen::Index r = 0; r < data.rows(); ++r) {
      covered(r) = std::max(covered(r), log_ratio(r, best));
    }
  }
  return picks;
}

}  // namespace detail
}  // namespace ktune::ml
