// Multinomial logistic regression by L-BFGS (see logreg.hpp).
#include "ktune/ml/logreg.hpp"

#include <cmath>
#include <deque>
#include <limits>

#include "ktune/error.hpp"
#include "ktune/ml/scaler.hpp"
#include "src/ml/argmax.hpp"

namespace ktune::ml {
namespace {

// Objective and gradient over the present classes. theta = [W row-major (m × d), b (m)].
struct Problem {
  const Eigen::MatrixXd& X;
  const Eigen::MatrixXd& Y;  // n × m one-hot
  double C;

  double value_and_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& grad) const {
    const Eigen::Index m = Y.cols(), d = X.cols();
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        W(theta.data(), m, d);
    const Eigen::Map<const Eigen::VectorXd> b(theta.data() + m * d, m);
    Eigen::MatrixXd Z = X * W.transpose();
    Z.rowwise() += b.transpose();
    double loss = 0;
    for (Eigen::Index i = 0; i < Z.rows(); ++i) {
      const double top = Z.row(i).maxCoeff();
      Z.row(i).array() = (Z.row(i).array() - top).exp();
      const double sum = Z.row(i).sum();
      Z.row(i) /= sum;  // now probabilities
      Eigen::Index yi = 0;
      Y.row(i).maxCoeff(&yi);
      loss -= std::log(std::max(Z(i, yi), std::numeric_limits<double>::min()));
    }
    const Eigen::MatrixXd G = C * (Z - Y);  // n × m
    grad.resize(theta.size());
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> gW(
        grad.data(), m, d);
    gW = W + G.transpose() * X;
    Eigen::Map<Eigen::VectorXd>(grad.data() + m * d, m) = G.colwise().sum().transpose();
    return 0.5 * W.squaredNorm() + C * loss;
  }
};

}  // namespace

void LogisticRegression::fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
                             const LogRegParams& p) {
  if (X.rows() == 0) throw Error("logistic regression: no training rows");
  if (static_cast<Eigen::Index>(y.size()) != X.rows())
    throw Error("logistic regression: labels and rows disagree");
  if (!X.allFinite()) throw Error("logistic regression: features contain NaN or infinite values");
  if (n_classes < 1) throw Error("logistic regression: needs at least one class");
  present_.assign(static_cast<size_t>(n_classes), false);
  for (int c : y) {
    if (c < 0 || c >= n_classes) throw Error("logistic regression: label out of range");
    present_[static_cast<size_t>(c)] = true;
  }
  std::vector<int> classes;  // present classes, ascending
  std::vector<int> column(static_cast<size_t>(n_classes), -1);
  for (int c = 0; c < n_classes; ++c) {
    if (present_[static_cast<size_t>(c)]) {
      column[static_cast<size_t>(c)] = static_cast<int>(classes.size());
      classes.push_back(c);
    }
  }
  const auto m = static_cast<Eigen::Index>(classes.size());
  const Eigen::Index d = X.cols();
  W_ = Eigen::MatrixXd::Zero(n_classes, d);
  b_ = Eigen::VectorXd::Zero(n_classes);
  iterations_ = 0;
  converged_ = true;
  if (m == 1) return;  // one class: always that class (probability 1)

  Eigen::MatrixXd Y = Eigen::MatrixXd::Zero(X.rows(), m);
  for (Eigen::Index i = 0; i < X.rows(); ++i) Y(i, column[static_cast<size_t>(y[size_t(i)])]) = 1;
  const Problem prob{X, Y, p.C};

  // L-BFGS with a backtracking (Armijo) line search; the objective is smooth and convex.
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(m * (d + 1)), grad, next_grad;
  double f = prob.value_and_gradient(theta, grad);
  std::deque<Eigen::VectorXd> S, Yd;
  std::deque<double> rho;
  converged_ = false;
  for (iterations_ = 0; iterations_ < p.max_iter; ++iterations_) {
    if (grad.cwiseAbs().maxCoeff() <= p.tol) {
      converged_ = true;
      break;
    }
    // Two-loop recursion for the search direction.
    Eigen::VectorXd q = grad;
    std::vector<double> alpha(S.size());
    for (size_t k = S.size(); k-- > 0;) {
      alpha[k] = rho[k] * S[k].dot(q);
      q -= alpha[k] * Yd[k];
    }
    if (!S.empty()) {
      q *= S.back().dot(Yd.back()) / Yd.back().squaredNorm();
    } else {
      q /= std::max(1.0, grad.cwiseAbs().maxCoeff());
    }
    for (size_t k = 0; k < S.size(); ++k) {
      const double beta = rho[k] * Yd[k].dot(q);
      q += S[k] * (alpha[k] - beta);
    }
    Eigen::VectorXd dir = -q;
    double slope = grad.dot(dir);
    if (!(slope < 0)) {  // not a descent direction: restart from steepest descent
      S.clear();
      Yd.clear();
      rho.clear();
      dir = -grad / std::max(1.0, grad.cwiseAbs().maxCoeff());
      slope = grad.dot(dir);
    }
    double step = 1.0, next_f = 0;
    Eigen::VectorXd next;
    bool moved = false;
    for (int tries = 0; tries < 60; ++tries, step *= 0.5) {
      next = theta + step * dir;
      next_f = prob.value_and_gradient(next, next_grad);
      // Armijo; or, once f is flat to rounding (|f| × 1e-13), any step that lowers the gradient:
      // near the optimum the decrease is too small for f to measure it.
      const bool flat = next_f <= f + 1e-13 * std::max(1.0, std::abs(f)) &&
                        next_grad.cwiseAbs().maxCoeff() < grad.cwiseAbs().maxCoeff();
      if (next_f <= f + 1e-4 * step * slope || flat) {
        moved = true;
        break;
      }
    }
    if (!moved) break;  // no further decrease possible at double precision
    const Eigen::VectorXd s = next - theta, yk = next_grad - grad;
    const double sy = s.dot(yk);
    if (sy > 1e-12 * yk.squaredNorm()) {
      S.push_back(s);
      Yd.push_back(yk);
      rho.push_back(1.0 / sy);
      if (static_cast<int>(S.size()) > p.history) {
        S.pop_front();
        Yd.pop_front();
        rho.pop_front();
      }
    }
    theta = next;
    grad = next_grad;
    f = next_f;
  }
  for (Eigen::Index k = 0; k < m; ++k) {
    const int c = classes[static_cast<size_t>(k)];
    W_.row(c) = theta.segment(k * d, d).transpose();
    b_[c] = theta[m * d + k];
  }
}

Eigen::VectorXd LogisticRegression::predict_proba(
    const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (x.size() != W_.cols()) throw Error("logistic regression: wrong number of features");
  Eigen::VectorXd z = W_ * x.transpose() + b_;
  double top = -std::numeric_limits<double>::infinity();
  for (Eigen::Index c = 0; c < z.size(); ++c) {
    if (present_[static_cast<size_t>(c)]) top = std::max(top, z[c]);
  }
  Eigen::VectorXd p(z.size());
  for (Eigen::Index c = 0; c < z.size(); ++c) {
    p[c] = present_[static_cast<size_t>(c)] ? std::exp(z[c] - top) : 0.0;
  }
  return p / p.sum();
}

int LogisticRegression::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return first_argmax(predict_proba(x));
}

nlohmann::json LogisticRegression::to_json() const {
  return {{"coef", ml::to_json(W_)},
          {"intercept", ml::to_json(Eigen::MatrixXd(b_))},
          {"present", present_}};
}

LogisticRegression LogisticRegression::from_json(const nlohmann::json& j) {
  LogisticRegression m;
  m.W_ = matrix_from_json(j.at("coef"));
  const Eigen::MatrixXd b = matrix_from_json(j.at("intercept"));
  m.present_ = j.at("present").get<std::vector<bool>>();
  if (b.cols() != 1 || b.rows() != m.W_.rows() ||
      static_cast<Eigen::Index>(m.present_.size()) != m.W_.rows()) {
    throw Error("logistic regression JSON: coef, intercept and present disagree");
  }
  m.b_ = b.col(0);
  m.converged_ = true;
  return m;
}

}  // namespace ktune::ml
