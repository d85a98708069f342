#pragma once
// Packing a transposed A for the packedz kind (gemm_cpu_packedz.hpp) with AVX-512 16×16
// transposes. op(A)(i, p) = a[p + i·lda]: each row of op(A) is contiguous along K, while the
// packed panel wants each k step's MR rows contiguous (dst[p·MR + r]). The scalar pack of
// gemm_cpu_packed.hpp moves one float per load and store with MR-strided writes; here 16 rows ×
// 16 k steps go through 16 vector loads, 64 shuffles and 16 vector stores.
// Why: on the ViT projections (TN, n = 197) A is packed once per 98–197 columns of C, and the
// scalar pack took (measured on the 2-core AMD EPYC, results/amd-epyc-2c/vit-packedz-ta/) a
// large share of the call.
#if !defined(__AVX512F__)
#error "gemm_cpu_packedz_pack.hpp needs an AVX-512 target (-march with avx512f)"
#endif
#include <immintrin.h>

#include <cstdint>

namespace ktune::kernels::gemm::cpu::packedz_detail {

// The shuffles below as their zero-masked forms with every lane set: the same instructions,
// while GCC 12 warns (-Wmaybe-uninitialized, a false positive of its intrinsics headers) on the
// unmasked forms' undefined pass-through operand.
constexpr __mmask16 kAll16 = 0xffff;
constexpr __mmask8 kAll8 = 0xff;

// r[i] (row i, lanes = 16 consecutive k) becomes r[e] (k step e, lanes = the 16 rows).
inline void transpose16x16(__m512 (&r)[16]) {
  __m512 t[16];
  // Pairs of rows interleaved within each 128-bit lane L: t[2i] holds k = 4L, 4L+1 of rows 2i,
  // 2i+1; t[2i+1] holds k = 4L+2, 4L+3.
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_maskz_unpacklo_ps(kAll16, r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_maskz_unpackhi_ps(kAll16, r[2 * i], r[2 * i + 1]);
  }
  // Quads: r[4i + q] holds, in lane L, k = 4L + q of rows 4i .. 4i+3.
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 2]);
    const __m512d c = _mm512_castps_pd(t[4 * i + 1]), d = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(kAll8, a, b));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(kAll8, a, b));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(kAll8, c, d));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(kAll8, c, d));
  }
  // Gather lane L of the four row quads: first lanes 0,1 / 2,3 of quads (0,1) and (2,3), then
  // lanes 0 / 1 of those.
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const __m512 x0 = _mm512_maskz_shuffle_f32x4(kAll16, r[q], r[4 + q], 0x44);
    const __m512 y0 = _mm512_maskz_shuffle_f32x4(kAll16, r[q], r[4 + q], 0xee);
    const __m512 x1 = _mm512_maskz_shuffle_f32x4(kAll16, r[8 + q], r[12 + q], 0x44);
    const __m512 y1 = _mm512_maskz_shuffle_f32x4(kAll16, r[8 + q], r[12 + q], 0xee);
    t[q] = _mm512_maskz_shuffle_f32x4(kAll16, x0, x1, 0x88);       // k = q
    t[4 + q] = _mm512_maskz_shuffle_f32x4(kAll16, x0, x1, 0xdd);   // k = 4 + q
    t[8 + q] = _mm512_maskz_shuffle_f32x4(kAll16, y0, y1, 0x88);   // k = 8 + q
    t[12 + q] = _mm512_maskz_shuffle_f32x4(kAll16, y0, y1, 0xdd);  // k = 12 + q
  }
#pragma GCC unroll 16
  for (int e = 0; e < 16; ++e) r[e] = t[e];
}

// One MR-row panel of a transposed op(A): rows [i0, i0 + rows) and K [p0, p0 + kb), stored
// p-major (MR floats per k), rows >= `rows` zero: the result of packed_detail::pack_a_panel<MR,
// true>, bit for bit. K tails load a masked part of each row, so no read leaves the matrix.
template <int MR>
inline void pack_a_panel_t(const float* a, int64_t lda, int64_t i0, int64_t p0, int rows, int kb,
                           float* dst) {
  static_assert(MR % 16 == 0, "MR: a multiple of 16");
  for (int v = 0; v < MR / 16; ++v) {
    const int vrows = rows - 16 * v;  // rows of this 16-row group (<= 0: all padding)
    const float* src = a + p0 + (i0 + 16 * v) * lda;
    for (int p = 0; p < kb; p += 16) {
      const int steps = kb - p < 16 ? kb - p : 16;
      const __mmask16 km = steps == 16 ? __mmask16(0xffff) : __mmask16((1u << steps) - 1);
      __m512 r[16];
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i)
        r[i] = i < vrows ? _mm512_maskz_loadu_ps(km, src + i * lda + p) : _mm512_setzero_ps();
      transpose16x16(r);
      float* out = dst + int64_t(p) * MR + 16 * v;
      if (steps == 16) {
#pragma GCC unroll 16
        for (int e = 0; e < 16; ++e) _mm512_storeu_ps(out + e * MR, r[e]);
      } else {
        for (int e = 0; e < steps; ++e) _mm512_storeu_ps(out + e * MR, r[e]);
      }
    }
  }
}

// The panels [0, ceil(mb / MR)) of the mb×kb block of a transposed op(A) at (ic, pc).
template <int MR>
inline void pack_a_block_t(const float* a, int64_t lda, int64_t ic, int64_t pc, int mb, int kb,
                           float* dst) {
  for (int ir = 0; ir < mb; ir += MR)
    pack_a_panel_t<MR>(a, lda, ic + ir, pc, mb - ir < MR ? mb - ir : MR, kb,
                       dst + int64_t(ir) * kb);
}

}  // namespace ktune::kernels::gemm::cpu::packedz_detail
