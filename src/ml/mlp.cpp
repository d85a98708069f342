// MLP classifier (see mlp.hpp): plain batched backpropagation with Eigen and Adam.
#include "ktune/ml/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "ktune/error.hpp"
#include "ktune/ml/scaler.hpp"
#include "src/ml/argmax.hpp"

namespace ktune::ml {
namespace {

Eigen::MatrixXd softmax_rows(Eigen::MatrixXd z) {
  for (Eigen::Index r = 0; r < z.rows(); ++r) {
    z.row(r).array() -= z.row(r).maxCoeff();
    z.row(r) = z.row(r).array().exp().matrix();
    z.row(r) /= z.row(r).sum();
  }
  return z;
}

struct Adam {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  int t = 0;
  std::vector<Eigen::MatrixXd> m, v;
  void step(std::vector<Eigen::MatrixXd*>& params, const std::vector<Eigen::MatrixXd>& grads) {
    if (m.empty()) {
      for (auto* p : params) {
        m.push_back(Eigen::MatrixXd::Zero(p->rows(), p->cols()));
        v.push_back(Eigen::MatrixXd::Zero(p->rows(), p->cols()));
      }
    }
    ++t;
    const double lr_t = lr * std::sqrt(1 - std::pow(beta2, t)) / (1 - std::pow(beta1, t));
    for (size_t k = 0; k < params.size(); ++k) {
      m[k] = beta1 * m[k] + (1 - beta1) * grads[k];
      v[k] = beta2 * v[k] + (1 - beta2) * grads[k].cwiseProduct(grads[k]);
      *params[k] -= (lr_t * m[k].array() / (v[k].array().sqrt() + eps)).matrix();
    }
  }
};

}  // namespace

void Mlp::fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
              const MlpParams& p) {
  if (X.rows() == 0) throw Error("mlp: cannot fit on an empty training set");
  if (static_cast<Eigen::Index>(y.size()) != X.rows()) {
    throw Error("mlp: features and labels disagree on the number of samples");
  }
  if (!X.allFinite()) throw Error("mlp: features contain NaN or infinite values");
  if (n_classes < 1 || p.epochs < 1 || p.batch_size < 1 || !(p.learning_rate > 0)) {
    throw Error("mlp: n_classes, epochs, batch_size and learning_rate must be positive");
  }
  for (int label : y) {
    if (label < 0 || label >= n_classes) throw Error("mlp: label out of range");
  }
  std::mt19937_64 rng(p.seed);
  std::vector<int> sizes{static_cast<int>(X.cols())};
  for (int h : p.hidden) {
    if (h < 1) throw Error("mlp: hidden layer sizes must be >= 1");
    sizes.push_back(h);
  }
  sizes.push_back(n_classes);
  W_.clear();
  b_.clear();
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    const double bound = std::sqrt(6.0 / (sizes[l] + sizes[l + 1]));
    std::uniform_real_distribution<double> u(-bound, bound);
    Eigen::MatrixXd w(sizes[l], sizes[l + 1]);
    for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = u(rng);
    Eigen::RowVectorXd b(sizes[l + 1]);
    for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = u(rng);
    W_.push_back(std::move(w));
    b_.push_back(std::move(b));
  }
  const size_t L = W_.size();
  std::vector<Eigen::MatrixXd> b_mats(L);
  std::vector<Eigen::MatrixXd*> params;
  for (size_t l = 0; l < L; ++l) params.push_back(&W_[l]);
  for (size_t l = 0; l < L; ++l) {
    b_mats[l] = b_[l];
    params.push_back(&b_mats[l]);
  }
  Adam adam;
  adam.lr = p.learning_rate;
  const Eigen::Index n = X.rows();
  std::vector<Eigen::Index> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<Eigen::MatrixXd> acts(L + 1), grads(2 * L);
  for (int epoch = 0; epoch < p.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    for (Eigen::Index start = 0; start < n; start += p.batch_size) {
      const Eigen::Index m = std::min<Eigen::Index>(p.batch_size, n - start);
      acts[0].resize(m, X.cols());
      Eigen::MatrixXd target = Eigen::MatrixXd::Zero(m, n_classes);
      for (Eigen::Index r = 0; r < m; ++r) {
        acts[0].row(r) = X.row(order[start + r]);
        target(r, y[order[start + r]]) = 1.0;
      }
      for (size_t l = 0; l < L; ++l) {
        Eigen::MatrixXd z = (acts[l] * W_[l]).rowwise() + b_mats[l].row(0);
        acts[l + 1] = l + 1 < L ? Eigen::MatrixXd(z.cwiseMax(0.0)) : softmax_rows(std::move(z));
      }
      // Cross-entropy + softmax: dL/dz = (p - t) / m; L2 as sklearn: alpha * W / m.
      Eigen::MatrixXd delta = (acts[L] - target) / static_cast<double>(m);
      for (size_t l = L; l-- > 0;) {
        grads[l] = acts[l].transpose() * delta + (p.l2 / static_cast<double>(m)) * W_[l];
        grads[L + l] = delta.colwise().sum();
        if (l > 0) {
          delta = (delta * W_[l].transpose())
                      .cwiseProduct((acts[l].array() > 0).cast<double>().matrix());
        }
      }
      adam.step(params, grads);
    }
  }
  for (size_t l = 0; l < L; ++l) b_[l] = b_mats[l].row(0);
}

Eigen::MatrixXd Mlp::forward(const Eigen::MatrixXd& X) const {
  if (W_.empty()) throw Error("mlp: predict before fit");
  if (X.cols() != W_[0].rows()) throw Error("mlp: wrong number of features in predict");
  Eigen::MatrixXd a = X;
  for (size_t l = 0; l < W_.size(); ++l) {
    Eigen::MatrixXd z = (a * W_[l]).rowwise() + b_[l];
    a = l + 1 < W_.size() ? Eigen::MatrixXd(z.cwiseMax(0.0)) : softmax_rows(std::move(z));
  }
  return a;
}

Eigen::VectorXd Mlp::predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return forward(Eigen::MatrixXd(x)).row(0).transpose();
}

int Mlp::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return first_argmax(predict_proba(x));
}

double Mlp::loss(const Eigen::MatrixXd& X, const std::vector<int>& y) const {
  const Eigen::MatrixXd prob = forward(X);
  double total = 0;
  for (Eigen::Index r = 0; r < X.rows(); ++r) total -= std::log(std::max(prob(r, y[r]), 1e-300));
  return X.rows() > 0 ? total / static_cast<double>(X.rows()) : 0.0;
}

nlohmann::json Mlp::to_json() const {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t l = 0; l < W_.size(); ++l) {
    layers.push_back({{"W", ml::to_json(W_[l])}, {"b", ml::to_json(Eigen::MatrixXd(b_[l]))}});
  }
  return {{"layers", std::move(layers)}};
}

Mlp Mlp::from_json(const nlohmann::json& j) {
  Mlp m;
  if (!j.contains("layers") || !j.at("layers").is_array() || j.at("layers").empty()) {
    throw Error("mlp: malformed JSON model (needs layers)");
  }
  for (const auto& layer : j.at("layers")) {
    Eigen::MatrixXd w = matrix_from_json(layer.at("W"));
    Eigen::MatrixXd b = matrix_from_json(layer.at("b"));
    const bool chained = m.W_.empty() || m.W_.back().cols() == w.rows();
    if (b.rows() != 1 || b.cols() != w.cols() || !chained) {
      throw Error("mlp: malformed JSON model (layer shapes disagree)");
    }
    m.W_.push_back(std::move(w));
    m.b_.push_back(b.row(0));
  }
  return m;
}

}  // namespace ktune::ml
