#pragma once
// Shared by the pruner files: each method proposes picks (possibly repeated, possibly fewer
// than k); prune() then de-duplicates and fills up to exactly k.
#include <Eigen/Dense>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/prune.hpp"

namespace ktune::ml::detail {

// Column with the highest value among columns that are valid somewhere (first on ties).
Eigen::Index argmax_valid(const Eigen::Ref<const Eigen::RowVectorXd>& values,
                          const std::vector<bool>& usable);
// Config with the best geomean of scaled perf over the given rows.
Eigen::Index best_geomean_over(const Dataset& data, const std::vector<Eigen::Index>& rows,
                               const std::vector<bool>& usable);

// Tree pruner (prune_tree.cpp): a multi-output regression tree on the problem features with
// max_leaf_nodes = k; each leaf proposes the argmax of its mean normalized row.
std::vector<Eigen::Index> tree_picks(const Dataset& data, const Eigen::MatrixXd& normalized, int k,
                                     const std::vector<bool>& usable);

// Coverage pruner (prune_cover.cpp): greedy picks maximizing the size-stratified mean of
// log(best picked / oracle); stops early when no config improves any problem.
std::vector<Eigen::Index> cover_picks(const Dataset& data, int k, const std::vector<bool>& usable);

}  // namespace ktune::ml::detail
