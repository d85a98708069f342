#pragma once
// The AVX-512 packed CPU GEMM kernel (kind `packedz`): the loop nest and threads of the `packed`
// kind (gemm_cpu_packed.hpp) with larger register tiles, MV zmm registers of rows (MR = 16·MV)
// × NR columns, and operands read in place where packing them does not pay.
// Why: the packed kind's tiles (mr ≤ 24, nr ≤ 12) are 1 or 1.5 zmm rows, so each FMA needs
// close to one load (a broadcast of B), and on Zen 5 they ran 90–250 GFLOP/s on 2 cores where
// oneDNN's brgemm runs 300–400. A 32×12 tile holds 24 accumulators (≥ 8 independent FMA chains
// per pipe for 2 pipes × 4 cycles latency) and needs 2 vector loads + 12 broadcasts per 24
// FMAs; 48×8 and 64×6 need 11 and 10 loads per 24 FMAs.
// pa = 0 reads op(A) in place when A is not transposed (each k step is MR contiguous rows,
// loaded with a mask on the row tail); pb = 0 reads op(B) in place through strided broadcasts
// (edge column panels are still packed, so no load leaves the matrix); an operand whose k steps
// are a multiple of 4 KiB apart is packed anyway (see gemm_solo_z). Small GEMMs (one block)
// then skip packing entirely; pa = pb = 1 is the classic fully packed scheme. Needs AVX-512F.
#if !defined(__AVX512F__)
#error "gemm_cpu_packedz.hpp needs an AVX-512 target (-march with avx512f)"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/cpu/gemm_cpu_packed.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_pack.hpp"

namespace ktune::kernels::gemm::cpu {

namespace packedz_detail {

using packed_detail::Blocking;

// Lanes [0, rows) of a 16-lane vector (rows clamped to 0..16).
inline __mmask16 lane_mask(int rows) {
  return rows >= 16 ? __mmask16(0xffff) : rows <= 0 ? __mmask16(0) : __mmask16((1u << rows) - 1);
}

template <int MV, int NR>
inline void zero_zmm_tile(__m512 (&acc)[NR][MV]) {
#pragma GCC unroll 32
  for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) acc[j][v] = _mm512_setzero_ps();
}

// C = alpha·acc + beta·C on the tile's rows (the last vector's lanes in `last`) × cols columns,
// C not read when beta == 0. Shared by the FP32 and the bf16 tiles.
template <int MV, int NR>
inline void store_zmm_tile(const __m512 (&acc)[NR][MV], __mmask16 last, float* c, int64_t ldc,
                           int cols, float alpha, float beta) {
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 32
  for (int j = 0; j < NR; ++j) {
    if (j >= cols) break;
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      const __mmask16 m = v + 1 < MV ? __mmask16(0xffff) : last;
      float* cv = c + j * ldc + 16 * v;
      __m512 r = _mm512_mul_ps(va, acc[j][v]);
      if (beta != 0.f) r = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m, cv), r);
      _mm512_mask_storeu_ps(cv, m, r);
    }
  }
}

// One k step of op(A) holds MV·16 rows at a (the next step at a + a_k); op(B)(p, j) is
// b[p·b_k + j·b_j] (UnitJ: b_j == 1, the packed panel or a transposed B). rows is in
// (16·(MV−1), 16·MV]: only the last vector is masked, so A reads stay inside the matrix.
// C = alpha·acc + beta·C on rows × cols (C not read when beta == 0).
template <int MV, int NR, bool UnitJ>
inline void zmm_tile(int kb, const float* __restrict a, int64_t a_k, const float* __restrict b,
                     int64_t b_k, int64_t b_j, float* c, int64_t ldc, int rows, int cols,
                     float alpha, float beta) {
  const __mmask16 last = lane_mask(rows - 16 * (MV - 1));
  __m512 acc[NR][MV];
  zero_zmm_tile(acc);
  for (int p = 0; p < kb; ++p) {
    __m512 av[MV];
#pragma GCC unroll 4
    for (int v = 0; v + 1 < MV; ++v) av[v] = _mm512_loadu_ps(a + 16 * v);
    av[MV - 1] = _mm512_maskz_loadu_ps(last, a + 16 * (MV - 1));
#pragma GCC unroll 32
    for (int j = 0; j < NR; ++j) {
      const __m512 bj = _mm512_set1_ps(UnitJ ? b[j] : b[j * b_j]);
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v) acc[j][v] = _mm512_fmadd_ps(av[v], bj, acc[j][v]);
    }
    a += a_k;
    b += b_k;
  }
  store_zmm_tile<MV, NR>(acc, last, c, ldc, cols, alpha, beta);
}

// The tile of MV' = ceil(rows / 16) ≤ MV vectors, so short row tails skip the empty vectors.
template <int MV, int NR, bool UnitJ>
inline void any_zmm_tile(int kb, const float* a, int64_t a_k, const float* b, int64_t b_k,
                         int64_t b_j, float* c, int64_t ldc, int rows, int cols, float alpha,
                         float beta) {
  if constexpr (MV > 1) {
    if (rows <= 16 * (MV - 1))
      return any_zmm_tile<MV - 1, NR, UnitJ>(kb, a, a_k, b, b_k, b_j, c, ldc, rows, cols, alpha,
                                             beta);
  }
  zmm_tile<MV, NR, UnitJ>(kb, a, a_k, b, b_k, b_j, c, ldc, rows, cols, alpha, beta);
}

// Floats per 4 KiB: k steps this far apart map to the same L1 cache sets.
constexpr int64_t kSameSetStride = 1024;

// Per-thread panel for a partial last column panel of an in-place B.
inline float* scratch_edge(size_t count) {
  thread_local packed_detail::Scratch s;
  return s.get(count);
}

// One GEMM (one batch entry, or one task's part of it) on the calling thread.
template <int MV, int NR, bool TA, bool TB>
void gemm_solo_z(const Args& g, const Blocking& bl, bool pack_a, bool pack_b) {
  using packed_detail::pack_a_block;
  using packed_detail::pack_b_panel;
  constexpr int MR = 16 * MV;
  // A transposed A has no contiguous rows to load in place. A step of 4 KiB between k steps
  // (an A or transposed B read in place) puts every k step of a panel in the same L1 sets: the
  // deployed run lost 3x there (m = 1024, n = 49 NN), so such operands are packed.
  pack_a = pack_a || TA || g.lda % kSameSetStride == 0;
  pack_b = pack_b || (TB && g.ldb % kSameSetStride == 0);
  float* bpack = pack_b ? packed_detail::scratch_b(size_t(bl.b_panel_floats(NR))) : nullptr;
  float* apack = pack_a ? packed_detail::scratch_a(size_t(bl.a_panel_floats(MR))) : nullptr;
  float* edge = pack_b ? nullptr : scratch_edge(size_t(bl.kc) * NR);
  for (int64_t jc = 0; jc < g.n; jc += bl.nc) {
    const int nb = int(std::min<int64_t>(bl.nc, g.n - jc));
    const int64_t panels = (nb + NR - 1) / NR;
    for (int64_t pc = 0; pc < g.k; pc += bl.kc) {
      const int kb = int(std::min<int64_t>(bl.kc, g.k - pc));
      const float beta = pc == 0 ? g.beta : 1.f;
      if (pack_b) {
        for (int64_t jp = 0; jp < panels; ++jp) {
          const int jr = int(jp) * NR;
          pack_b_panel<NR, TB>(g.b, g.ldb, pc, jc + jr, std::min(NR, nb - jr), kb,
                               bpack + int64_t(jr) * kb);
        }
      } else if (nb % NR != 0) {
        const int jr = int(panels - 1) * NR;
        pack_b_panel<NR, TB>(g.b, g.ldb, pc, jc + jr, nb - jr, kb, edge);
      }
      for (int64_t ic = 0; ic < g.m; ic += bl.mc) {
        const int mb = int(std::min<int64_t>(bl.mc, g.m - ic));
        const int64_t a_panels = (mb + MR - 1) / MR;
        if constexpr (TA)
          pack_a_block_t<MR>(g.a, g.lda, ic, pc, mb, kb, apack);  // 16x16 transposes
        else if (pack_a)
          pack_a_block<MR, TA>(g.a, g.lda, ic, pc, mb, kb, 0, a_panels, apack);
        for (int64_t jp = 0; jp < panels; ++jp) {
          const int jr = int(jp) * NR;
          const int cols = std::min(NR, nb - jr);
          float* cj = g.c + ic + (jc + jr) * g.ldc;
          // Where this column panel's op(B)(p, j) is: b[p * b_k + j * b_j].
          const float* b = pack_b ? bpack + int64_t(jr) * kb : edge;
          int64_t b_k = NR, b_j = 1;
          if (!pack_b && cols == NR) {
            b = TB ? g.b + (jc + jr) + pc * g.ldb : g.b + pc + (jc + jr) * g.ldb;
            b_k = TB ? g.ldb : 1;
            b_j = TB ? 1 : g.ldb;
          }
          for (int64_t ip = 0; ip < a_panels; ++ip) {
            const int ir = int(ip) * MR;
            const int rows = std::min(MR, mb - ir);
            const float* a = pack_a ? apack + int64_t(ir) * kb : g.a + (ic + ir) + pc * g.lda;
            const int64_t a_k = pack_a ? MR : g.lda;
            if (b_j == 1)
              any_zmm_tile<MV, NR, true>(kb, a, a_k, b, b_k, 1, cj + ir, g.ldc, rows, cols, g.alpha,
                                         beta);
            else
              any_zmm_tile<MV, NR, false>(kb, a, a_k, b, b_k, b_j, cj + ir, g.ldc, rows, cols,
                                          g.alpha, beta);
          }
        }
      }
    }
  }
}

}  // namespace packedz_detail

// The AVX-512 packed GEMM: micro-tile MR×NR (MR a multiple of 16, at most 64), cache blocks
// kc, mc, nc (positive), pack_a / pack_b: whether op(A) / op(B) are packed (see above).
template <int MR, int NR, bool TA, bool TB>
void gemm_packedz(const Args& g, int kc, int mc, int nc, bool pack_a, bool pack_b) {
  static_assert(MR % 16 == 0 && MR >= 16 && MR <= 64 && NR > 0, "MR: 16, 32, 48 or 64");
  const packed_detail::Blocking bl{kc, mc, nc};
  packed_detail::run_packed_tasks<MR, NR, TA, TB>(g, [&](const Args& s) {
    packedz_detail::gemm_solo_z<MR / 16, NR, TA, TB>(s, bl, pack_a, pack_b);
  });
}

}  // namespace ktune::kernels::gemm::cpu
