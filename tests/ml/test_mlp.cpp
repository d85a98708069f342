// MLP: training lowers the loss and learns a non-linear rule, seeded determinism, JSON, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "ktune/error.hpp"
#include "ktune/ml/mlp.hpp"
#include "ktune/ml/scaler.hpp"
#include "models_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;
using namespace ktune::test;

TEST(Mlp, LearnsANonLinearRule) {
  Eigen::MatrixXd X = random_matrix(400, 2, 1), T = random_matrix(300, 2, 2);
  auto label = [](const Eigen::RowVectorXd& x) {
    return (x[0] - 5) * (x[0] - 5) + (x[1] - 5) * (x[1] - 5) < 9 ? 1 : 0;
  };
  std::vector<int> y, yt;
  for (Eigen::Index i = 0; i < X.rows(); ++i) y.push_back(label(X.row(i)));
  for (Eigen::Index i = 0; i < T.rows(); ++i) yt.push_back(label(T.row(i)));
  StandardScaler s;
  s.fit(X);
  X = s.transform(X);
  T = s.transform(T);
  MlpParams p;
  p.epochs = 1;
  Mlp barely;
  barely.fit(X, y, 2, p);
  p.epochs = 200;
  Mlp trained;
  trained.fit(X, y, 2, p);
  EXPECT_LT(trained.loss(X, y), barely.loss(X, y));
  EXPECT_GT(accuracy(trained, T, yt), 0.93);
  EXPECT_NEAR(trained.predict_proba(T.row(0)).sum(), 1.0, 1e-12);
  Mlp again;
  again.fit(X, y, 2, p);
  EXPECT_EQ(again.to_json(), trained.to_json());  // same seed, same weights
  const Mlp back = Mlp::from_json(nlohmann::json::parse(trained.to_json().dump()));
  for (Eigen::Index i = 0; i < 20; ++i) {
    EXPECT_NEAR(back.predict_proba(T.row(i))[1], trained.predict_proba(T.row(i))[1], 1e-12);
  }
}

TEST(Mlp, Errors) {
  Mlp m;
  EXPECT_THROW(m.predict_class(Eigen::RowVectorXd::Zero(2)), Error);
  EXPECT_THROW(m.fit(Eigen::MatrixXd(0, 2), {}, 2), Error);
  EXPECT_THROW(m.fit(random_matrix(5, 2, 1), {0, 1, 2, 0, 1}, 2), Error);
  MlpParams p;
  p.hidden = {0};
  EXPECT_THROW(m.fit(random_matrix(5, 2, 1), {0, 1, 1, 0, 1}, 2, p), Error);
  EXPECT_THROW(Mlp::from_json(nlohmann::json::parse("{\"layers\": []}")), Error);
}
