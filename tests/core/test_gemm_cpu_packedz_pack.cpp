// The packedz kind's transposed-A pack (gemm_cpu_packedz_pack.hpp, 16×16 AVX-512 transposes)
// against the scalar pack of the packed kernel it replaces, bit for bit: every row count of a
// panel (1..MR: partial 16-row groups and all-padding groups), every K tail (kb % 16 = 0..15),
// an odd leading dimension and one of 1024 floats, and a guard after the panel that must stay
// untouched. The GEMMs through it: test_gemm_cpu_packedz.cpp (ta = 1). tests/CMakeLists.txt
// compiles this file with the kernels' flags (KTUNE_KERNEL_FLAGS).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__AVX512F__)
#include "kernels/common/cpu/gemm_cpu_packed.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_pack.hpp"
#endif

namespace ktune {
namespace {

#if defined(__AVX512F__)
namespace cpu = kernels::gemm::cpu;

constexpr int kPanelGuard = 19;  // floats after the panel that the pack must not write

// a: 200 rows of lda floats, distinct values; the panel starts at row i0 = 3, k p0 = 5.
std::vector<float> source(int64_t lda) {
  std::vector<float> a(size_t(lda * 200));
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 4093) * 0.25f + 1.f;
  return a;
}

// Number of floats where the two packs of one panel differ (panel and guard).
template <int MR>
int differences(const std::vector<float>& a, int64_t lda, int rows, int kb) {
  const size_t n = size_t(MR) * kb + kPanelGuard;
  std::vector<float> scalar(n, -7.f), vec(n, -7.f);
  cpu::packed_detail::pack_a_panel<MR, true>(a.data(), lda, 3, 5, rows, kb, scalar.data());
  cpu::packedz_detail::pack_a_panel_t<MR>(a.data(), lda, 3, 5, rows, kb, vec.data());
  int diff = 0;
  for (size_t i = 0; i < n; ++i) diff += std::memcmp(&scalar[i], &vec[i], sizeof(float)) != 0;
  return diff;
}

template <int MR>
void check_tile(int64_t lda) {
  const std::vector<float> a = source(lda);
  for (int rows = 1; rows <= MR; ++rows)
    for (int kb = 1; kb <= 50; ++kb)
      EXPECT_EQ(differences<MR>(a, lda, rows, kb), 0)
          << "MR=" << MR << " rows=" << rows << " kb=" << kb << " lda=" << lda;
}
#endif

TEST(GemmCpuPackedzPack, TransposedPackMatchesTheScalarPackBitForBit) {
#if defined(__AVX512F__)
  for (int64_t lda : {61, 1024}) {
    check_tile<16>(lda);
    check_tile<32>(lda);
    check_tile<48>(lda);
    check_tile<64>(lda);
  }
#else
  GTEST_SKIP() << "this build's kernels have no AVX-512 (the packedz kind is refused there)";
#endif
}

// The comparison sees the last lane of a K tail: one changed element of A (last row, last k of
// a 13-step tail) read only by the vector pack makes the two packs differ in exactly one float.
TEST(GemmCpuPackedzPack, APlantedChangeInTheLastTailLaneIsSeen) {
#if defined(__AVX512F__)
  constexpr int MR = 48, rows = 37, kb = 29;  // rows in the third 16-row group; 29 = 16 + 13
  const int64_t lda = 61;
  const std::vector<float> a = source(lda);
  std::vector<float> planted = a;
  planted[size_t(5 + kb - 1 + (3 + rows - 1) * lda)] += 1.f;
  std::vector<float> scalar(size_t(MR) * kb), vec(size_t(MR) * kb);
  cpu::packed_detail::pack_a_panel<MR, true>(a.data(), lda, 3, 5, rows, kb, scalar.data());
  cpu::packedz_detail::pack_a_panel_t<MR>(planted.data(), lda, 3, 5, rows, kb, vec.data());
  int diff = 0;
  for (size_t i = 0; i < vec.size(); ++i) diff += scalar[i] != vec[i];
  EXPECT_EQ(diff, 1);
  EXPECT_NE(scalar[size_t(kb - 1) * MR + rows - 1], vec[size_t(kb - 1) * MR + rows - 1]);
#else
  GTEST_SKIP() << "this build's kernels have no AVX-512 (the packedz kind is refused there)";
#endif
}

}  // namespace
}  // namespace ktune
