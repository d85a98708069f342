#pragma once
// The leaf box of a tree selector (UnsureRule::leaf_box in ktune/ml/selector.hpp): per leaf, the
// features its path splits on, bounded on the side a split bounds (x <= t: from above, x > t:
// from below) by the largest / smallest value over the training problems that reach the leaf,
// so that the gap between a threshold and the leaf's nearest training problem is outside. Shared
// by the selector (select) and codegen (the same test on the same doubles).
#include <Eigen/Dense>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "ktune/ml/cart.hpp"

namespace ktune::ml {

struct LeafBound {
  int feature = 0;
  std::optional<double> lo, hi;  // absent: no split on the path bounds that side
};
// Per tree node: a leaf's bounds (empty for a split, or a leaf no training problem reaches).
using LeafBoxes = std::vector<std::vector<LeafBound>>;

// skips(f): features left out of every box (the range guard's skip list). all_features: every
// other feature bounded on both sides, whether or not the path splits on it.
LeafBoxes fit_leaf_boxes(const DecisionTree& tree, const Eigen::MatrixXd& X,
                         const std::function<bool(int)>& skips, bool all_features = false);
bool outside_box(const std::vector<LeafBound>& box, const Eigen::Ref<const Eigen::RowVectorXd>& x);

// [[feature, lo, hi], ...] per node, null for an absent side.
nlohmann::json leaf_boxes_json(const LeafBoxes& boxes);
// Checked: one entry per node, features in [0, n_features), lo <= hi; throws Error naming the
// field.
LeafBoxes leaf_boxes_from_json(const nlohmann::json& j, size_t nodes, int n_features);

}  // namespace ktune::ml
