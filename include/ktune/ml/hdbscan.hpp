#pragma once
// HDBSCAN (Campello et al. 2013), own implementation: core distances, the minimum spanning tree
// of the mutual reachability graph, the condensed tree and excess-of-mass cluster selection
// (the root is never selected, as allow_single_cluster=False in the reference library).
// Exemplars of a cluster are its members with the highest lambda (1/distance) at which they
// leave the cluster: the most persistent, densest points, as in the hdbscan library.
#include <Eigen/Dense>
#include <vector>

namespace ktune::ml {

struct HdbscanOptions {
  int min_cluster_size = 5;
  // Core distance = distance to the min_samples-th nearest neighbour, counting the point
  // itself (so 1 gives plain single linkage). <= 0 means min_cluster_size.
  int min_samples = -1;
};

struct HdbscanResult {
  std::vector<int> labels;  // per row, cluster 0..n_clusters-1 or -1 for noise
  int n_clusters = 0;
  std::vector<double> probabilities;        // per row, lambda / max lambda of its cluster
  std::vector<double> stability;            // per cluster
  std::vector<std::vector<int>> exemplars;  // per cluster, rows with the highest lambda
  std::vector<std::vector<int>> members;    // per cluster
};

// On a precomputed symmetric distance matrix (rows × rows).
HdbscanResult hdbscan_distances(const Eigen::MatrixXd& distances, const HdbscanOptions& options);
// Euclidean distances between the rows of X.
HdbscanResult hdbscan(const Eigen::MatrixXd& X, const HdbscanOptions& options);
Eigen::MatrixXd pairwise_distances(const Eigen::MatrixXd& X);

}  // namespace ktune::ml
