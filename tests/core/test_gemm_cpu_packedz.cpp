// The AVX-512 packed kind (packedz) against the float64 reference, through the sweep's
// dispatcher: every micro-tile × transpose pair × packing choice (pa, pb) on edge sizes, with
// blocks smaller than the problem, guard regions and NaN-poisoned output (gemm_packed_test_util).
// Where the CPU has AVX512_BF16 the same cases run the kind's bf16 kernels too (check_bf16:
// against the bf16-rounded inputs' reference), and the last tests check their run-time
// detection, a planted error and bad parameters (the session on bf16 problems:
// test_gemm_precision.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_packed_dispatch.hpp"
#include "kernels/common/gemm_config.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"
#include "ktune/error.hpp"
#include "tests/core/gemm_packed_test_util.hpp"

namespace ktune {
namespace {

using kernels::gemm::PackedParams;
using kernels::gemm::cpu::packedz_bf16_missing;
using kernels::gemm::cpu::run_packedz;
using kernels::gemm::cpu::run_packedz_bf16;
using packed_test::Case;
using packed_test::name_of;
using packed_test::with_blocks;

// Every micro-tile of kPackedzMicroTiles with each of the four packing choices.
const std::vector<PackedParams> kTilesAndPacking = [] {
  std::vector<PackedParams> tiles;
  for (const auto& t : kernels::gemm::kPackedzMicroTiles)
    for (int pa = 0; pa < 2; ++pa)
      for (int pb = 0; pb < 2; ++pb) tiles.push_back({t.mr, t.nr, 0, 0, 0, pa, pb});
  return tiles;
}();

// Whether this build and CPU run the bf16 kernels (AVX512_BF16).
const bool kBf16 = packedz_bf16_missing().empty();

#define SKIP_WITHOUT_AVX512()                                                      \
  if (!kernels::gemm::cpu::packedz_available())                                    \
  GTEST_SKIP() << "this build's kernels have no AVX-512: packedz is refused here " \
                  "(BuildsWithoutAvx512RefuseIt)"

// Sizes not multiples of mr (row tails of 1..15 lanes in each of the 1..4 zmm vectors of a tile),
// of nr (partial last column panel, which pb = 0 packs) or of the blocks, with the space's
// blocking and with tiny blocks (kc = 7, mc = 13, nc = 10) so that every loop takes several
// steps with partial blocks, and k = 1.
TEST(GemmCpuPackedz, EveryMicroTileTransposeAndPackingOnEdgeSizes) {
  SKIP_WITHOUT_AVX512();
  const int64_t shapes[][3] = {{1, 1, 1},    {5, 3, 9},      {17, 13, 33}, {31, 7, 2},
                               {33, 25, 40}, {47, 12, 130},  {50, 6, 17},  {64, 16, 5},
                               {71, 29, 64}, {130, 49, 300}, {16, 1, 300}};
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (const auto& sh : shapes) {
        const Case cs(ta, tb, sh[0], sh[1], sh[2], 1, 0, 1.f, 0.f, uint64_t(sh[0] * 1000 + sh[2]));
        for (const PackedParams& tile : kTilesAndPacking) {
          cs.check(with_blocks(tile, 128, 192, 3072), &run_packedz);
          cs.check(with_blocks(tile, 7, 13, 10), &run_packedz);
          if (kBf16 && tile.pa == 1 && tile.pb == 1) {  // pa, pb do not apply to bf16
            cs.check_bf16(with_blocks(tile, 128, 192, 3072), &run_packedz_bf16);
            cs.check_bf16(with_blocks(tile, 7, 13, 10), &run_packedz_bf16);  // odd kc
          }
        }
      }
}

// Strided batches, leading dimensions larger than minimal (A and B read in place at the
// padded stride), alpha/beta != 1/0 (C read through the row mask), and 1, 2, 3 threads.
TEST(GemmCpuPackedz, BatchesLeadingDimensionsAlphaBetaAndThreadCounts) {
  SKIP_WITHOUT_AVX512();
  packed_test::for_transposes_and_thread_counts([&](bool ta, bool tb) {
    const Case batch3(ta, tb, 45, 70, 150, 3, 5, 0.75f, -1.5f, 11);
    const Case batch20(ta, tb, 33, 17, 29, 20, 3, -2.f, 0.f, 12);
    const Case single(ta, tb, 130, 97, 140, 1, 2, 1.f, 0.5f, 13);
    const Case few_panels(ta, tb, 32, 27, 300, 1, 1, 1.f, 0.f, 14);
    for (const PackedParams& tile : kTilesAndPacking) {
      batch3.check(with_blocks(tile, 128, 192, 3072), &run_packedz);
      batch20.check(with_blocks(tile, 256, 384, 3072), &run_packedz);
      single.check(with_blocks(tile, 64, 40, 30), &run_packedz);
      few_panels.check(with_blocks(tile, 512, 192, 3072), &run_packedz);
      if (kBf16 && tile.pa == 1 && tile.pb == 1) {
        batch3.check_bf16(with_blocks(tile, 128, 192, 3072), &run_packedz_bf16);
        single.check_bf16(with_blocks(tile, 64, 40, 30), &run_packedz_bf16);
      }
    }
  });
}

// Every config of the kind's space on a shape larger than its biggest blocks (m > 384,
// k > 512), with ldb = 1024 (B's columns 4 KiB apart, read in place when pb = 0).
TEST(GemmCpuPackedz, EveryParamOfTheSpaceOnAShapeCrossingAllBlocks) {
  SKIP_WITHOUT_AVX512();
  const Case cs(false, false, 389, 45, 1024 - 1, 1, 1, 1.f, 0.f, 21);
  for (const PackedParams& tile : kTilesAndPacking)
    for (int kc : {128, 256, 512})
      for (int mc : {192, 384}) cs.check(with_blocks(tile, kc, mc, 3072), &run_packedz);
}

// Leading dimensions of 1024 floats, where pa = 0 / pb = 0 pack A / a transposed B anyway.
TEST(GemmCpuPackedz, FourKibStridesArePacked) {
  SKIP_WITHOUT_AVX512();
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      const Case cs(ta, tb, 1024, 1024, 40, 1, 0, 1.f, 0.f, 41);  // lda or ldb = 1024 each way
      for (const PackedParams& tile : kTilesAndPacking)
        cs.check(with_blocks(tile, 128, 192, 3072), &run_packedz);
    }
}

// BLAS semantics without a product: k == 0 or alpha == 0 gives C = beta*C.
TEST(GemmCpuPackedz, EmptyProductScalesC) {
  SKIP_WITHOUT_AVX512();
  for (float beta : {0.f, 0.5f})
    for (int64_t k : {0, 9}) {
      const Case cs(false, false, 11, 5, k, 2, 1, k == 0 ? 1.f : 0.f, beta, 31);
      cs.check(with_blocks(kTilesAndPacking[0], 128, 192, 3072), &run_packedz);
    }
}

TEST(GemmCpuPackedz, BadParamsThrowNamingThem) {
  const Case cs(false, false, 8, 8, 8);
  std::vector<float> c = cs.c0;
  const auto expect_error = [&](PackedParams p, const std::string& needle) {
    try {
      run_packedz(cs.args(c.data()), p);
      ADD_FAILURE() << "no error for " << name_of(p);
    } catch (const Error& e) {
      if (kernels::gemm::cpu::packedz_available()) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      }
    }
  };
  expect_error({24, 6, 128, 192, 3072, 0, 0}, "mr=24");
  expect_error({32, 7, 128, 192, 3072, 0, 0}, "nr=7");
  expect_error({64, 12, 128, 192, 3072, 0, 0}, "mr=64 nr=12");
  expect_error({32, 12, 0, 192, 3072, 0, 0}, "kc=0");
  expect_error({32, 12, 128, -1, 3072, 0, 0}, "mc=-1");
  expect_error({32, 12, 128, 192, 3072, 2, 0}, "pa=2");
  EXPECT_TRUE(std::isnan(c[0]));  // nothing ran
}

// pa and pb belong to packedz alone (ids: test_space.cpp, GemmKindOffsetsNeverMove).
TEST(GemmCpuPackedz, ConfigStringsNeedPaAndPb) {
  static_assert(
      kernels::gemm::parse_gemm_config("kind=packedz;mr=32;nr=12;kc=256;mc=192;nc=3072;pa=0;pb=1")
          .packed.pb == 1);
  static_assert(!kernels::gemm::parse_gemm_config("kind=packedz;mr=32;nr=12;kc=256;mc=192;nc=3072")
                     .valid);  // pa, pb required
  static_assert(!kernels::gemm::parse_gemm_config("kind=packed;mr=16;nr=6;kc=256;mc=96;nc=960;pa=0")
                     .valid);  // packed takes no pa
}

// bf16

const PackedParams kBf16Tile{32, 12, 256, 192, 3072};

#define SKIP_WITHOUT_BF16() \
  if (!packedz_bf16_missing().empty()) GTEST_SKIP() << packedz_bf16_missing()

// Refused exactly where the CPU lacks avx512_bf16 or the build has no AVX-512 kernels.
TEST(GemmCpuPackedzBf16, AvailableExactlyWhereTheCpuHasAvx512Bf16) {
  const bool cpu_has = __builtin_cpu_supports("avx512bf16");
  EXPECT_EQ(packedz_bf16_missing().empty(), kernels::gemm::cpu::packedz_available() && cpu_has)
      << packedz_bf16_missing();
}

// The check is not vacuous: the kernel run over k - 1 (one product term of every element
// lost, through the odd-pair path) fails the FP32-accumulation bound by orders of magnitude.
TEST(GemmCpuPackedzBf16, APlantedLostTermFailsTheBound) {
  SKIP_WITHOUT_BF16();
  const Case cs(false, false, 40, 20, 300, 1, 0, 1.f, 0.f, 5);
  cs.check_bf16(kBf16Tile, &run_packedz_bf16);  // passes, and makes the bf16 reference
  std::vector<float> c = cs.c0;
  auto args = cs.bf16_args(c.data());
  args.k -= 1;
  run_packedz_bf16(args, kBf16Tile);
  EXPECT_GT(kernels::gemm::relative_error(cs.s, c.data(), cs.ref16),
            100 * kernels::gemm::error_bound(cs.s.k));
}

TEST(GemmCpuPackedzBf16, BadParamsThrowNamingThem) {
  SKIP_WITHOUT_BF16();
  const Case cs(false, false, 8, 8, 8);
  cs.check_bf16(kBf16Tile, &run_packedz_bf16);
  std::vector<float> c = cs.c0;
  const std::pair<PackedParams, std::string> bad[] = {{{24, 6, 128, 192, 3072}, "mr=24"},
                                                      {{32, 12, 0, 192, 3072}, "kc=0"}};
  for (const auto& [p, needle] : bad) {
    try {
      run_packedz_bf16(cs.bf16_args(c.data()), p);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(std::isnan(c[0]));  // nothing ran
}

}  // namespace
}  // namespace ktune
