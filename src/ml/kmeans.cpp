// Lloyd k-means and k-means++ seeding, mirroring scikit-learn 1.2's KMeans(algorithm='lloyd').
#include "ktune/ml/kmeans.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ktune/error.hpp"

namespace ktune::ml {
namespace {

void check_input(const Eigen::MatrixXd& X, int k) {
  if (X.rows() == 0 || X.cols() == 0) {
    throw Error(fmt::format("k-means on an empty matrix ({}x{})", X.rows(), X.cols()));
  }
  if (!X.allFinite()) throw Error("k-means input holds NaN or infinite values");
  if (k < 1 || k > X.rows()) {
    throw Error(fmt::format("k-means with k={} needs 1 <= k <= rows ({})", k, X.rows()));
  }
}

// Assigns each row to its nearest center (ties: the lowest index); returns squared distances.
Eigen::VectorXd assign(const Eigen::MatrixXd& X, const Eigen::MatrixXd& centers,
                       std::vector<int>& labels) {
  Eigen::VectorXd best(X.rows());
  labels.resize(size_t(X.rows()));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    double best_d = std::numeric_limits<double>::infinity();
    int best_c = 0;
    for (Eigen::Index c = 0; c < centers.rows(); ++c) {
      const double dist = (X.row(i) - centers.row(c)).squaredNorm();
      if (dist < best_d) {
        best_d = dist;
        best_c = int(c);
      }
    }
    labels[size_t(i)] = best_c;
    best(i) = best_d;
  }
  return best;
}

// New centers as the means of their members. An empty cluster takes the point farthest from
// its (old) center, as sklearn's _relocate_empty_clusters; ties by row index keep it stable.
Eigen::MatrixXd update_centers(const Eigen::MatrixXd& X, const Eigen::MatrixXd& old_centers,
                               const std::vector<int>& labels, const Eigen::VectorXd& dist) {
  const Eigen::Index k = old_centers.rows();
  Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(k, X.cols());
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(k);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    sums.row(labels[size_t(i)]) += X.row(i);
    counts(labels[size_t(i)]) += 1;
  }
  std::vector<Eigen::Index> empty;
  for (Eigen::Index c = 0; c < k; ++c) {
    if (counts(c) == 0) empty.push_back(c);
  }
  if (!empty.empty()) {
    std::vector<Eigen::Index> order(size_t(X.rows()));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return dist(a) > dist(b); });
    for (size_t e = 0; e < empty.size(); ++e) {
      const Eigen::Index far = order[e];
      const int old = labels[size_t(far)];
      sums.row(old) -= X.row(far);
      counts(old) -= 1;
      sums.row(empty[e]) = X.row(far);
      counts(empty[e]) = 1;
    }
  }
  for (Eigen::Index c = 0; c < k; ++c) {
    if (counts(c) > 0) sums.row(c) /= counts(c);
  }
  return sums;
}

double mean_variance(const Eigen::MatrixXd& X) {
  const Eigen::RowVectorXd mean = X.colwise().mean();
  return (X.rowwise() - mean).array().square().colwise().sum().mean() / double(X.rows());
}

}  // namespace

KMeansResult kmeans_from_centers(const Eigen::MatrixXd& X, const Eigen::MatrixXd& initial_centers,
                                 int max_iter, double tol) {
  check_input(X, int(initial_centers.rows()));
  if (initial_centers.cols() != X.cols()) {
    throw Error(
        fmt::format("k-means centers have {} columns, data {}", initial_centers.cols(), X.cols()));
  }
  const double threshold = tol * mean_variance(X);
  KMeansResult result;
  Eigen::MatrixXd centers = initial_centers;
  std::vector<int> labels, old_labels(size_t(X.rows()), -1);
  bool strict = false;
  int it = 0;
  for (; it < std::max(1, max_iter); ++it) {
    const Eigen::VectorXd dist = assign(X, centers, labels);
    Eigen::MatrixXd next = update_centers(X, centers, labels, dist);
    const double shift = (next - centers).squaredNorm();
    centers = std::move(next);
    if (labels == old_labels) {
      strict = true;
      break;
    }
    if (shift <= threshold) break;
    old_labels = labels;
  }
  // Unless the labels already matched the centers, relabel against the final centers.
  Eigen::VectorXd dist;
  if (!strict) {
    dist = assign(X, centers, labels);
  } else {
    dist.resize(X.rows());
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      dist(i) = (X.row(i) - centers.row(labels[size_t(i)])).squaredNorm();
    }
  }
  result.centers = std::move(centers);
  result.labels = std::move(labels);
  result.inertia = dist.sum();
  result.iterations = std::min(it + 1, std::max(1, max_iter));
  return result;
}

Eigen::MatrixXd kmeans_plusplus(const Eigen::MatrixXd& X, int k, std::mt19937_64& rng) {
  check_input(X, k);
  const Eigen::Index n = X.rows();
  const int trials = 2 + int(std::log(double(k)));
  Eigen::MatrixXd centers(k, X.cols());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto first = Eigen::Index(std::uniform_int_distribution<int64_t>(0, n - 1)(rng));
  centers.row(0) = X.row(first);
  Eigen::VectorXd closest = (X.rowwise() - X.row(first)).rowwise().squaredNorm();
  for (int c = 1; c < k; ++c) {
    const double potential = closest.sum();
    Eigen::VectorXd best_closest;
    double best_potential = std::numeric_limits<double>::infinity();
    Eigen::Index best_candidate = 0;
    for (int t = 0; t < trials; ++t) {
      // Sample a row with probability proportional to its squared distance to the centers.
      Eigen::Index candidate = n - 1;
      if (potential > 0) {
        const double target = unit(rng) * potential;
        double acc = 0;
        for (Eigen::Index i = 0; i < n; ++i) {
          acc += closest(i);
          if (acc > target) {
            candidate = i;
            break;
          }
        }
      } else {
        candidate = Eigen::Index(std::uniform_int_distribution<int64_t>(0, n - 1)(rng));
      }
      Eigen::VectorXd with = (X.rowwise() - X.row(candidate)).rowwise().squaredNorm();
      with = with.cwiseMin(closest);
      const double p = with.sum();
      if (p < best_potential) {
        best_potential = p;
        best_candidate = candidate;
        best_closest = std::move(with);
      }
    }
    centers.row(c) = X.row(best_candidate);
    closest = std::move(best_closest);
  }
  return centers;
}

KMeansResult kmeans(const Eigen::MatrixXd& X, const KMeansOptions& options) {
  check_input(X, options.k);
  std::mt19937_64 rng(options.seed);
  KMeansResult best;
  best.inertia = std::numeric_limits<double>::infinity();
  for (int init = 0; init < std::max(1, options.n_init); ++init) {
    KMeansResult r =
        kmeans_from_centers(X, kmeans_plusplus(X, options.k, rng), options.max_iter, options.tol);
    if (r.inertia < best.inertia) best = std::move(r);
  }
  return best;
}

}  // namespace ktune::ml
