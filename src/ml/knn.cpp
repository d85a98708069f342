// k-nearest-neighbour classifier (see knn.hpp): brute force, which is exact and fast enough for
// the few hundred training problems a device has.
#include "ktune/ml/knn.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "ktune/error.hpp"
#include "ktune/ml/scaler.hpp"
#include "src/ml/argmax.hpp"
#include "src/ml/json_fields.hpp"

namespace ktune::ml {

void KnnClassifier::fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes, int k) {
  if (X.rows() == 0) throw Error("knn: cannot fit on an empty training set");
  if (static_cast<Eigen::Index>(y.size()) != X.rows()) {
    throw Error("knn: features and labels disagree on the number of samples");
  }
  if (k < 1) throw Error("knn: k must be >= 1");
  if (!X.allFinite()) throw Error("knn: features contain NaN or infinite values");
  for (int label : y) {
    if (label < 0 || label >= n_classes) throw Error("knn: label out of range");
  }
  X_ = X;
  y_ = y;
  n_classes_ = n_classes;
  k_ = std::min<int>(k, static_cast<int>(X.rows()));
}

std::vector<int> KnnClassifier::neighbours(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (X_.rows() == 0) throw Error("knn: predict before fit");
  if (x.size() != X_.cols()) throw Error("knn: wrong number of features in predict");
  const Eigen::VectorXd d2 = (X_.rowwise() - x).rowwise().squaredNorm();
  std::vector<int> idx(X_.rows());
  std::iota(idx.begin(), idx.end(), 0);
  std::partial_sort(idx.begin(), idx.begin() + k_, idx.end(),
                    [&](int a, int b) { return d2[a] < d2[b] || (d2[a] == d2[b] && a < b); });
  idx.resize(k_);
  return idx;
}

Eigen::VectorXd KnnClassifier::predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  Eigen::VectorXd votes = Eigen::VectorXd::Zero(n_classes_);
  for (int i : neighbours(x)) votes[y_[i]] += 1.0;
  return votes / static_cast<double>(k_);
}

int KnnClassifier::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return first_argmax(predict_proba(x));
}

nlohmann::json KnnClassifier::to_json() const {
  return {{"k", k_}, {"n_classes", n_classes_}, {"X", ml::to_json(X_)}, {"y", y_}};
}

KnnClassifier KnnClassifier::from_json(const nlohmann::json& j) {
  namespace jf = json_fields;
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  KnnClassifier m;
  m.k_ = static_cast<int>(jf::integer(j, "k", "knn", 1, kMaxInt));
  m.n_classes_ = static_cast<int>(jf::integer(j, "n_classes", "knn", 1, kMaxInt));
  for (int64_t label : jf::integers(j, "y", "knn", 0, m.n_classes_ - 1))
    m.y_.push_back(static_cast<int>(label));
  m.X_ = matrix_from_json(jf::member(j, "X", "knn"));
  if (static_cast<Eigen::Index>(m.y_.size()) != m.X_.rows() || m.k_ < 1 || m.k_ > m.X_.rows()) {
    throw Error("knn: JSON model is inconsistent (labels, rows and k disagree)");
  }
  for (int label : m.y_) {
    if (label < 0 || label >= m.n_classes_) throw Error("knn: JSON model has a bad label");
  }
  return m;
}

}  // namespace ktune::ml
