#pragma once
// Spectral clustering: RBF affinity, symmetric normalized Laplacian, the eigenvectors of its k
// smallest eigenvalues (rows normalized to unit length, Ng-Jordan-Weiss), then k-means.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace ktune::ml {

struct SpectralOptions {
  int k = 8;
  // RBF width: affinity = exp(-gamma * |x - y|^2). gamma <= 0 picks 1 / median of the nonzero
  // squared pairwise distances, so the affinity is neither all ones nor all zeros.
  double gamma = 0;
  uint64_t seed = 0;
  int n_init = 10;
};

struct SpectralResult {
  std::vector<int> labels;    // per row, 0..k-1
  Eigen::MatrixXd embedding;  // rows × k (unit rows)
  double gamma = 0;           // the gamma used
};

// Throws Error when k < 1, X is empty, or k > rows.
SpectralResult spectral_clustering(const Eigen::MatrixXd& X, const SpectralOptions& options);

}  // namespace ktune::ml
