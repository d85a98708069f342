#include <gtest/gtest.h>

#include <set>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/error.hpp"

namespace ktune {
namespace {

TEST(Space, GemmHasTheSeedPapers640Configs) {
  gemm::GemmFamily family;
  const auto configs = family.space().enumerate();
  ASSERT_EQ(configs.size(), 640u);
  std::set<std::string> names;
  for (const auto& c : configs) names.insert(family.space().to_string(c));
  EXPECT_EQ(names.size(), 640u);
}

TEST(Space, IdsAreStableMixedRadixIndices) {
  gemm::GemmFamily family;
  const Space& s = family.space();
  // r=2 (1), a=4 (2), c=8 (3), wg=16x16 (6): ((1*4 + 2)*4 + 3)*10 + 6 = 276.
  EXPECT_EQ(s.parse("r=2;a=4;c=8;wg=16x16").id, 276);
  EXPECT_EQ(s.to_string(s.at(276)), "r=2;a=4;c=8;wg=16x16");
  EXPECT_EQ(s.parse("wg=16x16;c=8;a=4;r=2").id, 276);  // any order
  EXPECT_EQ(s.parse("276").id, 276);                   // plain id
}

TEST(Space, RoundTripsEveryConfig) {
  gemm::GemmFamily family;
  const Space& s = family.space();
  for (const auto& c : s.enumerate()) EXPECT_EQ(s.parse(s.to_string(c)).id, c.id);
}

TEST(Space, RejectsBadConfigsNamingThem) {
  gemm::GemmFamily family;
  const Space& s = family.space();
  EXPECT_THROW(s.parse("r=3;a=4;c=8;wg=16x16"), Error);
  EXPECT_THROW(s.parse("r=2;a=4;c=8"), Error);
  EXPECT_THROW(s.parse("r=2;a=4;c=8;wg=16x16;q=1"), Error);
  EXPECT_THROW(s.parse("640"), Error);
  try {
    s.parse("r=2;a=4;c=8;wg=7x7");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("7x7"), std::string::npos);
  }
}

TEST(Space, NumericViewSplitsWorkGroups) {
  gemm::GemmFamily family;
  const Space& s = family.space();
  EXPECT_EQ(s.numeric_names(), (std::vector<std::string>{"r", "a", "c", "wg_x", "wg_y"}));
  EXPECT_EQ(s.numeric_values(s.parse("r=2;a=4;c=8;wg=32x8")),
            (std::vector<double>{2, 4, 8, 32, 8}));
}

}  // namespace
}  // namespace ktune
