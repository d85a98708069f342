#include <gtest/gtest.h>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/error.hpp"
#include "ktune/problem.hpp"

namespace ktune {
namespace {

TEST(Problem, KeyRoundTrips) {
  kernels::gemm::GemmFamily family;
  Problem p = family.make_problem({0, 1, 64, 50176, 27, 1});
  EXPECT_EQ(p.key(), "transa=0;transb=1;m=64;n=50176;k=27;batch=1");
  Problem q = Problem::parse(p.key());
  EXPECT_EQ(q.names, p.names);
  EXPECT_EQ(q.values, p.values);
  EXPECT_EQ(q.get("n"), 50176);
}

TEST(Problem, ParseRejectsMalformedKeys) {
  EXPECT_THROW(Problem::parse(""), Error);
  EXPECT_THROW(Problem::parse("m"), Error);
  EXPECT_THROW(Problem::parse("m=abc"), Error);
  EXPECT_THROW(Problem::parse("m=nan"), Error);
}

TEST(Problem, GemmRejectsImpossibleSizes) {
  kernels::gemm::GemmFamily family;
  EXPECT_THROW(family.make_problem({0, 0, 0, 5, 5, 1}), Error);
  EXPECT_THROW(family.make_problem({0, 0, -3, 5, 5, 1}), Error);
  EXPECT_THROW(family.make_problem({2, 0, 3, 5, 5, 1}), Error);
  EXPECT_THROW(family.make_problem({0, 0, 3.5, 5, 5, 1}), Error);
  EXPECT_THROW(family.make_problem({0, 0, 100000, 100000, 5, 1}), Error);
  EXPECT_THROW(family.make_problem({0, 0, 3, 5}), Error);
}

TEST(Problem, GemmDerivedFeatures) {
  kernels::gemm::GemmFamily family;
  Problem p = family.make_problem({0, 0, 12, 10, 6, 2});
  auto names = family.derived_feature_names();
  auto values = family.derived_features(p);
  ASSERT_EQ(names.size(), values.size());
  auto at = [&](const std::string& n) {
    return values[size_t(std::find(names.begin(), names.end(), n) - names.begin())];
  };
  EXPECT_EQ(at("mn"), 120);
  EXPECT_EQ(at("bmn"), 240);
  EXPECT_EQ(at("kn"), 60);
  EXPECT_EQ(at("km"), 72);
  EXPECT_DOUBLE_EQ(at("m_over_k"), 2.0);
  EXPECT_DOUBLE_EQ(at("mn_over_k"), 20.0);
  EXPECT_EQ(at("m_mod8"), 4);
  EXPECT_EQ(at("n_mod4"), 2);
  EXPECT_EQ(at("k_mod4"), 2);
  // The features that scale: work, arithmetic intensity, output tiles and their fill.
  EXPECT_EQ(at("bmnk"), 1440);
  EXPECT_DOUBLE_EQ(at("intensity"), 720.0 / (72 + 60 + 120));
  EXPECT_EQ(at("tiles64"), 2);
  EXPECT_DOUBLE_EQ(at("fill64"), 120.0 / (64 * 64));
  const auto big = family.derived_features(family.make_problem({0, 0, 200, 129, 7, 3}));
  auto big_at = [&](const std::string& n) {
    return big[size_t(std::find(names.begin(), names.end(), n) - names.begin())];
  };
  EXPECT_EQ(big_at("tiles128"), 3 * 2 * 2);
  EXPECT_EQ(big_at("tiles64"), 3 * 4 * 3);
  EXPECT_DOUBLE_EQ(big_at("fill128"), 200.0 * 129 / (256 * 256));
}

}  // namespace
}  // namespace ktune
