// CART growth that mirrors scikit-learn's tree builders (see cart.hpp): the same leaf rules,
// the same split search (proxy improvements, 1e-7 feature threshold, midpoint thresholds) and,
// for best-first growth, the same frontier heap, so equal inputs give equal trees.
#include "ktune/ml/cart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ktune/error.hpp"
#include "src/ml/json_fields.hpp"

namespace ktune::ml {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
constexpr double kFeatureThreshold = 1e-7;  // sklearn's FEATURE_THRESHOLD
constexpr double kInf = std::numeric_limits<double>::infinity();

struct NodeSplit {
  int feature = -1;
  double threshold = 0;
  std::vector<int> left, right;  // sample indices
  double impurity_left = 0, impurity_right = 0, improvement = 0;
};

// Node statistics: weighted sums of the target columns (class counts for gini, output sums for
// MSE), total weight and, for MSE, the weighted sum of squares.
struct Stats {
  Eigen::VectorXd sum;
  double weight = 0, sq_sum = 0;
};

class Grower {
 public:
  Grower(const Eigen::MatrixXd& X, const Eigen::MatrixXd& T, bool classifier, const TreeParams& p,
         const std::vector<double>& w)
      : X_(X),
        T_(T),
        classifier_(classifier),
        p_(p),
        w_(w),
        state_(static_cast<uint32_t>(p.seed)),
        features_(X.cols()),
        constant_features_(X.cols()) {
    std::iota(features_.begin(), features_.end(), 0);
  }

  Stats stats(const std::vector<int>& samples) const {
    Stats s;
    s.sum = Eigen::VectorXd::Zero(T_.cols());
    for (int i : samples) {
      s.sum += w_[i] * T_.row(i).transpose();
      s.weight += w_[i];
      if (!classifier_) s.sq_sum += w_[i] * T_.row(i).squaredNorm();
    }
    return s;
  }

  double impurity(const Stats& s) const {
    if (s.weight <= 0) return 0;
    if (classifier_) return 1.0 - s.sum.squaredNorm() / (s.weight * s.weight);
    double imp = s.sq_sum / s.weight;
    for (Eigen::Index k = 0; k < s.sum.size(); ++k) imp -= std::pow(s.sum[k] / s.weight, 2.0);
    return imp / static_cast<double>(s.sum.size());
  }

  Eigen::VectorXd leaf_value(const Stats& s) const {
    return s.weight > 0 ? Eigen::VectorXd(s.sum / s.weight) : Eigen::VectorXd(s.sum);
  }

  bool leaf_by_size(int n, int depth, double imp) const {
    return (p_.max_depth > 0 && depth >= p_.max_depth) || n < p_.min_samples_split ||
           n < 2 * p_.min_samples_leaf || imp <= kEpsilon;
  }

  // sklearn's rand_r: xorshift32 reduced to [0, RAND_R_MAX].
  uint32_t rand_r() {
    if (state_ == 0) state_ = 1;  // DEFAULT_SEED
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_ % (static_cast<uint32_t>(0x7FFFFFFF) + 1u);
  }
  int rand_int(int low, int high) { return low + static_cast<int>(rand_r() % (high - low)); }

  // Best split of the node or feature == -1 when none is allowed. Features are drawn exactly as
  // sklearn's BestSplitter draws them (Fisher-Yates over a persistent feature array, known
  // constant features skipped), so ties between features resolve the same way.
  // n_constants: in, the constant features known from the parent; out, the node's count.
  NodeSplit find_split(const std::vector<int>& samples, const Stats& node, double node_imp,
                       int& n_constants) {
    const int n = static_cast<int>(samples.size());
    const int n_features = static_cast<int>(X_.cols());
    const int max_features =
        p_.max_features > 0 && p_.max_features < n_features ? p_.max_features : n_features;

    NodeSplit best;
    double best_proxy = -kInf;
    int best_pos = -1;
    std::vector<std::pair<double, int>> sorted(n);
    std::vector<std::pair<double, int>> best_sorted;
    Eigen::VectorXd left_sum(T_.cols());

    int f_i = n_features, n_visited = 0, n_found_constants = 0, n_drawn_constants = 0;
    const int n_known_constants = n_constants;
    int n_total_constants = n_known_constants;
    while (f_i > n_total_constants &&
           (n_visited < max_features || n_visited <= n_found_constants + n_drawn_constants)) {
      ++n_visited;
      int f_j = rand_int(n_drawn_constants, f_i - n_found_constants);
      if (f_j < n_known_constants) {
        std::swap(features_[n_drawn_constants], features_[f_j]);
        ++n_drawn_constants;
        continue;
      }
      f_j += n_found_constants;
      const int f = features_[f_j];
      for (int i = 0; i < n; ++i) sorted[i] = {X_(samples[i], f), samples[i]};
      std::sort(sorted.begin(), sorted.end());
      if (sorted.back().first <= sorted.front().first + kFeatureThreshold) {
        std::swap(features_[f_j], features_[n_total_constants]);
        ++n_found_constants;
        ++n_total_constants;
        continue;
      }
      --f_i;
      std::swap(features_[f_i], features_[f_j]);
      left_sum.setZero();
      double left_w = 0;
      bool improved = false;
      for (int pos = 1; pos < n; ++pos) {
        const int moved = sorted[pos - 1].second;
        left_sum += w_[moved] * T_.row(moved).transpose();
        left_w += w_[moved];
        if (sorted[pos].first <= sorted[pos - 1].first + kFeatureThreshold) continue;
        if (pos < p_.min_samples_leaf || n - pos < p_.min_samples_leaf) continue;
        const double right_w = node.weight - left_w;
        if (left_w <= 0 || right_w <= 0) continue;
        const Eigen::VectorXd right_sum = node.sum - left_sum;
        double proxy;
        if (classifier_) {
          const double gini_l = 1.0 - left_sum.squaredNorm() / (left_w * left_w);
          const double gini_r = 1.0 - right_sum.squaredNorm() / (right_w * right_w);
          proxy = -right_w * gini_r - left_w * gini_l;
        } else {
          proxy = left_sum.squaredNorm() / left_w + right_sum.squaredNorm() / right_w;
        }
        if (proxy > best_proxy) {
          best_proxy = proxy;
          best.feature = f;
          double t = sorted[pos - 1].first / 2.0 + sorted[pos].first / 2.0;
          if (t == sorted[pos].first || std::isinf(t)) t = sorted[pos - 1].first;
          best.threshold = t;
          best_pos = pos;
          improved = true;
        }
      }
      if (improved) best_sorted = sorted;
    }
    // Known constants keep their order for siblings and children; new ones are remembered.
    std::copy(constant_features_.begin(), constant_features_.begin() + n_known_constants,
              features_.begin());
    std::copy(features_.begin() + n_known_constants,
              features_.begin() + n_known_constants + n_found_constants,
              constant_features_.begin() + n_known_constants);
    n_constants = n_total_constants;
    if (best.feature < 0) return best;
    for (int i = 0; i < n; ++i) {
      (i < best_pos ? best.left : best.right).push_back(best_sorted[i].second);
    }
    const Stats l = stats(best.left), r = stats(best.right);
    best.impurity_left = impurity(l);
    best.impurity_right = impurity(r);
    best.improvement =
        (node.weight / total_weight_) * (node_imp - r.weight / node.weight * best.impurity_right -
                                         l.weight / node.weight * best.impurity_left);
    return best;
  }

  int add_node(std::vector<DecisionTree::Node>& nodes, const Stats& s) {
    DecisionTree::Node node;
    node.value = leaf_value(s);
    nodes.push_back(std::move(node));
    return static_cast<int>(nodes.size()) - 1;
  }

  int grow_depth_first(std::vector<DecisionTree::Node>& nodes, const std::vector<int>& samples,
                       int depth, double imp, bool first, int n_constants) {
    const Stats s = stats(samples);
    if (first) imp = impurity(s);
    const int id = add_node(nodes, s);
    if (leaf_by_size(static_cast<int>(samples.size()), depth, imp)) return id;
    NodeSplit split = find_split(samples, s, imp, n_constants);
    if (split.feature < 0 || split.improvement + kEpsilon < 0.0) return id;
    nodes[id].feature = split.feature;
    nodes[id].threshold = split.threshold;
    const int left =
        grow_depth_first(nodes, split.left, depth + 1, split.impurity_left, false, n_constants);
    nodes[id].left = left;
    const int right =
        grow_depth_first(nodes, split.right, depth + 1, split.impurity_right, false, n_constants);
    nodes[id].right = right;
    return id;
  }

  struct Record {
    int node = -1, depth = 0;
    bool is_leaf = true;
    double improvement = 0;
    NodeSplit split;
  };

  Record add_split_node(std::vector<DecisionTree::Node>& nodes, const std::vector<int>& samples,
                        int depth, double imp, bool first) {
    const Stats s = stats(samples);
    if (first) imp = impurity(s);
    Record r;
    r.node = add_node(nodes, s);
    r.depth = depth;
    r.is_leaf = leaf_by_size(static_cast<int>(samples.size()), depth, imp);
    if (!r.is_leaf) {
      int n_constants = 0;  // sklearn's best-first builder does not pass constants down
      r.split = find_split(samples, s, imp, n_constants);
      r.is_leaf = r.split.feature < 0 || r.split.improvement + kEpsilon < 0.0;
    }
    r.improvement = r.is_leaf ? 0.0 : r.split.improvement;
    return r;
  }

  void grow_best_first(std::vector<DecisionTree::Node>& nodes, const std::vector<int>& samples) {
    auto less = [](const Record& a, const Record& b) { return a.improvement < b.improvement; };
    std::vector<Record> frontier;
    frontier.push_back(add_split_node(nodes, samples, 0, 0, true));
    int split_budget = p_.max_leaf_nodes - 1;
    while (!frontier.empty()) {
      std::pop_heap(frontier.begin(), frontier.end(), less);
      Record rec = std::move(frontier.back());
      frontier.pop_back();
      if (rec.is_leaf || split_budget <= 0) continue;
      --split_budget;
      nodes[rec.node].feature = rec.split.feature;
      nodes[rec.node].threshold = rec.split.threshold;
      Record left =
          add_split_node(nodes, rec.split.left, rec.depth + 1, rec.split.impurity_left, false);
      nodes[rec.node].left = left.node;
      Record right =
          add_split_node(nodes, rec.split.right, rec.depth + 1, rec.split.impurity_right, false);
      nodes[rec.node].right = right.node;
      frontier.push_back(std::move(left));
      std::push_heap(frontier.begin(), frontier.end(), less);
      frontier.push_back(std::move(right));
      std::push_heap(frontier.begin(), frontier.end(), less);
    }
  }

  void set_total_weight(double w) { total_weight_ = w; }

 private:
  const Eigen::MatrixXd& X_;
  const Eigen::MatrixXd& T_;
  bool classifier_;
  TreeParams p_;
  const std::vector<double>& w_;
  uint32_t state_;
  std::vector<int> features_, constant_features_;  // persistent across nodes, as in sklearn
  double total_weight_ = 1;
};

void check_params(const TreeParams& p) {
  if (p.min_samples_split < 2) throw Error("tree: min_samples_split must be >= 2");
  if (p.min_samples_leaf < 1) throw Error("tree: min_samples_leaf must be >= 1");
  if (p.max_leaf_nodes > 0 && p.max_leaf_nodes < 2)
    throw Error("tree: max_leaf_nodes must be >= 2");
}

}  // namespace

void DecisionTree::fit(const Eigen::MatrixXd& X, const Eigen::MatrixXd& T, bool classifier,
                       const TreeParams& p, const std::vector<double>& w) {
  check_params(p);
  if (X.rows() == 0) throw Error("tree: cannot fit on an empty training set");
  if (X.rows() != T.rows() || static_cast<Eigen::Index>(w.size()) != X.rows()) {
    throw Error("tree: features, targets and weights disagree on the number of samples");
  }
  if (!X.allFinite()) throw Error("tree: features contain NaN or infinite values");
  if (!T.allFinite()) throw Error("tree: targets contain NaN or infinite values");
  classifier_ = classifier;
  n_features_ = static_cast<int>(X.cols());
  nodes_.clear();
  // Only positively weighted samples take part (bootstrap leaves some out), as in sklearn.
  std::vector<int> samples;
  double total = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    if (w[i] < 0) throw Error("tree: negative sample weight");
    if (w[i] > 0) {
      samples.push_back(static_cast<int>(i));
      total += w[i];
    }
  }
  if (samples.empty()) throw Error("tree: every sample weight is zero");
  Grower g(X, T, classifier, p, w);
  g.set_total_weight(total);
  if (p.max_leaf_nodes > 0) {
    g.grow_best_first(nodes_, samples);
  } else {
    g.grow_depth_first(nodes_, samples, 0, 0, true, 0);
  }
}

void DecisionTree::fit_classifier(const Eigen::MatrixXd& X, const std::vector<int>& y,
                                  int n_classes, const TreeParams& p) {
  fit_classifier(X, y, n_classes, p, std::vector<double>(X.rows(), 1.0));
}

void DecisionTree::fit_classifier(const Eigen::MatrixXd& X, const std::vector<int>& y,
                                  int n_classes, const TreeParams& p,
                                  const std::vector<double>& w) {
  if (static_cast<Eigen::Index>(y.size()) != X.rows()) {
    throw Error("tree: features and labels disagree on the number of samples");
  }
  if (n_classes < 1) throw Error("tree: n_classes must be >= 1");
  Eigen::MatrixXd onehot = Eigen::MatrixXd::Zero(X.rows(), n_classes);
  for (size_t i = 0; i < y.size(); ++i) {
    if (y[i] < 0 || y[i] >= n_classes) throw Error("tree: label out of range");
    onehot(static_cast<Eigen::Index>(i), y[i]) = 1.0;
  }
  fit(X, onehot, true, p, w);
}

void DecisionTree::fit_regressor(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
                                 const TreeParams& p) {
  fit_regressor(X, Y, p, std::vector<double>(X.rows(), 1.0));
}

void DecisionTree::fit_regressor(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
                                 const TreeParams& p, const std::vector<double>& w) {
  if (Y.cols() < 1) throw Error("tree: regression needs at least one output");
  fit(X, Y, false, p, w);
}

int DecisionTree::leaf_index(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (nodes_.empty()) throw Error("tree: predict before fit");
  if (x.size() != n_features_) throw Error("tree: wrong number of features in predict");
  int id = 0;
  while (nodes_[id].feature >= 0) {
    id = x[nodes_[id].feature] <= nodes_[id].threshold ? nodes_[id].left : nodes_[id].right;
  }
  return id;
}

Eigen::VectorXd DecisionTree::predict_values(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return nodes_[leaf_index(x)].value;
}

int DecisionTree::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  const Eigen::VectorXd& v = nodes_[leaf_index(x)].value;
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < v.size(); ++c) {
    if (v[c] > v[best]) best = c;
  }
  return static_cast<int>(best);
}

int DecisionTree::n_leaves() const {
  return static_cast<int>(
      std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.feature < 0; }));
}

int DecisionTree::depth() const {
  if (nodes_.empty()) return 0;
  std::vector<std::pair<int, int>> stack{{0, 0}};
  int deepest = 0;
  while (!stack.empty()) {
    auto [id, d] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, d);
    if (nodes_[id].feature >= 0) {
      stack.emplace_back(nodes_[id].left, d + 1);
      stack.emplace_back(nodes_[id].right, d + 1);
    }
  }
  return deepest;
}

nlohmann::json DecisionTree::to_json() const {
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : nodes_) {
    nlohmann::json j;
    j["feature"] = n.feature;
    j["threshold"] = n.threshold;
    j["left"] = n.left;
    j["right"] = n.right;
    j["value"] = std::vector<double>(n.value.data(), n.value.data() + n.value.size());
    nodes.push_back(std::move(j));
  }
  return {{"kind", classifier_ ? "classifier" : "regressor"},
          {"n_features", n_features_},
          {"nodes", std::move(nodes)}};
}

DecisionTree DecisionTree::from_json(const nlohmann::json& j) {
  namespace jf = json_fields;
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  DecisionTree t;
  const std::string kind = jf::text(j, "kind", "tree");
  if (kind != "classifier" && kind != "regressor")
    throw Error("field 'tree.kind': expected \"classifier\" or \"regressor\", got \"" + kind +
                "\"");
  t.classifier_ = kind == "classifier";
  t.n_features_ = static_cast<int>(jf::integer(j, "n_features", "tree", 0, kMaxInt));
  const auto& nodes = jf::array(j, "nodes", "tree");
  if (nodes.empty()) throw Error("field 'tree.nodes': the tree has no nodes");
  if (nodes.size() > static_cast<size_t>(kMaxInt))
    throw Error("field 'tree.nodes': more nodes than an int can index");
  const auto size = static_cast<int64_t>(nodes.size());
  for (int64_t i = 0; i < size; ++i) {
    const std::string where = fmt::format("tree.nodes[{}]", i);
    const auto& jn = nodes[static_cast<size_t>(i)];
    Node n;
    // A split names a feature of the model and children after it in the list (which also
    // rules out cycles); a leaf has feature -1.
    n.feature = static_cast<int>(jf::integer(jf::member(jn, "feature", where), where + ".feature",
                                             -1, int64_t(t.n_features_) - 1));
    n.threshold = jf::number(jf::member(jn, "threshold", where), where + ".threshold");
    const bool split = n.feature >= 0;
    n.left = static_cast<int>(split ? jf::integer(jn, "left", where, i + 1, size - 1)
                                    : jf::integer(jn, "left", where, -1, kMaxInt));
    n.right = static_cast<int>(split ? jf::integer(jn, "right", where, i + 1, size - 1)
                                     : jf::integer(jn, "right", where, -1, kMaxInt));
    const auto v = jf::numbers(jn, "value", where);
    if (v.empty() || (i > 0 && v.size() != static_cast<size_t>(t.nodes_[0].value.size())))
      throw Error(fmt::format("field '{}.value': {} values, node 0 has {}", where, v.size(),
                              i > 0 ? t.nodes_[0].value.size() : Eigen::Index(1)));
    n.value = Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
    t.nodes_.push_back(std::move(n));
  }
  return t;
}

}  // namespace ktune::ml
