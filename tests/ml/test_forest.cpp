// Random forests: seeded determinism, better generalization than one deep tree on noisy labels,
// regression accuracy, JSON round trip, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "ktune/error.hpp"
#include "ktune/ml/forest.hpp"
#include "models_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;
using namespace ktune::test;

TEST(Forest, SameSeedSameForestOtherSeedOtherForest) {
  const Eigen::MatrixXd X = random_matrix(150, 4, 1);
  const std::vector<int> y = rule_labels(X, 3, 2);
  ForestParams p;
  p.n_trees = 10;
  p.seed = 7;
  RandomForest a, b, c;
  a.fit_classifier(X, y, 3, p);
  b.fit_classifier(X, y, 3, p);
  p.seed = 8;
  c.fit_classifier(X, y, 3, p);
  EXPECT_EQ(a.to_json(), b.to_json());
  EXPECT_NE(a.to_json(), c.to_json());
  EXPECT_EQ(a.trees().size(), 10u);
}

TEST(Forest, ClassifierGeneralizesAtLeastAsWellAsOneTree) {
  const Eigen::MatrixXd X = random_matrix(400, 4, 3), T = random_matrix(400, 4, 4);
  const std::vector<int> y = rule_labels(X, 3, 5), yt = rule_labels(T, 3, 6);
  RandomForest f;
  ForestParams p;
  p.seed = 1;
  f.fit_classifier(X, y, 3, p);
  DecisionTree t;
  t.fit_classifier(X, y, 3, {});
  const double forest_acc = accuracy(f, T, yt), tree_acc = accuracy(t, T, yt);
  EXPECT_GE(forest_acc, tree_acc - 0.02);
  EXPECT_GT(forest_acc, 0.4);  // three striped classes: chance is ~0.33
  const Eigen::VectorXd proba = f.predict_proba(T.row(0));
  EXPECT_NEAR(proba.sum(), 1.0, 1e-12);
}

TEST(Forest, RegressorFitsASmoothFunction) {
  const Eigen::MatrixXd X = random_matrix(500, 2, 7), T = random_matrix(200, 2, 8);
  auto f = [](const Eigen::RowVectorXd& x) { return std::sin(x[0]) + 0.1 * x[1]; };
  Eigen::MatrixXd Y(X.rows(), 1);
  for (Eigen::Index i = 0; i < X.rows(); ++i) Y(i, 0) = f(X.row(i));
  ForestParams p;
  p.tree.max_features = -1;
  RandomForest forest;
  forest.fit_regressor(X, Y, p);
  double se = 0, var = 0;
  for (Eigen::Index i = 0; i < T.rows(); ++i) {
    se += std::pow(forest.predict_values(T.row(i))[0] - f(T.row(i)), 2);
    var += std::pow(f(T.row(i)), 2);
  }
  EXPECT_LT(se / var, 0.05);  // explains > 95% of the signal
  const RandomForest back = RandomForest::from_json(nlohmann::json::parse(forest.to_json().dump()));
  EXPECT_DOUBLE_EQ(back.predict_values(T.row(3))[0], forest.predict_values(T.row(3))[0]);
  EXPECT_FALSE(back.is_classifier());
}

TEST(Forest, Errors) {
  RandomForest f;
  EXPECT_THROW(f.predict_values(Eigen::RowVectorXd::Zero(2)), Error);
  ForestParams p;
  p.n_trees = 0;
  EXPECT_THROW(f.fit_classifier(random_matrix(10, 2, 1), std::vector<int>(10, 0), 1, p), Error);
  EXPECT_THROW(f.fit_classifier(Eigen::MatrixXd(0, 2), {}, 1, ForestParams{}), Error);
  EXPECT_THROW(RandomForest::from_json(nlohmann::json::parse("{}")), Error);
}
