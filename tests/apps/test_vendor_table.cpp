// The sums behind `ktune report`'s vendor table (apps/ktune/vendor_table.hpp), on numbers worked
// out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "apps/ktune/vendor_table.hpp"

namespace ktune::cli {
namespace {

// big: 4 GFLOP, ktune 100 GFLOP/s (40 ms), vendor 200 (20 ms): ratio 0.5.
// small: 1 GFLOP, ktune 100 (10 ms), vendor 25 (40 ms): ratio 4.
// unmeasured: no ok ktune figure, left out everywhere.
std::vector<VendorShape> hand_shapes() {
  return {{"big", 4e9, 100, 200}, {"unmeasured", 1e9, 0, 50}, {"small", 1e9, 100, 25}};
}

TEST(VendorTable, GeomeanWeighsShapesAlikeTimeWeightedWeighsTheirTime) {
  const VendorSummary s = summarize(hand_shapes());
  EXPECT_EQ(s.count, 2u);
  EXPECT_DOUBLE_EQ(s.geomean, std::sqrt(0.5 * 4.0));  // 1.414: ktune "wins" per shape
  // (20 + 40 ms of vendor) / (40 + 10 ms of ktune): 1.2, the speed-up of the two runs together.
  EXPECT_DOUBLE_EQ(s.time_weighted, 60.0 / 50.0);
}

TEST(VendorTable, NoMeasuredShapeGivesZeros) {
  const VendorSummary s = summarize({{"a", 1e9, 0, 10}, {"b", 1e9, 10, 0}});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.geomean, 0.0);
  EXPECT_EQ(s.time_weighted, 0.0);
  EXPECT_EQ(worst_shapes_markdown({{"a", 1e9, 0, 10}}, 5, "oracle"), "");
}

TEST(VendorTable, WorstShapesAreTheLowestRatiosFirstAndMeasuredOnly) {
  auto shapes = hand_shapes();
  shapes.push_back({"even", 1e9, 30, 30});
  const auto worst = worst_shapes(shapes, 2);
  ASSERT_EQ(worst.size(), 2u);
  EXPECT_EQ(worst[0].label, "big");                // 0.5
  EXPECT_EQ(worst[1].label, "even");               // 1.0
  EXPECT_EQ(worst_shapes(shapes, 10).size(), 3u);  // never the unmeasured one
}

TEST(VendorTable, WorstShapesMarkdownNamesKtunesColumn) {
  EXPECT_EQ(worst_shapes_markdown(hand_shapes(), 1, "deployed"),
            "Worst shapes (lowest deployed / vendor):\n\n"
            "| shape | deployed GFLOP/s | vendor GFLOP/s | deployed / vendor |\n"
            "|---|---:|---:|---:|\n"
            "| big | 100.0 | 200.0 | 0.500 |\n");
}

}  // namespace
}  // namespace ktune::cli
