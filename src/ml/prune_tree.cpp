// The tree pruner: configs that a shallow regression tree on the problem features would pick.
#include <algorithm>

#include "ktune/ml/cart.hpp"
#include "prune_internal.hpp"

namespace ktune::ml::detail {

std::vector<Eigen::Index> tree_picks(const Dataset& data, const Eigen::MatrixXd& normalized, int k,
                                     const std::vector<bool>& usable) {
  std::vector<Eigen::Index> picks;
  if (data.features.cols() == 0 || data.features.rows() != normalized.rows()) {
    // Nothing to split on: one leaf, the mean row.
    picks.push_back(argmax_valid(normalized.colwise().mean(), usable));
    return picks;
  }
  DecisionTree tree;
  TreeParams params;
  // sklearn requires max_leaf_nodes >= 2; one leaf is the root (mean row).
  if (k < 2) {
    params.max_depth = 1;
    params.min_samples_split = int(normalized.rows()) + 1;
  } else {
    params.max_leaf_nodes = k;
  }
  tree.fit_regressor(data.features, normalized, params);
  // Leaves in node order, larger (by training rows reaching them) first.
  std::vector<int> reached(tree.nodes().size(), 0);
  for (Eigen::Index r = 0; r < data.features.rows(); ++r) {
    ++reached[size_t(tree.leaf_index(data.features.row(r)))];
  }
  std::vector<int> leaves;
  for (size_t i = 0; i < tree.nodes().size(); ++i) {
    if (tree.nodes()[i].feature < 0) leaves.push_back(int(i));
  }
  std::stable_sort(leaves.begin(), leaves.end(),
                   [&](int a, int b) { return reached[size_t(a)] > reached[size_t(b)]; });
  for (int leaf : leaves) {
    picks.push_back(argmax_valid(tree.nodes()[size_t(leaf)].value.transpose(), usable));
  }
  return picks;
}

}  // namespace ktune::ml::detail
