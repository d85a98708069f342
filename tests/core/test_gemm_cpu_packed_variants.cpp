// Both code paths of the packed kernel on the machine running the tests: the portable 8-lane
// variant (what x86-64-v3 builds run) and, where the target has AVX-512, the Zmm variant (what
// -march=native builds run there). The dispatcher only reaches the build's default variant, so
// this file instantiates the kernel itself; tests/CMakeLists.txt compiles it with the kernels'
// flags (KTUNE_KERNEL_FLAGS).
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_packed.hpp"
#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"

namespace ktune {
namespace {

namespace cpu = kernels::gemm::cpu;
using kernels::gemm::kPackedMicroTiles;

template <size_t I, bool Zmm>
void run_tile(const cpu::Args& g, int kc, int mc, int nc) {
  constexpr int mr = kPackedMicroTiles[I].mr, nr = kPackedMicroTiles[I].nr;
  if (g.transa)
    g.transb ? cpu::gemm_packed<mr, nr, true, true, Zmm>(g, kc, mc, nc)
             : cpu::gemm_packed<mr, nr, true, false, Zmm>(g, kc, mc, nc);
  else
    g.transb ? cpu::gemm_packed<mr, nr, false, true, Zmm>(g, kc, mc, nc)
             : cpu::gemm_packed<mr, nr, false, false, Zmm>(g, kc, mc, nc);
}

// Every micro-tile × transpose pair × row tail (m % mr in 1..4, 5..8, 9..16, 17..24, full),
// odd and even k, k > kc, several column and row blocks; C NaN-poisoned (beta = 0) or random
// (beta != 0), compared with the float64 reference.
template <bool Zmm, size_t... I>
void check_variant(std::index_sequence<I...>) {
  const int64_t shapes[][3] = {{3, 7, 5},   {7, 9, 2},    {13, 6, 33},  {21, 13, 300},
                               {24, 8, 17}, {40, 17, 64}, {61, 30, 129}};
  const int blocks[][3] = {{128, 48, 960}, {7, 13, 10}};
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (const auto& sh : shapes)
        for (float beta : {0.f, 0.5f}) {
          const auto s = kernels::gemm::packed_shape(ta, tb, sh[0], sh[1], sh[2]);
          const auto a = kernels::gemm::random_matrix(size_t(s.stride_a()), 3);
          const auto b = kernels::gemm::random_matrix(size_t(s.stride_b()), 4);
          auto c0 = kernels::gemm::random_matrix(size_t(s.stride_c()), 5);
          const auto ref =
              kernels::gemm::reference_gemm(s, a.data(), b.data(), 1.5, beta, c0.data());
          if (beta == 0.f) c0.assign(c0.size(), std::numeric_limits<float>::quiet_NaN());
          for (const auto& bl : blocks) {
            size_t tile = 0;
            auto check = [&](auto run) {
              std::vector<float> c = c0;
              const cpu::Args args{.transa = s.transa,
                                   .transb = s.transb,
                                   .m = s.m,
                                   .n = s.n,
                                   .k = s.k,
                                   .alpha = 1.5f,
                                   .beta = beta,
                                   .a = a.data(),
                                   .lda = s.lda,
                                   .b = b.data(),
                                   .ldb = s.ldb,
                                   .c = c.data(),
                                   .ldc = s.ldc};
              run(args, bl[0], bl[1], bl[2]);
              EXPECT_LE(kernels::gemm::relative_error(s, c.data(), ref),
                        kernels::gemm::error_bound(s.k))
                  << "mr=" << kPackedMicroTiles[tile].mr << " nr=" << kPackedMicroTiles[tile].nr
                  << " zmm=" << Zmm << " ta=" << ta << " tb=" << tb << " m=" << s.m << " n=" << s.n
                  << " k=" << s.k << " beta=" << beta << " kc=" << bl[0];
              ++tile;
            };
            (check(run_tile<I, Zmm>), ...);
          }
        }
}

constexpr auto kTileIndices = std::make_index_sequence<std::size(kPackedMicroTiles)>{};

TEST(GemmCpuPackedVariants, PortableEightLaneVariant) { check_variant<false>(kTileIndices); }

TEST(GemmCpuPackedVariants, Avx512ZmmVariant) {
  if constexpr (cpu::packed_detail::kHaveZmm)
    check_variant<cpu::packed_detail::kHaveZmm>(kTileIndices);
  else
    GTEST_SKIP() << "the kernels' target has no AVX-512: only the portable variant exists here";
}

}  // namespace
}  // namespace ktune
