#pragma once
// Lloyd k-means with k-means++ seeding, written to match scikit-learn's KMeans
// (algorithm='lloyd'): the same convergence rule (labels unchanged, or the squared Frobenius
// shift of the centers <= tol * mean feature variance), the same empty-cluster relocation (the
// points farthest from their centers, taken in order of distance, ties by row index).
#include <Eigen/Dense>
#include <cstdint>
#include <random>
#include <vector>

namespace ktune::ml {

struct KMeansOptions {
  int k = 8;
  int n_init = 10;  // k-means++ restarts; the lowest inertia wins
  int max_iter = 300;
  double tol = 1e-4;
  uint64_t seed = 0;
};

struct KMeansResult {
  Eigen::MatrixXd centers;  // k × features
  std::vector<int> labels;  // per row, index of its nearest center
  double inertia = 0;       // sum of squared distances to the assigned centers
  int iterations = 0;
};

// Throws Error when k < 1, X is empty, or k > rows.
KMeansResult kmeans(const Eigen::MatrixXd& X, const KMeansOptions& options);
// One Lloyd run from the given centers (sklearn KMeans(init=centers, n_init=1)).
KMeansResult kmeans_from_centers(const Eigen::MatrixXd& X, const Eigen::MatrixXd& initial_centers,
                                 int max_iter = 300, double tol = 1e-4);
// Greedy k-means++ (2 + log k local trials per center, as sklearn).
Eigen::MatrixXd kmeans_plusplus(const Eigen::MatrixXd& X, int k, std::mt19937_64& rng);

}  // namespace ktune::ml
