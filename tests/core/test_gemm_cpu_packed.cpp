#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_packed_dispatch.hpp"
#include "kernels/common/cpu/gemm_cpu_packed_split.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "ktune/error.hpp"
#include "tests/core/gemm_packed_test_util.hpp"

namespace ktune {
namespace {

using kernels::gemm::PackedParams;
using packed_test::Case;
using packed_test::name_of;
using packed_test::with_blocks;

// Every micro-tile of the one list (kernels/common/gemm_config.hpp), blocks set per test.
const std::vector<PackedParams> kTiles = [] {
  std::vector<PackedParams> tiles;
  for (const auto& t : kernels::gemm::kPackedMicroTiles) tiles.push_back({t.mr, t.nr, 0, 0, 0});
  return tiles;
}();

// Every micro-tile and transpose pair on sizes that are not multiples of mr, nr or the blocks,
// with the space's blocking and with tiny blocks (kc, mc, nc not multiples of mr/nr) that make
// every loop take several steps, so k > kc and partial blocks occur in every dimension.
TEST(GemmCpuPacked, EveryMicroTileAndTransposeOnEdgeSizes) {
  // Row tails of every micro-tile variant: m % mr in 1..4 (4-lane), 5..8 and 9..16 (one or
  // two 8-lane vectors of a 16- or 24-row tile) and full.
  const int64_t shapes[][3] = {{1, 1, 1},      {3, 17, 1},     {17, 3, 33},   {33, 130, 3},
                               {130, 33, 300}, {130, 130, 17}, {24, 12, 130}, {6, 9, 5},
                               {29, 5, 40},    {45, 7, 2}};
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (const auto& sh : shapes) {
        const Case cs(ta, tb, sh[0], sh[1], sh[2], 1, 0, 1.f, 0.f, uint64_t(sh[0] * 1000 + sh[2]));
        for (const PackedParams& tile : kTiles) {
          cs.check(with_blocks(tile, 128, 48, 960));
          cs.check(with_blocks(tile, 7, 13, 10));
        }
      }
}

// Strided batches, leading dimensions larger than minimal, alpha/beta != 1/0, and the three
// thread counts 1, 2, 3 (whole entries per thread, entries cut into row or column parts).
TEST(GemmCpuPacked, BatchesLeadingDimensionsAlphaBetaAndThreadCounts) {
  packed_test::for_transposes_and_thread_counts([&](bool ta, bool tb) {
    const Case batch3(ta, tb, 45, 70, 150, 3, 5, 0.75f, -1.5f, 11);
    const Case batch6(ta, tb, 33, 17, 29, 6, 3, -2.f, 0.f, 12);
    const Case single(ta, tb, 130, 97, 140, 1, 2, 1.f, 0.5f, 13);
    const Case few_panels(ta, tb, 32, 27, 300, 1, 1, 1.f, 0.f, 14);  // parts cut rows
    for (const PackedParams& tile : {kTiles[1], kTiles[5], kTiles[6]}) {
      batch3.check(with_blocks(tile, 128, 48, 960));
      batch6.check(with_blocks(tile, 128, 48, 960));
      single.check(with_blocks(tile, 64, 24, 30));
    }
    few_panels.check(with_blocks(kTiles[0], 128, 48, 960));
  });
}

// C is cut among threads so that the largest part holds the fewest micro-tiles.
TEST(GemmCpuPacked, ThreadPartsBalanceTheMicroTileGrid) {
  using kernels::gemm::cpu::packed_detail::choose_split;
  EXPECT_EQ(choose_split(2, 4, 7).ci, 2);  // m = 32, n = 27 with 8x4: rows split evenly
  EXPECT_EQ(choose_split(2, 4, 8).cj, 2);  // tie: columns
  EXPECT_EQ(choose_split(4, 2, 9).ci * choose_split(4, 2, 9).cj, 4);
  EXPECT_EQ(choose_split(4, 1, 9).cj, 4);   // one row panel: columns only
  EXPECT_EQ(choose_split(16, 1, 3).cj, 3);  // fewer micro-tiles than threads
}

// Every combination of the lead's space on a shape larger than its biggest blocks (m > 192,
// n > 960, k > 512), so each blocking takes several steps with partial last blocks.
TEST(GemmCpuPacked, EveryParamOfTheSpaceOnAShapeCrossingAllBlocks) {
  const Case cs(false, false, 203, 970, 530, 1, 1, 1.f, 0.f, 21);
  for (const PackedParams& tile : kTiles)
    for (int kc : {128, 256, 512})
      for (int mc : {48, 96, 192})
        for (int nc : {960, 3840}) cs.check(with_blocks(tile, kc, mc, nc));
}

// BLAS semantics without a product: k == 0 or alpha == 0 gives C = beta*C, beta == 0 zeros C
// even when it holds NaN.
TEST(GemmCpuPacked, EmptyProductScalesC) {
  for (float beta : {0.f, 0.5f}) {
    for (int64_t k : {0, 9}) {
      const Case cs(false, false, 11, 5, k, 2, 1, k == 0 ? 1.f : 0.f, beta, 31);
      cs.check(with_blocks(kTiles[0], 128, 48, 960));
    }
  }
}

TEST(GemmCpuPacked, BadParamsThrowNamingThem) {
  const Case cs(false, false, 8, 8, 8);
  std::vector<float> c = cs.c0;
  const auto expect_error = [&](PackedParams p, const std::string& needle) {
    try {
      kernels::gemm::cpu::run_packed(cs.args(c.data()), p);
      ADD_FAILURE() << "no error for " << name_of(p);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({12, 4, 128, 48, 960}, "mr=12");
  expect_error({8, 5, 128, 48, 960}, "nr=5");
  expect_error({24, 6, 128, 48, 960}, "mr=24 nr=6");
  expect_error({8, 4, 0, 48, 960}, "kc=0");
  expect_error({8, 4, 128, -1, 960}, "mc=-1");
  expect_error({8, 4, 128, 48, 0}, "nc=0");
  // Nothing ran: C still holds its NaN poison.
  EXPECT_TRUE(std::isnan(c[0]));
}

}  // namespace
}  // namespace ktune
