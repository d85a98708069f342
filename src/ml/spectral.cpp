// Spectral clustering (Ng, Jordan & Weiss): RBF affinity, normalized Laplacian, k-means on the
// unit-normalized eigenvector rows.
#include "ktune/ml/spectral.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/ml/hdbscan.hpp"
#include "ktune/ml/kmeans.hpp"

namespace ktune::ml {

SpectralResult spectral_clustering(const Eigen::MatrixXd& X, const SpectralOptions& options) {
  const Eigen::Index n = X.rows();
  if (n == 0 || X.cols() == 0) {
    throw Error(fmt::format("spectral clustering on an empty matrix ({}x{})", n, X.cols()));
  }
  if (options.k < 1 || options.k > n) {
    throw Error(
        fmt::format("spectral clustering with k={} needs 1 <= k <= rows ({})", options.k, n));
  }
  const Eigen::MatrixXd dist = pairwise_distances(X);
  const Eigen::MatrixXd sq = dist.array().square();
  SpectralResult result;
  result.gamma = options.gamma;
  if (result.gamma <= 0) {
    std::vector<double> nonzero;
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = i + 1; j < n; ++j) {
        if (sq(i, j) > 0) nonzero.push_back(sq(i, j));
      }
    }
    double median = 1;
    if (!nonzero.empty()) {
      std::nth_element(nonzero.begin(), nonzero.begin() + long(nonzero.size() / 2), nonzero.end());
      median = nonzero[nonzero.size() / 2];
    }
    result.gamma = 1.0 / median;
  }
  const Eigen::MatrixXd affinity = (-result.gamma * sq.array()).exp();
  // The k smallest eigenvalues of I - D^-1/2 A D^-1/2 are the k largest of D^-1/2 A D^-1/2.
  // Every degree is >= 1 because the diagonal of A is 1.
  const Eigen::VectorXd inv_sqrt_degree = affinity.rowwise().sum().array().rsqrt();
  const Eigen::MatrixXd m = inv_sqrt_degree.asDiagonal() * affinity * inv_sqrt_degree.asDiagonal();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  if (eig.info() != Eigen::Success) throw Error("spectral clustering: eigen solver failed");
  // Eigenvalues ascend: the last k columns are the wanted ones (largest first).
  Eigen::MatrixXd embedding(n, options.k);
  for (int j = 0; j < options.k; ++j) embedding.col(j) = eig.eigenvectors().col(n - 1 - j);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double norm = embedding.row(i).norm();
    if (norm > 0) embedding.row(i) /= norm;
  }
  // Eigenvectors have an arbitrary sign; fix it so results do not depend on the solver.
  for (int j = 0; j < options.k; ++j) {
    Eigen::Index at;
    embedding.col(j).cwiseAbs().maxCoeff(&at);
    if (embedding(at, j) < 0) embedding.col(j) = -embedding.col(j);
  }
  KMeansOptions km;
  km.k = options.k;
  km.seed = options.seed;
  km.n_init = options.n_init;
  result.labels = kmeans(embedding, km).labels;
  result.embedding = std::move(embedding);
  return result;
}

}  // namespace ktune::ml
