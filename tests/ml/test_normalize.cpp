#include <gtest/gtest.h>

#include <cmath>

#include "ktune/error.hpp"
#include "ktune/ml/normalize.hpp"

namespace ktune::ml {
namespace {

Dataset tiny() {
  Dataset d;
  d.perf.resize(3, 4);
  d.perf << 100, 95, 50, 7,  //
      10, 9.2, 9.0, 0,       //
      0, 0, 0, 0;
  d.valid.resize(3, 4);
  d.valid << true, true, true, false,  // the 7 is not valid: never counts
      true, true, true, false,         //
      false, false, false, false;
  return d;
}

TEST(Normalize, ScaleDividesByBestValid) {
  const auto n = normalize(tiny(), Norm::scale);
  EXPECT_DOUBLE_EQ(n(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(n(0, 1), 0.95);
  EXPECT_DOUBLE_EQ(n(0, 2), 0.5);
  EXPECT_DOUBLE_EQ(n(0, 3), 0.0);
  EXPECT_DOUBLE_EQ(n(1, 1), 0.92);
  EXPECT_TRUE(n.row(2).isZero());
}

TEST(Normalize, CutoffRescalesTheTopTenPercent) {
  const auto n = normalize(tiny(), Norm::cutoff);
  EXPECT_DOUBLE_EQ(n(0, 0), 1.0);
  EXPECT_NEAR(n(0, 1), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(n(0, 2), 0.0);
  EXPECT_NEAR(n(1, 1), 0.2, 1e-12);
  EXPECT_NEAR(n(1, 2), 0.0, 1e-12);  // exactly 0.9 maps to 0
  EXPECT_DOUBLE_EQ(n(0, 3), 0.0);
}

TEST(Normalize, RawCutoffKeepsValuesAboveCut) {
  const auto n = normalize(tiny(), Norm::rawcutoff);
  EXPECT_DOUBLE_EQ(n(0, 1), 0.95);
  EXPECT_DOUBLE_EQ(n(0, 2), 0.0);
  EXPECT_NEAR(n(1, 2), 0.9, 1e-12);
}

TEST(Normalize, SigmoidOfScaledValueAndZeroForInvalid) {
  const auto n = normalize(tiny(), Norm::sigmoid);
  EXPECT_NEAR(n(0, 0), 1.0 / (1.0 + std::exp(50 * (0.85 - 1.0))), 1e-15);
  EXPECT_NEAR(n(0, 2), 1.0 / (1.0 + std::exp(50 * (0.85 - 0.5))), 1e-15);
  EXPECT_DOUBLE_EQ(n(0, 3), 0.0);
  EXPECT_TRUE(n.row(2).isZero());
}

TEST(Normalize, ParseAndPrintRoundTrip) {
  for (const auto& name : norm_names()) EXPECT_EQ(to_string(parse_norm(name)), name);
  EXPECT_THROW(parse_norm("minmax"), Error);
}

}  // namespace
}  // namespace ktune::ml
