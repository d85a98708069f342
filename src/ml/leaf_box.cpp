// The leaf box (leaf_box.hpp).
#include "src/ml/leaf_box.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ktune/error.hpp"
#include "src/ml/json_fields.hpp"

namespace ktune::ml {

LeafBoxes fit_leaf_boxes(const DecisionTree& tree, const Eigen::MatrixXd& X,
                         const std::function<bool(int)>& skips) {
  const auto& nodes = tree.nodes();
  // The features each node's path splits on, root first (children have larger indices only in
  // some trees, so walk from the root).
  std::vector<std::set<int>> path(nodes.size());
  std::vector<int> todo = {0};
  while (!todo.empty()) {
    const int i = todo.back();
    todo.pop_back();
    const auto& n = nodes[size_t(i)];
    if (n.feature < 0) continue;
    for (int child : {n.left, n.right}) {
      path[size_t(child)] = path[size_t(i)];
      if (!skips(n.feature)) path[size_t(child)].insert(n.feature);
      todo.push_back(child);
    }
  }
  LeafBoxes boxes(nodes.size());
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    const auto leaf = size_t(tree.leaf_index(X.row(r)));
    auto& box = boxes[leaf];
    if (box.empty()) {
      for (int f : path[leaf]) box.push_back({f, X(r, f), X(r, f)});
      continue;
    }
    for (auto& b : box) {
      b.lo = std::min(b.lo, X(r, b.feature));
      b.hi = std::max(b.hi, X(r, b.feature));
    }
  }
  return boxes;
}

bool outside_box(const std::vector<LeafBound>& box, const Eigen::Ref<const Eigen::RowVectorXd>& x) {
  return std::any_of(box.begin(), box.end(), [&](const LeafBound& b) {
    return x[b.feature] < b.lo || x[b.feature] > b.hi;
  });
}

nlohmann::json leaf_boxes_json(const LeafBoxes& boxes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& box : boxes) {
    nlohmann::json node = nlohmann::json::array();
    for (const auto& b : box) node.push_back({b.feature, b.lo, b.hi});
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
    for (size_t b = 0; b < j[i].size(); ++b) {
      const auto& e = j[i][b];
      const auto at = fmt::format("{}[{}]", field, b);
      if (!e.is_array() || e.size() != 3)
        throw Error("field '" + at + "': expected [feature, lo, hi]");
      const auto f = jf::integer(e[0], at + "[0]", 0, n_features - 1);
      const double lo = jf::number(e[1], at + "[1]"), hi = jf::number(e[2], at + "[2]");
      if (!(lo <= hi)) throw Error(fmt::format("field '{}': lo {} above hi {}", at, lo, hi));
      boxes[i].push_back({static_cast<int>(f), lo, hi});
    }
  }
  return boxes;
}

}  // namespace ktune::ml
