// CART: scikit-learn parity (identical predictions for the same hyperparameters), the leaf
// rules, JSON round trips and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ktune/error.hpp"
#include "ktune/ml/cart.hpp"
#include "models_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;
using namespace ktune::test;

namespace {

struct ParityCase {
  TreeParams params;
  std::vector<std::string> args;
};

std::vector<ParityCase> parity_cases() {
  return {
      {TreeParams{}, {}},
      {TreeParams{.max_depth = 6, .min_samples_split = 4, .min_samples_leaf = 3},
       {"--max-depth", "6", "--min-split", "4", "--min-leaf", "3"}},
      {TreeParams{.max_depth = 3, .min_samples_split = 5, .min_samples_leaf = 4},
       {"--max-depth", "3", "--min-split", "5", "--min-leaf", "4"}},
      {TreeParams{.max_leaf_nodes = 9}, {"--max-leaf-nodes", "9"}},
      {TreeParams{.max_depth = 5, .min_samples_leaf = 2, .max_leaf_nodes = 12},
       {"--max-depth", "5", "--min-leaf", "2", "--max-leaf-nodes", "12"}},
  };
}

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace

TEST(Cart, ClassifierMatchesSklearn) {
  if (!have_sklearn()) GTEST_SKIP() << "/usr/bin/python3 has no scikit-learn";
  const Eigen::MatrixXd X = random_matrix(240, 4, 11), T = random_matrix(150, 4, 12);
  const std::vector<int> y = rule_labels(X, 4, 13);
  for (const auto& c : parity_cases()) {
    TempDir dir("ktune-cart");
    write_sklearn_inputs(dir, X, labels_matrix(y), T);
    ASSERT_EQ(run_python("sklearn_models.py",
                         with({"tree", dir.path().string(), "--task", "classifier"}, c.args)),
              0);
    const Eigen::MatrixXd expected = read_matrix_csv(dir.file("pred.txt"));
    DecisionTree tree;
    tree.fit_classifier(X, y, 4, c.params);
    ASSERT_EQ(expected.rows(), T.rows());
    for (Eigen::Index i = 0; i < T.rows(); ++i) {
      EXPECT_EQ(tree.predict_class(T.row(i)), static_cast<int>(expected(i, 0))) << "row " << i;
    }
    EXPECT_EQ(tree.n_leaves(), static_cast<int>(read_matrix_csv(dir.file("n_leaves.txt"))(0, 0)));
    if (c.params.max_depth > 0) {
      EXPECT_LE(tree.depth(), c.params.max_depth);
    }
    if (c.params.max_leaf_nodes > 0) {
      EXPECT_LE(tree.n_leaves(), c.params.max_leaf_nodes);
    }
  }
}

TEST(Cart, MultiOutputRegressorMatchesSklearn) {
  if (!have_sklearn()) GTEST_SKIP() << "/usr/bin/python3 has no scikit-learn";
  const Eigen::MatrixXd X = random_matrix(200, 3, 21), T = random_matrix(120, 3, 22);
  Eigen::MatrixXd Y(X.rows(), 2);
  const Eigen::MatrixXd noise = random_matrix(X.rows(), 2, 23);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    Y(i, 0) = std::sin(X(i, 0)) * X(i, 1) + 0.05 * noise(i, 0);
    Y(i, 1) = X(i, 2) * X(i, 2) - X(i, 0) + 0.05 * noise(i, 1);
  }
  // Unlimited depth is left out on purpose: in leaves of 2-3 samples two features often give the
  // same partition, and rounding (sklearn sums in float32-sorted sample order) breaks that exact
  // tie differently; see cart.hpp. Leaf-limited trees are compared bit for bit.
  auto cases = parity_cases();
  cases[0] = {TreeParams{.min_samples_leaf = 5}, {"--min-leaf", "5"}};
  for (const auto& c : cases) {
    TempDir dir("ktune-cart");
    write_sklearn_inputs(dir, X, Y, T);
    ASSERT_EQ(run_python("sklearn_models.py",
                         with({"tree", dir.path().string(), "--task", "regressor"}, c.args)),
              0);
    const Eigen::MatrixXd expected = read_matrix_csv(dir.file("pred.txt"));
    DecisionTree tree;
    tree.fit_regressor(X, Y, c.params);
    ASSERT_EQ(expected.rows(), T.rows());
    ASSERT_EQ(expected.cols(), 2);
    for (Eigen::Index i = 0; i < T.rows(); ++i) {
      const Eigen::VectorXd v = tree.predict_values(T.row(i));
      for (int o = 0; o < 2; ++o) {
        EXPECT_NEAR(v[o], expected(i, o), 1e-9 * (1 + std::abs(expected(i, o)))) << "row " << i;
      }
    }
    EXPECT_EQ(tree.n_leaves(), static_cast<int>(read_matrix_csv(dir.file("n_leaves.txt"))(0, 0)));
  }
}

TEST(Cart, SplitsAtMidpointsAndStopsOnPureNodes) {
  Eigen::MatrixXd X(6, 1);
  X << 1, 2, 3, 10, 11, 12;
  DecisionTree tree;
  tree.fit_classifier(X, {0, 0, 0, 1, 1, 1}, 2, {});
  ASSERT_EQ(tree.nodes().size(), 3u);
  EXPECT_EQ(tree.nodes()[0].feature, 0);
  EXPECT_DOUBLE_EQ(tree.nodes()[0].threshold, 6.5);
  EXPECT_EQ(tree.n_leaves(), 2);
  Eigen::RowVectorXd x(1);
  x << 6.5;  // x <= threshold goes left
  EXPECT_EQ(tree.predict_class(x), 0);
  x << 6.6;
  EXPECT_EQ(tree.predict_class(x), 1);
  EXPECT_EQ(tree.leaf_index(x), tree.nodes()[0].right);
}

TEST(Cart, LeafRulesAreHonoured) {
  const Eigen::MatrixXd X = random_matrix(300, 3, 5);
  const std::vector<int> y = rule_labels(X, 3, 6);
  DecisionTree tree;
  tree.fit_classifier(X, y, 3, {.max_depth = 4, .min_samples_leaf = 7});
  EXPECT_LE(tree.depth(), 4);
  // Every leaf holds at least 7 training samples.
  std::vector<int> per_leaf(tree.nodes().size(), 0);
  for (Eigen::Index i = 0; i < X.rows(); ++i) ++per_leaf[tree.leaf_index(X.row(i))];
  for (size_t id = 0; id < tree.nodes().size(); ++id) {
    if (tree.nodes()[id].feature < 0) {
      EXPECT_GE(per_leaf[id], 7) << "leaf " << id;
    }
  }
  // An unlimited tree separates the (noise-free on distinct points) training set perfectly.
  DecisionTree full;
  full.fit_classifier(X, y, 3, {});
  EXPECT_DOUBLE_EQ(accuracy(full, X, y), 1.0);
}

TEST(Cart, WeightsActLikeRepeatedSamples) {
  const Eigen::MatrixXd X = random_matrix(40, 2, 8);
  const std::vector<int> y = rule_labels(X, 2, 9);
  std::vector<double> w(40, 1.0);
  w[3] = 3;
  w[7] = 0;  // left out
  Eigen::MatrixXd Xr(41, 2);
  std::vector<int> yr;
  Eigen::Index r = 0;
  for (Eigen::Index i = 0; i < 40; ++i) {
    const int copies = static_cast<int>(w[i]);
    for (int c = 0; c < copies; ++c, ++r) {
      Xr.row(r) = X.row(i);
      yr.push_back(y[i]);
    }
  }
  ASSERT_EQ(r, 41);
  DecisionTree a, b;
  // Leaf sizes count distinct samples, so only compare with the default min_samples rules.
  a.fit_classifier(X, y, 2, {}, w);
  b.fit_classifier(Xr, yr, 2, {});
  const Eigen::MatrixXd T = random_matrix(100, 2, 10);
  for (Eigen::Index i = 0; i < T.rows(); ++i) {
    EXPECT_EQ(a.predict_class(T.row(i)), b.predict_class(T.row(i)));
  }
}

TEST(Cart, JsonRoundTripPredictsTheSame) {
  const Eigen::MatrixXd X = random_matrix(120, 3, 31);
  Eigen::MatrixXd Y = X.col(0).array().sin().matrix();
  DecisionTree tree;
  tree.fit_regressor(X, Y, {.max_depth = 5});
  const DecisionTree back = DecisionTree::from_json(nlohmann::json::parse(tree.to_json().dump()));
  EXPECT_EQ(back.nodes().size(), tree.nodes().size());
  EXPECT_FALSE(back.is_classifier());
  const Eigen::MatrixXd T = random_matrix(50, 3, 32);
  for (Eigen::Index i = 0; i < T.rows(); ++i) {
    EXPECT_DOUBLE_EQ(back.predict_values(T.row(i))[0], tree.predict_values(T.row(i))[0]);
  }
}

TEST(Cart, BadInputIsAnError) {
  DecisionTree tree;
  EXPECT_THROW(tree.fit_classifier(Eigen::MatrixXd(0, 2), {}, 2, {}), Error);
  Eigen::MatrixXd X = random_matrix(10, 2, 1);
  X(3, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(tree.fit_classifier(X, std::vector<int>(10, 0), 2, {}), Error);
  EXPECT_THROW(tree.fit_classifier(random_matrix(10, 2, 1), std::vector<int>(10, 5), 2, {}), Error);
  EXPECT_THROW(tree.fit_classifier(random_matrix(10, 2, 1), std::vector<int>(9, 0), 2, {}), Error);
  EXPECT_THROW(tree.predict_class(Eigen::RowVectorXd::Zero(2)), Error);  // before fit
  tree.fit_classifier(random_matrix(10, 2, 1), std::vector<int>(10, 1), 2, {});
  EXPECT_EQ(tree.n_leaves(), 1);  // pure root
  EXPECT_THROW(tree.predict_class(Eigen::RowVectorXd::Zero(3)), Error);
  EXPECT_THROW(DecisionTree::from_json(nlohmann::json::parse(R"({"kind":"classifier"})")), Error);
  // A child pointing back to its parent would loop forever: refused.
  auto j = tree.to_json();
  j["nodes"][0]["feature"] = 0;
  j["nodes"][0]["left"] = 0;
  j["nodes"][0]["right"] = 0;
  EXPECT_THROW(DecisionTree::from_json(j), Error);
}
