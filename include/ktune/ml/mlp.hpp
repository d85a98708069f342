#pragma once
// Multi-layer perceptron classifier: ReLU hidden layers (default 16-16), softmax output,
// cross-entropy loss with L2 penalty, trained by Adam on mini-batches; weights start
// Glorot-uniform from a seeded generator, like sklearn's MLPClassifier. Inputs are used as
// given: standardize them first.
#include <Eigen/Dense>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace ktune::ml {

struct MlpParams {
  std::vector<int> hidden{16, 16};
  int epochs = 200;
  int batch_size = 32;
  double learning_rate = 1e-3;
  double l2 = 1e-4;  // sklearn's alpha
  uint64_t seed = 0;
};

class Mlp {
 public:
  void fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
           const MlpParams& p = {});
  Eigen::VectorXd predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  // Mean cross-entropy (without the L2 term) on a data set; for tests and diagnostics.
  double loss(const Eigen::MatrixXd& X, const std::vector<int>& y) const;

  nlohmann::json to_json() const;
  static Mlp from_json(const nlohmann::json& j);

  Eigen::Index n_features() const { return W_.empty() ? 0 : W_.front().rows(); }
  Eigen::Index n_classes() const { return W_.empty() ? 0 : W_.back().cols(); }

 private:
  Eigen::MatrixXd forward(const Eigen::MatrixXd& X) const;  // rows × classes probabilities
  std::vector<Eigen::MatrixXd> W_;                          // layer l: in × out
  std::vector<Eigen::RowVectorXd> b_;
};

}  // namespace ktune::ml
