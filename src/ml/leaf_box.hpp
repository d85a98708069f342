#pragma once
// The leaf box of a tree selector (UnsureRule::leaf_box in ktune/ml/selector.hpp): per leaf, the
// features its path splits on, bounded by their smallest and largest values over the training
// problems that reach the leaf. Shared by the selector (select) and codegen (the same test on
// the same doubles).
#include <Eigen/Dense>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "ktune/ml/cart.hpp"

namespace ktune::ml {

struct LeafBound {
  int feature = 0;
  double lo = 0, hi = 0;
};
// Per tree node: a leaf's bounds (empty for a split, or a leaf no training problem reaches).
using LeafBoxes = std::vector<std::vector<LeafBound>>;

// skips(f): features left out of every box (the range guard's skip list).
LeafBoxes fit_leaf_boxes(const DecisionTree& tree, const Eigen::MatrixXd& X,
                         const std::function<bool(int)>& skips);
bool outside_box(const std::vector<LeafBound>& box, const Eigen::Ref<const Eigen::RowVectorXd>& x);

// [[feature, lo, hi], ...] per node.
nlohmann::json leaf_boxes_json(const LeafBoxes& boxes);
// Checked: one entry per node, features in [0, n_features), lo <= hi; throws Error naming the
// field.
LeafBoxes leaf_boxes_from_json(const nlohmann::json& j, size_t nodes, int n_features);

}  // namespace ktune::ml
