// HDBSCAN: core distances, mutual reachability MST (Prim, dense), single-linkage hierarchy,
// condensed tree and excess-of-mass selection, following Campello et al. and the hdbscan library.
#include "ktune/ml/hdbscan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>

#include "ktune/error.hpp"

namespace ktune::ml {
namespace {

// Distances below this are treated as this, so lambda = 1/distance stays finite for duplicates.
constexpr double kMinDistance = 1e-12;

struct Edge {
  int a, b;
  double weight;
};

struct Merge {
  int left, right;
  double distance;
  int size;
};

// One row of the condensed tree: `child` (a point < n, or a cluster id) leaves `parent` at lambda.
struct CondensedRow {
  int parent, child;
  double lambda;
  int size;
};

std::vector<Edge> mutual_reachability_mst(const Eigen::MatrixXd& dist,
                                          const Eigen::VectorXd& core) {
  const int n = int(dist.rows());
  std::vector<Edge> edges;
  std::vector<bool> in_tree(size_t(n), false);
  std::vector<double> best(size_t(n), std::numeric_limits<double>::infinity());
  std::vector<int> from(size_t(n), -1);
  int current = 0;
  in_tree[0] = true;
  for (int added = 1; added < n; ++added) {
    int next = -1;
    for (int j = 0; j < n; ++j) {
      if (in_tree[size_t(j)]) continue;
      const double w = std::max({dist(current, j), core(current), core(j)});
      if (w < best[size_t(j)]) {
        best[size_t(j)] = w;
        from[size_t(j)] = current;
      }
      if (next < 0 || best[size_t(j)] < best[size_t(next)]) next = j;
    }
    in_tree[size_t(next)] = true;
    edges.push_back({from[size_t(next)], next, best[size_t(next)]});
    current = next;
  }
  return edges;
}

// Single-linkage merges, scipy layout: merge t creates node n + t.
std::vector<Merge> single_linkage(std::vector<Edge> edges, int n) {
  std::stable_sort(edges.begin(), edges.end(),
                   [](const Edge& x, const Edge& y) { return x.weight < y.weight; });
  std::vector<int> parent(size_t(2 * n - 1)), size(size_t(2 * n - 1), 1);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  };
  std::vector<Merge> merges;
  for (const Edge& e : edges) {
    const int ra = find(e.a), rb = find(e.b);
    const int node = n + int(merges.size());
    merges.push_back({ra, rb, e.weight, size[size_t(ra)] + size[size_t(rb)]});
    parent[size_t(ra)] = parent[size_t(rb)] = node;
    size[size_t(node)] = size[size_t(ra)] + size[size_t(rb)];
  }
  return merges;
}

std::vector<CondensedRow> condense(const std::vector<Merge>& merges, int n, int min_size,
                                   int& n_clusters) {
  std::vector<CondensedRow> rows;
  const int root = 2 * n - 2;
  auto size_of = [&](int node) { return node < n ? 1 : merges[size_t(node - n)].size; };
  auto leaves = [&](int node, std::vector<int>& out) {
    std::vector<int> stack{node};
    while (!stack.empty()) {
      const int x = stack.back();
      stack.pop_back();
      if (x < n) {
        out.push_back(x);
      } else {
        stack.push_back(merges[size_t(x - n)].right);
        stack.push_back(merges[size_t(x - n)].left);
      }
    }
  };
  // Cluster ids: 0 for the root, then in the order clusters are born (breadth first).
  std::vector<int> label(size_t(2 * n - 1), -1);
  label[size_t(root)] = 0;
  n_clusters = 1;
  std::deque<int> queue{root};
  while (!queue.empty()) {
    const int node = queue.front();
    queue.pop_front();
    const Merge& m = merges[size_t(node - n)];
    const double lambda = 1.0 / std::max(m.distance, kMinDistance);
    const int parent = label[size_t(node)];
    const int ls = size_of(m.left), rs = size_of(m.right);
    auto fall_out = [&](int child) {
      std::vector<int> pts;
      leaves(child, pts);
      for (int p : pts) rows.push_back({parent, p, lambda, 1});
    };
    auto continue_as = [&](int child) {
      label[size_t(child)] = parent;
      if (child >= n) queue.push_back(child);
    };
    if (ls >= min_size && rs >= min_size) {
      for (int child : {m.left, m.right}) {
        label[size_t(child)] = n_clusters++;
        rows.push_back({parent, n + label[size_t(child)], lambda, size_of(child)});
        queue.push_back(child);
      }
    } else if (ls < min_size && rs < min_size) {
      fall_out(m.left);
      fall_out(m.right);
    } else if (ls < min_size) {
      fall_out(m.left);
      continue_as(m.right);
    } else {
      fall_out(m.right);
      continue_as(m.left);
    }
  }
  return rows;
}

}  // namespace

Eigen::MatrixXd pairwise_distances(const Eigen::MatrixXd& X) {
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i + 1; j < n; ++j) d(i, j) = d(j, i) = (X.row(i) - X.row(j)).norm();
  }
  return d;
}

HdbscanResult hdbscan(const Eigen::MatrixXd& X, const HdbscanOptions& options) {
  if (!X.allFinite()) throw Error("HDBSCAN input holds NaN or infinite values");
  return hdbscan_distances(pairwise_distances(X), options);
}

HdbscanResult hdbscan_distances(const Eigen::MatrixXd& dist, const HdbscanOptions& options) {
  const int n = int(dist.rows());
  if (n == 0 || dist.cols() != dist.rows()) {
    throw Error(fmt::format("HDBSCAN needs a square non-empty distance matrix, got {}x{}",
                            dist.rows(), dist.cols()));
  }
  if (options.min_cluster_size < 2) {
    throw Error(
        fmt::format("HDBSCAN min_cluster_size must be >= 2, got {}", options.min_cluster_size));
  }
  HdbscanResult result;
  result.labels.assign(size_t(n), -1);
  result.probabilities.assign(size_t(n), 0.0);
  if (n < 2) return result;

  const int min_samples =
      std::min(n, options.min_samples > 0 ? options.min_samples : options.min_cluster_size);
  Eigen::VectorXd core(n);
  std::vector<double> row(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) row[size_t(j)] = dist(i, j);
    std::nth_element(row.begin(), row.begin() + (min_samples - 1), row.end());
    core(i) = row[size_t(min_samples - 1)];  // the point itself is its first neighbour
  }
  const auto merges = single_linkage(mutual_reachability_mst(dist, core), n);
  int n_condensed = 0;
  const auto tree = condense(merges, n, options.min_cluster_size, n_condensed);

  // Stability: sum over what leaves a cluster of (lambda - birth lambda) * size.
  std::vector<double> birth(size_t(n_condensed), 0.0), stability(size_t(n_condensed), 0.0);
  std::vector<int> parent_of(size_t(n_condensed), -1);
  std::vector<std::vector<int>> children(static_cast<size_t>(n_condensed));
  for (const auto& r : tree) {
    if (r.child >= n) {
      birth[size_t(r.child - n)] = r.lambda;
      parent_of[size_t(r.child - n)] = r.parent;
      children[size_t(r.parent)].push_back(r.child - n);
    }
  }
  for (const auto& r : tree) {
    stability[size_t(r.parent)] += (r.lambda - birth[size_t(r.parent)]) * r.size;
  }
  // Excess of mass, leaves first (children always have larger ids); the root is not eligible.
  std::vector<bool> selected(size_t(n_condensed), false);
  std::vector<double> subtree(stability);
  for (int c = n_condensed - 1; c >= 1; --c) {
    double sum = 0;
    for (int child : children[size_t(c)]) sum += subtree[size_t(child)];
    if (!children[size_t(c)].empty() && sum > stability[size_t(c)]) {
      subtree[size_t(c)] = sum;
    } else {
      selected[size_t(c)] = true;
      std::vector<int> stack(children[size_t(c)]);
      while (!stack.empty()) {
        const int x = stack.back();
        stack.pop_back();
        selected[size_t(x)] = false;
        for (int y : children[size_t(x)]) stack.push_back(y);
      }
    }
  }
  std::vector<int> cluster_index(size_t(n_condensed), -1);
  for (int c = 1; c < n_condensed; ++c) {
    if (selected[size_t(c)]) {
      cluster_index[size_t(c)] = result.n_clusters++;
      result.stability.push_back(stability[size_t(c)]);
    }
  }
  result.members.resize(size_t(result.n_clusters));
  result.exemplars.resize(size_t(result.n_clusters));
  // A point belongs to the selected cluster that it leaves from, or to a selected ancestor.
  std::vector<double> point_lambda(size_t(n), 0.0);
  for (const auto& r : tree) {
    if (r.child >= n) continue;
    int c = r.parent;
    while (c > 0 && !selected[size_t(c)]) c = parent_of[size_t(c)];
    if (c > 0) {
      result.labels[size_t(r.child)] = cluster_index[size_t(c)];
      point_lambda[size_t(r.child)] = r.lambda;
    }
  }
  for (int i = 0; i < n; ++i) {
    if (result.labels[size_t(i)] >= 0)
      result.members[size_t(result.labels[size_t(i)])].push_back(i);
  }
  for (int c = 0; c < result.n_clusters; ++c) {
    double max_lambda = 0;
    for (int i : result.members[size_t(c)])
      max_lambda = std::max(max_lambda, point_lambda[size_t(i)]);
    for (int i : result.members[size_t(c)]) {
      result.probabilities[size_t(i)] = max_lambda > 0 ? point_lambda[size_t(i)] / max_lambda : 1;
      if (point_lambda[size_t(i)] >= max_lambda) result.exemplars[size_t(c)].push_back(i);
    }
  }
  return result;
}

}  // namespace ktune::ml
