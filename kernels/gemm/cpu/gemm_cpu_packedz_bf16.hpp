#pragma once
// The bf16 packedz kernel: the `packedz` kind's loop nest, micro-tiles and threads for problems
// of precision bf16 (bf16 A and B, FP32 accumulation and C). Each k step of the micro-tile is a
// pair of k values: A is packed as MR rows × (k, k+1) bf16 pairs (one dword per row, 16 rows per
// zmm), B as NR columns × pairs (one dword broadcast per column), and one vdpbf16ps adds both
// products of a pair to 16 FP32 accumulators: twice the multiply-adds of an FP32 FMA per
// instruction, on half the bytes. An odd k pads the last pair with zeros.
// Both operands are always packed (the pair layout does not exist in memory), so the kind's
// pa / pb do not apply. The functions are compiled for AVX512_BF16 whatever the build's target
// (any AVX-512F target) and only called where cpuid reports it (run_packedz_bf16 in
// gemm_cpu_packedz_dispatch).
#include "kernels/gemm/cpu/gemm_cpu_packedz.hpp"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512bf16"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512bf16")
#endif

namespace ktune::kernels::gemm::cpu {

namespace packedz_bf16_detail {

using packed_detail::Blocking;

// A pair of bf16 values as one dword: k even in the low half, as vdpbf16ps pairs them.
inline uint32_t pair(uint16_t even, uint16_t odd) { return uint32_t(even) | uint32_t(odd) << 16; }

// `count` rows of op(A) or columns of op(B) (W of them in the panel) over K [0, kb) as
// ceil(kb/2) pairs, stored pair-major (W dwords per pair): element (x, p) is
// origin[x * x_step + p * p_step]. Entries >= count and the odd tail's second half are zero.
template <int W>
inline void pack_pairs(const uint16_t* origin, int64_t x_step, int64_t p_step, int count, int kb,
                       uint32_t* dst) {
  for (int q = 0; q < (kb + 1) / 2; ++q, dst += W) {
    const uint16_t* at = origin + 2 * q * p_step;
    const bool odd = 2 * q + 1 < kb;
    for (int x = 0; x < count; ++x, at += x_step)
      dst[x] = pair(at[0], odd ? at[p_step] : uint16_t(0));
    for (int x = count; x < W; ++x) dst[x] = 0;
  }
}

// One MR-row panel of op(A) (op(A)(i, p) = a[i + p*lda], transposed a[p + i*lda]): rows
// [i0, i0 + rows), K [p0, p0 + kb).
template <int MR, bool TA>
inline void pack_a_pairs(const uint16_t* a, int64_t lda, int64_t i0, int64_t p0, int rows, int kb,
                         uint32_t* dst) {
  if constexpr (TA)
    pack_pairs<MR>(a + p0 + i0 * lda, lda, 1, rows, kb, dst);
  else
    pack_pairs<MR>(a + i0 + p0 * lda, 1, lda, rows, kb, dst);
}

// One NR-column panel of op(B) (op(B)(p, j) = b[p + j*ldb], transposed b[j + p*ldb]): K
// [p0, p0 + kb), columns [j0, j0 + cols).
template <int NR, bool TB>
inline void pack_b_pairs(const uint16_t* b, int64_t ldb, int64_t p0, int64_t j0, int cols, int kb,
                         uint32_t* dst) {
  if constexpr (TB)
    pack_pairs<NR>(b + j0 + p0 * ldb, 1, ldb, cols, kb, dst);
  else
    pack_pairs<NR>(b + p0 + j0 * ldb, ldb, 1, cols, kb, dst);
}

// kq pairs of the packed panels (A: a_k dwords per pair, the first MV·16 of them used; B: NR)
// into MV×NR zmm accumulators, then C = alpha·acc + beta·C on rows × cols.
template <int MV, int NR>
inline void bf16_tile(int kq, const uint32_t* __restrict a, int64_t a_k,
                      const uint32_t* __restrict b, float* c, int64_t ldc, int rows, int cols,
                      float alpha, float beta) {
  __m512 acc[NR][MV];
  packedz_detail::zero_zmm_tile(acc);
  for (int q = 0; q < kq; ++q) {
    __m512bh av[MV];
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) av[v] = (__m512bh)_mm512_loadu_si512(a + 16 * v);
#pragma GCC unroll 32
    for (int j = 0; j < NR; ++j) {
      const __m512bh bj = (__m512bh)_mm512_set1_epi32(int(b[j]));
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v) acc[j][v] = _mm512_dpbf16_ps(acc[j][v], av[v], bj);
    }
    a += a_k;
    b += NR;
  }
  packedz_detail::store_zmm_tile<MV, NR>(acc, packedz_detail::lane_mask(rows - 16 * (MV - 1)), c,
                                         ldc, cols, alpha, beta);
}

// The tile of ceil(rows / 16) ≤ MV vectors, so short row tails skip the empty vectors.
template <int MV, int NR>
inline void any_bf16_tile(int kq, const uint32_t* a, int64_t a_k, const uint32_t* b, float* c,
                          int64_t ldc, int rows, int cols, float alpha, float beta) {
  if constexpr (MV > 1) {
    if (rows <= 16 * (MV - 1))
      return any_bf16_tile<MV - 1, NR>(kq, a, a_k, b, c, ldc, rows, cols, alpha, beta);
  }
  bf16_tile<MV, NR>(kq, a, a_k, b, c, ldc, rows, cols, alpha, beta);
}

// One GEMM (one batch entry, or one task's part of it) on the calling thread. The packed
// panels live in the FP32 kinds' per-thread scratch: a pair is one dword, so a block of kc
// k values needs ceil(kc/2) ≤ kc dwords per row or column.
template <int MV, int NR, bool TA, bool TB>
void gemm_solo_bf16(const Bf16Args& g, const Blocking& bl) {
  constexpr int MR = 16 * MV;
  auto* bpack =
      reinterpret_cast<uint32_t*>(packed_detail::scratch_b(size_t(bl.b_panel_floats(NR))));
  auto* apack =
      reinterpret_cast<uint32_t*>(packed_detail::scratch_a(size_t(bl.a_panel_floats(MR))));
  for (int64_t jc = 0; jc < g.n; jc += bl.nc) {
    const int nb = int(std::min<int64_t>(bl.nc, g.n - jc));
    const int64_t panels = (nb + NR - 1) / NR;
    for (int64_t pc = 0; pc < g.k; pc += bl.kc) {
      const int kb = int(std::min<int64_t>(bl.kc, g.k - pc));
      const int kq = (kb + 1) / 2;
      const float beta = pc == 0 ? g.beta : 1.f;
      for (int64_t jp = 0; jp < panels; ++jp) {
        const int jr = int(jp) * NR;
        pack_b_pairs<NR, TB>(g.b, g.ldb, pc, jc + jr, std::min(NR, nb - jr), kb,
                             bpack + int64_t(jr) * kq);
      }
      for (int64_t ic = 0; ic < g.m; ic += bl.mc) {
        const int mb = int(std::min<int64_t>(bl.mc, g.m - ic));
        const int64_t a_panels = (mb + MR - 1) / MR;
        for (int64_t ip = 0; ip < a_panels; ++ip) {
          const int ir = int(ip) * MR;
          pack_a_pairs<MR, TA>(g.a, g.lda, ic + ir, pc, std::min(MR, mb - ir), kb,
                               apack + int64_t(ir) * kq);
        }
        for (int64_t jp = 0; jp < panels; ++jp) {
          const int jr = int(jp) * NR;
          const int cols = std::min(NR, nb - jr);
          for (int64_t ip = 0; ip < a_panels; ++ip) {
            const int ir = int(ip) * MR;
            any_bf16_tile<MV, NR>(kq, apack + int64_t(ir) * kq, MR, bpack + int64_t(jr) * kq,
                                  g.c + (ic + ir) + (jc + jr) * g.ldc, g.ldc, std::min(MR, mb - ir),
                                  cols, g.alpha, beta);
          }
        }
      }
    }
  }
}

}  // namespace packedz_bf16_detail

// The bf16 packedz GEMM: micro-tile MR×NR (MR a multiple of 16, at most 64), cache blocks kc,
// mc, nc (positive), threads as the packed kinds'. Needs a CPU with AVX512_BF16.
template <int MR, int NR, bool TA, bool TB>
void gemm_packedz_bf16(const Bf16Args& g, int kc, int mc, int nc) {
  static_assert(MR % 16 == 0 && MR >= 16 && MR <= 64 && NR > 0, "MR: 16, 32, 48 or 64");
  const packed_detail::Blocking bl{kc, mc, nc};
  packed_detail::run_packed_tasks<MR, NR, TA, TB>(g, [&](const Bf16Args& s) {
    packedz_bf16_detail::gemm_solo_bf16<MR / 16, NR, TA, TB>(s, bl);
  });
}

}  // namespace ktune::kernels::gemm::cpu

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
