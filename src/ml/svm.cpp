// Linear and RBF SVMs (see svm.hpp). Both solvers follow the published reference algorithms
// (LIBLINEAR's dual coordinate descent, libsvm's SMO without shrinking) so their behaviour is
// easy to check against those papers.
#include "ktune/ml/svm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "ktune/error.hpp"
#include "ktune/ml/scaler.hpp"

namespace ktune::ml {
namespace {

constexpr double kSvmInf = std::numeric_limits<double>::infinity();
constexpr double kTau = 1e-12;  // libsvm's TAU for non-positive curvature

std::vector<bool> check_and_present(const Eigen::MatrixXd& X, const std::vector<int>& y,
                                    int n_classes, const SvmParams& p, const char* who) {
  if (X.rows() == 0) throw Error(std::string(who) + ": cannot fit on an empty training set");
  if (static_cast<Eigen::Index>(y.size()) != X.rows()) {
    throw Error(std::string(who) + ": features and labels disagree on the number of samples");
  }
  if (!X.allFinite()) throw Error(std::string(who) + ": features contain NaN or infinite values");
  if (!(p.C > 0)) throw Error(std::string(who) + ": C must be > 0");
  std::vector<bool> present(n_classes, false);
  for (int label : y) {
    if (label < 0 || label >= n_classes) throw Error(std::string(who) + ": label out of range");
    present[label] = true;
  }
  return present;
}

// Decision values with the classes absent from training at -infinity, so none is ever picked.
Eigen::VectorXd with_absent_classes_last(Eigen::VectorXd d, const std::vector<bool>& present) {
  for (Eigen::Index c = 0; c < d.size(); ++c) {
    if (!present[c]) d[c] = -kSvmInf;
  }
  return d;
}

int argmax_present(const Eigen::VectorXd& d, const std::vector<bool>& present) {
  int best = -1;
  for (int c = 0; c < static_cast<int>(d.size()); ++c) {
    if (present[c] && (best < 0 || d[c] > d[best])) best = c;
  }
  return std::max(best, 0);
}

// SMO for  min 0.5 a'Qa - e'a,  0 <= a <= C,  y'a = 0,  Q_ij = y_i y_j K_ij.
// Returns alpha and sets rho; decision(x) = sum a_i y_i K(x_i, x) - rho.
Eigen::VectorXd smo(const Eigen::MatrixXd& K, const Eigen::VectorXd& y, double C, double eps,
                    int max_iter, double& rho) {
  const Eigen::Index n = K.rows();
  Eigen::VectorXd a = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd G = Eigen::VectorXd::Constant(n, -1.0);
  const Eigen::VectorXd QD = K.diagonal();
  auto Q = [&](Eigen::Index i, Eigen::Index j) { return y[i] * y[j] * K(i, j); };
  for (int iter = 0; iter < max_iter; ++iter) {
    // Working set: i maximal violating in I_up, j by the second-order gain.
    double gmax = -kSvmInf, gmax2 = -kSvmInf, obj_min = kSvmInf;
    Eigen::Index i = -1, j = -1;
    for (Eigen::Index t = 0; t < n; ++t) {
      if (y[t] > 0 ? a[t] < C : a[t] > 0) {
        const double v = -y[t] * G[t];
        if (v >= gmax) {
          gmax = v;
          i = t;
        }
      }
    }
    if (i < 0) break;
    for (Eigen::Index t = 0; t < n; ++t) {
      if (!(y[t] > 0 ? a[t] > 0 : a[t] < C)) continue;
      const double v = y[t] * G[t];  // = -(-y_t G_t)
      gmax2 = std::max(gmax2, v);
      const double grad_diff = gmax + v;
      if (grad_diff > 0) {
        double quad = QD[i] + QD[t] - 2.0 * K(i, t);
        if (quad <= 0) quad = kTau;
        const double obj = -(grad_diff * grad_diff) / quad;
        if (obj <= obj_min) {
          obj_min = obj;
          j = t;
        }
      }
    }
    if (gmax + gmax2 < eps || j < 0) break;

    const double old_ai = a[i], old_aj = a[j];
    if (y[i] != y[j]) {
      double quad = QD[i] + QD[j] + 2 * Q(i, j);
      if (quad <= 0) quad = kTau;
      const double delta = (-G[i] - G[j]) / quad;
      const double diff = a[i] - a[j];
      a[i] += delta;
      a[j] += delta;
      if (diff > 0) {
        if (a[j] < 0) {
          a[j] = 0;
          a[i] = diff;
        }
      } else if (a[i] < 0) {
        a[i] = 0;
        a[j] = -diff;
      }
      if (diff > 0) {
        if (a[i] > C) {
          a[i] = C;
          a[j] = C - diff;
        }
      } else if (a[j] > C) {
        a[j] = C;
        a[i] = C + diff;
      }
    } else {
      double quad = QD[i] + QD[j] - 2 * Q(i, j);
      if (quad <= 0) quad = kTau;
      const double delta = (G[i] - G[j]) / quad;
      const double sum = a[i] + a[j];
      a[i] -= delta;
      a[j] += delta;
      if (sum > C) {
        if (a[i] > C) {
          a[i] = C;
          a[j] = sum - C;
        }
      } else if (a[j] < 0) {
        a[j] = 0;
        a[i] = sum;
      }
      if (sum > C) {
        if (a[j] > C) {
          a[j] = C;
          a[i] = sum - C;
        }
      } else if (a[i] < 0) {
        a[i] = 0;
        a[j] = sum;
      }
    }
    const double dai = a[i] - old_ai, daj = a[j] - old_aj;
    for (Eigen::Index t = 0; t < n; ++t) G[t] += Q(i, t) * dai + Q(j, t) * daj;
  }
  // Bias: mean over free vectors, else the middle of the feasible interval (libsvm).
  double ub = kSvmInf, lb = -kSvmInf, sum_free = 0;
  int n_free = 0;
  for (Eigen::Index t = 0; t < n; ++t) {
    const double yg = y[t] * G[t];
    if (a[t] >= C) {
      if (y[t] < 0)
        ub = std::min(ub, yg);
      else
        lb = std::max(lb, yg);
    } else if (a[t] <= 0) {
      if (y[t] > 0)
        ub = std::min(ub, yg);
      else
        lb = std::max(lb, yg);
    } else {
      ++n_free;
      sum_free += yg;
    }
  }
  rho = n_free > 0 ? sum_free / n_free : (ub + lb) / 2;
  return a;
}

std::vector<bool> present_from_json(const nlohmann::json& j, Eigen::Index n_classes) {
  const auto present = j.at("present").get<std::vector<bool>>();
  if (static_cast<Eigen::Index>(present.size()) != n_classes) {
    throw Error("svm: JSON model is inconsistent (class counts disagree)");
  }
  return present;
}

}  // namespace

void LinearSvm::fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
                    const SvmParams& p) {
  present_ = check_and_present(X, y, n_classes, p, "svm-linear");
  const Eigen::Index n = X.rows();
  W_ = Eigen::MatrixXd::Zero(n_classes, X.cols());
  b_ = Eigen::VectorXd::Zero(n_classes);
  const Eigen::VectorXd qd = (X.rowwise().squaredNorm().array() + 1.0).matrix();
  const double eps = 0.1;  // LIBLINEAR's default for this solver
  const int passes = std::min(p.max_iter, 1000);
  std::mt19937_64 rng(p.seed);
  for (int c = 0; c < n_classes; ++c) {
    if (!present_[c]) continue;
    Eigen::VectorXd w = Eigen::VectorXd::Zero(X.cols());
    double b = 0;
    Eigen::VectorXd alpha = Eigen::VectorXd::Zero(n);
    std::vector<Eigen::Index> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (int pass = 0; pass < passes; ++pass) {
      std::shuffle(order.begin(), order.end(), rng);
      double pg_max = -kSvmInf, pg_min = kSvmInf;
      for (Eigen::Index i : order) {
        const double yi = y[i] == c ? 1.0 : -1.0;
        const double g = yi * (X.row(i).dot(w) + b) - 1.0;
        double pg = g;
        if (alpha[i] <= 0)
          pg = std::min(g, 0.0);
        else if (alpha[i] >= p.C)
          pg = std::max(g, 0.0);
        pg_max = std::max(pg_max, pg);
        pg_min = std::min(pg_min, pg);
        if (std::abs(pg) > 1e-12) {
          const double old = alpha[i];
          alpha[i] = std::min(std::max(old - g / qd[i], 0.0), p.C);
          const double d = (alpha[i] - old) * yi;
          w += d * X.row(i).transpose();
          b += d;
        }
      }
      if (pg_max - pg_min <= eps) break;
    }
    W_.row(c) = w.transpose();
    b_[c] = b;
  }
}

Eigen::VectorXd LinearSvm::decision(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (present_.empty()) throw Error("svm-linear: predict before fit");
  if (x.size() != W_.cols()) throw Error("svm-linear: wrong number of features in predict");
  return with_absent_classes_last(W_ * x.transpose() + b_, present_);
}

int LinearSvm::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return argmax_present(decision(x), present_);
}

nlohmann::json LinearSvm::to_json() const {
  return {{"W", ml::to_json(W_)}, {"b", ml::to_json(Eigen::MatrixXd(b_))}, {"present", present_}};
}

LinearSvm LinearSvm::from_json(const nlohmann::json& j) {
  LinearSvm m;
  m.W_ = matrix_from_json(j.at("W"));
  const Eigen::MatrixXd b = matrix_from_json(j.at("b"));
  if (b.rows() != m.W_.rows() || b.cols() != 1) throw Error("svm-linear: malformed JSON model");
  m.b_ = b.col(0);
  m.present_ = present_from_json(j, m.W_.rows());
  return m;
}

void RbfSvm::fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
                 const SvmParams& p) {
  present_ = check_and_present(X, y, n_classes, p, "svm-rbf");
  const Eigen::Index n = X.rows();
  gamma_ = p.gamma;
  if (gamma_ <= 0) {
    const double var = (X.array() - X.mean()).square().mean();
    gamma_ = var > 0 && X.cols() > 0 ? 1.0 / (static_cast<double>(X.cols()) * var) : 1.0;
  }
  const Eigen::VectorXd sq = X.rowwise().squaredNorm();
  Eigen::MatrixXd K = X * X.transpose();
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      K(i, j) = std::exp(-gamma_ * std::max(0.0, sq[i] + sq[j] - 2 * K(i, j)));
    }
  }
  const int n_present = static_cast<int>(std::count(present_.begin(), present_.end(), true));
  Eigen::MatrixXd coef = Eigen::MatrixXd::Zero(n_classes, n);
  rho_ = Eigen::VectorXd::Zero(n_classes);
  if (n_present > 1) {
    for (int c = 0; c < n_classes; ++c) {
      if (!present_[c]) continue;
      Eigen::VectorXd yc(n);
      for (Eigen::Index i = 0; i < n; ++i) yc[i] = y[i] == c ? 1.0 : -1.0;
      double rho = 0;
      const Eigen::VectorXd a = smo(K, yc, p.C, p.tol, p.max_iter, rho);
      coef.row(c) = a.cwiseProduct(yc).transpose();
      rho_[c] = rho;
    }
  }
  // Keep only the support vectors (non-zero in some binary problem).
  std::vector<Eigen::Index> sv;
  for (Eigen::Index i = 0; i < n; ++i) {
    if ((coef.col(i).array() != 0).any()) sv.push_back(i);
  }
  sv_.resize(static_cast<Eigen::Index>(sv.size()), X.cols());
  coef_.resize(n_classes, static_cast<Eigen::Index>(sv.size()));
  for (size_t s = 0; s < sv.size(); ++s) {
    sv_.row(static_cast<Eigen::Index>(s)) = X.row(sv[s]);
    coef_.col(static_cast<Eigen::Index>(s)) = coef.col(sv[s]);
  }
}

Eigen::VectorXd RbfSvm::decision(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (present_.empty()) throw Error("svm-rbf: predict before fit");
  if (sv_.rows() > 0 && x.size() != sv_.cols()) {
    throw Error("svm-rbf: wrong number of features in predict");
  }
  Eigen::VectorXd k(sv_.rows());
  for (Eigen::Index s = 0; s < sv_.rows(); ++s) {
    k[s] = std::exp(-gamma_ * (sv_.row(s) - x).squaredNorm());
  }
  return with_absent_classes_last(coef_ * k - rho_, present_);
}

int RbfSvm::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return argmax_present(decision(x), present_);
}

nlohmann::json RbfSvm::to_json() const {
  return {{"gamma", gamma_},
          {"sv", ml::to_json(sv_)},
          {"coef", ml::to_json(coef_)},
          {"rho", ml::to_json(Eigen::MatrixXd(rho_))},
          {"present", present_}};
}

RbfSvm RbfSvm::from_json(const nlohmann::json& j) {
  RbfSvm m;
  try {
    m.gamma_ = j.at("gamma").get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("svm-rbf: malformed JSON model: ") + e.what());
  }
  m.sv_ = matrix_from_json(j.at("sv"));
  m.coef_ = matrix_from_json(j.at("coef"));
  const Eigen::MatrixXd rho = matrix_from_json(j.at("rho"));
  if (m.coef_.cols() != m.sv_.rows() || rho.rows() != m.coef_.rows() || rho.cols() != 1) {
    throw Error("svm-rbf: malformed JSON model (support vectors and coefficients disagree)");
  }
  m.rho_ = rho.col(0);
  m.present_ = present_from_json(j, m.coef_.rows());
  return m;
}

}  // namespace ktune::ml
