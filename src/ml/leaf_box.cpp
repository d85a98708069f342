// The leaf box (leaf_box.hpp).
#include "src/ml/leaf_box.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "ktune/error.hpp"
#include "src/ml/json_fields.hpp"

namespace ktune::ml {

LeafBoxes fit_leaf_boxes(const DecisionTree& tree, const Eigen::MatrixXd& X,
                         const std::function<bool(int)>& skips, bool all_features) {
  const auto& nodes = tree.nodes();
  // Per node, the features its path splits on and the sides they bound (kAbove: some x <= t on
  // the path, kBelow: some x > t), walked from the root.
  constexpr int kAbove = 1, kBelow = 2;
  std::vector<std::map<int, int>> path(nodes.size());
  std::vector<int> todo = {0};
  while (!todo.empty()) {
    const int i = todo.back();
    todo.pop_back();
    const auto& n = nodes[size_t(i)];
    if (n.feature < 0) continue;
    for (int child : {n.left, n.right}) {
      path[size_t(child)] = path[size_t(i)];
      if (!skips(n.feature)) path[size_t(child)][n.feature] |= child == n.left ? kAbove : kBelow;
      todo.push_back(child);
    }
  }
  if (all_features)
    for (auto& sides : path)
      for (int f = 0; f < int(X.cols()); ++f)
        if (!skips(f)) sides[f] = kAbove | kBelow;
  LeafBoxes boxes(nodes.size());
  std::vector<bool> reached(nodes.size(), false);
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    const auto leaf = size_t(tree.leaf_index(X.row(r)));
    auto& box = boxes[leaf];
    if (!reached[leaf]) {
      reached[leaf] = true;
      for (const auto& [f, sides] : path[leaf]) {
        LeafBound b{f, std::nullopt, std::nullopt};
        if (sides & kBelow) b.lo = X(r, f);
        if (sides & kAbove) b.hi = X(r, f);
        box.push_back(b);
      }
      continue;
    }
    for (auto& b : box) {
      if (b.lo) b.lo = std::min(*b.lo, X(r, b.feature));
      if (b.hi) b.hi = std::max(*b.hi, X(r, b.feature));
    }
  }
  return boxes;
}

bool outside_box(const std::vector<LeafBound>& box, const Eigen::Ref<const Eigen::RowVectorXd>& x) {
  return std::any_of(box.begin(), box.end(), [&](const LeafBound& b) {
    return (b.lo && x[b.feature] < *b.lo) || (b.hi && x[b.feature] > *b.hi);
  });
}

nlohmann::json leaf_boxes_json(const LeafBoxes& boxes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& box : boxes) {
    nlohmann::json node = nlohmann::json::array();
    for (const auto& b : box) {
      const auto side = [](const std::optional<double>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
      };
      node.push_back({b.feature, side(b.lo), side(b.hi)});
    }
    out.push_back(node);
  }
  return out;
}

LeafBoxes leaf_boxes_from_json(const nlohmann::json& j, size_t nodes, int n_features) {
  namespace jf = json_fields;
  const std::string where = "model.leaf_boxes";
  if (!j.is_array()) throw Error("field '" + where + "': expected an array");
  if (j.size() != nodes)
    throw Error(fmt::format("field '{}': {} entries for {} tree nodes", where, j.size(), nodes));
  LeafBoxes boxes(nodes);
  for (size_t i = 0; i < nodes; ++i) {
    const auto field = fmt::format("{}[{}]", where, i);
    if (!j[i].is_array()) throw Error("field '" + field + "': expected an array");
    for (size_t e_at = 0; e_at < j[i].size(); ++e_at) {
      const auto& e = j[i][e_at];
      const auto at = fmt::format("{}[{}]", field, e_at);
      if (!e.is_array() || e.size() != 3)
        throw Error("field '" + at + "': expected [feature, lo, hi]");
      const auto f = jf::integer(e[0], at + "[0]", 0, n_features - 1);
      LeafBound b{static_cast<int>(f), std::nullopt, std::nullopt};
      if (!e[1].is_null()) b.lo = jf::number(e[1], at + "[1]");
      if (!e[2].is_null()) b.hi = jf::number(e[2], at + "[2]");
      if (!b.lo && !b.hi) throw Error("field '" + at + "': neither side is bounded");
      if (b.lo && b.hi && *b.lo > *b.hi)
        throw Error(fmt::format("field '{}': lo {} above hi {}", at, *b.lo, *b.hi));
      boxes[i].push_back(b);
    }
  }
  return boxes;
}

}  // namespace ktune::ml
