// StandardScaler (see scaler.hpp) and the JSON form of Eigen matrices used by every model.
#include "ktune/ml/scaler.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "ktune/error.hpp"
#include "src/ml/json_fields.hpp"

namespace ktune::ml {

void StandardScaler::fit(const Eigen::MatrixXd& X) {
  if (X.rows() == 0) throw Error("scaler: cannot fit on an empty matrix");
  if (!X.allFinite()) throw Error("scaler: features contain NaN or infinite values");
  mean_ = X.colwise().mean();
  scale_.resize(X.cols());
  for (Eigen::Index c = 0; c < X.cols(); ++c) {
    const double var = (X.col(c).array() - mean_[c]).square().mean();
    // sklearn's _is_constant_feature: a column whose variance is within rounding of zero is
    // left unscaled instead of divided by ~0.
    const double eps = std::numeric_limits<double>::epsilon();
    const double n = static_cast<double>(X.rows());
    const double bound = n * eps * var + std::pow(n * mean_[c] * eps, 2.0);
    scale_[c] = var <= bound ? 1.0 : std::sqrt(var);
  }
  fitted_empty_ = X.cols() == 0;
}

Eigen::MatrixXd StandardScaler::transform(const Eigen::MatrixXd& X) const {
  if (X.cols() != mean_.size()) throw Error("scaler: wrong number of features");
  return (X.rowwise() - mean_).array().rowwise() / scale_.array();
}

Eigen::RowVectorXd StandardScaler::transform_row(
    const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (x.size() != mean_.size()) throw Error("scaler: wrong number of features");
  return (x - mean_).array() / scale_.array();
}

nlohmann::json StandardScaler::to_json() const {
  return {{"mean", ml::to_json(Eigen::MatrixXd(mean_))},
          {"scale", ml::to_json(Eigen::MatrixXd(scale_))}};
}

StandardScaler StandardScaler::from_json(const nlohmann::json& j) {
  StandardScaler s;
  const Eigen::MatrixXd mean = matrix_from_json(j.at("mean"));
  const Eigen::MatrixXd scale = matrix_from_json(j.at("scale"));
  if (mean.rows() > 1 || scale.rows() > 1 || mean.size() != scale.size()) {
    throw Error("scaler: malformed JSON (mean and scale must be rows of equal size)");
  }
  s.mean_ = Eigen::Map<const Eigen::RowVectorXd>(mean.data(), mean.size());
  s.scale_ = Eigen::Map<const Eigen::RowVectorXd>(scale.data(), scale.size());
  s.fitted_empty_ = mean.size() == 0;
  return s;
}

nlohmann::json to_json(const Eigen::MatrixXd& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    std::vector<double> row(m.cols());
    for (Eigen::Index c = 0; c < m.cols(); ++c) row[c] = m(r, c);
    rows.push_back(row);
  }
  return {{"rows", m.rows()}, {"cols", m.cols()}, {"data", std::move(rows)}};
}

Eigen::MatrixXd matrix_from_json(const nlohmann::json& j) {
  namespace jf = json_fields;
  constexpr int64_t kMaxSide = std::numeric_limits<int>::max();
  const auto rows = static_cast<Eigen::Index>(jf::integer(j, "rows", "matrix", 0, kMaxSide));
  const auto cols = static_cast<Eigen::Index>(jf::integer(j, "cols", "matrix", 0, kMaxSide));
  const auto& data = jf::array(j, "data", "matrix");
  if (static_cast<Eigen::Index>(data.size()) != rows)
    throw Error(fmt::format("field 'matrix.data': {} rows, 'rows' says {}", data.size(), rows));
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const auto& row = data[static_cast<size_t>(r)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != cols)
      throw Error(fmt::format("field 'matrix.data[{}]': expected {} numbers", r, cols));
    for (Eigen::Index c = 0; c < cols; ++c)
      m(r, c) = jf::number(row[static_cast<size_t>(c)], fmt::format("matrix.data[{}][{}]", r, c));
  }
  return m;
}

}  // namespace ktune::ml
