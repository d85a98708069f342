#pragma once
// The register tile of the CPU convolution plans (conv_cpu_plan.hpp, conv_cpu_winograd.hpp) and
// what they share: a convolution's Shape, the Epilogue fused into the tile's stores, 64-byte
// aligned buffers. The tile: kMR output channels × up to kNR pixels of C += A · B over K steps,
// A a filter panel packed kMR floats per K step, B the pixels' K steps read in place (ldb apart)
// or packed (kNR floats per step); 24 AVX-512 accumulators, the epilogue (bias, residual, ReLU)
// applied as the tile leaves the registers after the last K block. Without AVX-512 a plain C++
// tile (correct, slower).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace ktune::kernels::cpu_conv {

// A convolution's sizes (NHWC input n×h×w×c, KRSC filter k×r×s×c, symmetric zero padding), the
// fields and order of the conv2d family's Shape: a building block of kernels/common names no
// family, so the plan has its own.
struct Shape {
  int64_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, s = 1, stride = 1, pad = 0;
  int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
  int64_t gemm_m() const { return n * p() * q(); }  // output pixels
  int64_t gemm_k() const { return c * r * s; }      // dot product length
};

// What is applied to each output after the convolution, in this order: + bias[k] (when given),
// + residual (same NHWC layout as the output, when given; may alias nothing else), ReLU.
struct Epilogue {
  const float* bias = nullptr;
  const float* residual = nullptr;
  bool relu = false;
};

namespace plan_detail {

constexpr int kMR = 32;  // output channels per register tile: two zmm
constexpr int kNR = 12;  // pixels per register tile

struct FreeFloats {
  void operator()(float* p) const { std::free(p); }
};
using Floats = std::unique_ptr<float[], FreeFloats>;

// 64-byte aligned (zmm loads of whole cache lines), uninitialised.
inline Floats aligned_floats(size_t count) {
  const size_t bytes = (std::max<size_t>(count, 1) * sizeof(float) + 63) / 64 * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (p == nullptr) throw std::bad_alloc();
  return Floats(p);
}

// A run of K steps of a tile's patches: kb steps from b, pixel j's value at b[j · ldb] (in place)
// or b[j] (packed: kNR floats per step). A tile runs several (the filter rows of a window) with
// its accumulators in registers.
struct Segment {
  const float* b;
  int64_t ldb;
  int kb;
};

// The tile's view of where it writes and what follows the last K block.
struct TileOut {
  float* c;           // C at the tile's origin (row = channel, column = pixel), ldc floats apart
  const float* res;   // residual at the same place, or nullptr
  const float* bias;  // bias at the tile's first channel, or nullptr
  int64_t ldc;
  int rows;  // valid channels, 1..kMR
  bool first, last, relu;
};

#if defined(__AVX512F__)
inline __mmask16 lanes(int n) {
  return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// kMR × NC (NC <= kNR pixels) over the K steps of segments seg[0, nseg) of a filter panel a (kMR
// per step, all segments' steps in a row) and patches: a packed panel (Packed: kNR per step) or
// the input in place (pixel j's K steps contiguous, ldb apart); adds C's partial sums unless
// first; the epilogue when last.
// Not inlined: inlined into the plan's task loop, GCC kept the segment pointers in spill slots
// (xmm31, the stack) and reloaded them inside the K loop; called, the loop has the registers to
// itself (VGG16's stem: minima 1.14-1.19 -> 1.08-1.11 ms, ResNet-50's 1.25-1.29 -> 1.19-1.21,
// three interleaved runs each, 2 threads, loaded EPYC; the other layers within the noise).
template <int NC, bool Packed>
[[gnu::noinline]] void tile(const Segment* seg, int nseg, const float* __restrict a,
                            const TileOut& o) {
  const __mmask16 m0 = lanes(o.rows), m1 = lanes(o.rows - 16);
  __m512 acc[NC][2];
#pragma GCC unroll 12
  for (int j = 0; j < NC; ++j) {
    if (o.first) {
      acc[j][0] = _mm512_setzero_ps();
      acc[j][1] = _mm512_setzero_ps();
      // The lines this tile will store, fetched for writing while it computes (PREFETCHW):
      // perf put VGG16's stem (27 K steps per tile) mostly on the stores' misses; minima 0.66-0.86
      // ms with vs 0.73-1.06 without (2 threads, loaded EPYC, 8 runs each; others unchanged).
      __builtin_prefetch(o.c + j * o.ldc, 1, 3);
      __builtin_prefetch(o.c + j * o.ldc + 16, 1, 3);
    } else {
      acc[j][0] = _mm512_maskz_loadu_ps(m0, o.c + j * o.ldc);
      acc[j][1] = _mm512_maskz_loadu_ps(m1, o.c + j * o.ldc + 16);
    }
    // The residual this tile adds at the end, fetched while it computes: written layers ago
    // (ResNet-50's 56×56×256 maps: 3 MB), it is rarely in L2 any more, and its misses at the
    // stores cost a fused conv + add more than oneDNN's separate add.
    if (o.last && o.res) {
      __builtin_prefetch(o.res + j * o.ldc, 0, 3);
      __builtin_prefetch(o.res + j * o.ldc + 16, 0, 3);
    }
  }
  for (int g = 0; g < nseg; ++g) {
    const int64_t ldb = Packed ? 1 : seg[g].ldb;
    // Pixel j's value at base[j / 3][(j % 3)·ldb]: four pointers and ldb address all 12 pixels
    // (x86 scales the index by 4 and 8). With b[j·ldb] the compiler kept the offsets on the
    // stack: perf put about a fifth of VGG16's stem (9-step segments) on reloading them; minima
    // 0.79-0.88 ms now vs 0.89-1.04 before (2 threads, loaded EPYC, three runs each).
    const float* __restrict base[4];
    for (int q = 0; q < 4; ++q) base[q] = seg[g].b + (Packed ? 3 * q : 3 * q * ldb);
    for (int p = 0; p < seg[g].kb; ++p, a += kMR) {
      const __m512 a0 = _mm512_load_ps(a), a1 = _mm512_load_ps(a + 16);
#pragma GCC unroll 12
      for (int j = 0; j < NC; ++j) {
        const __m512 bj = _mm512_set1_ps(base[j / 3][j % 3 * ldb]);
        acc[j][0] = _mm512_fmadd_ps(a0, bj, acc[j][0]);
        acc[j][1] = _mm512_fmadd_ps(a1, bj, acc[j][1]);
      }
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) base[q] += Packed ? kNR : 1;
    }
  }
  if (o.last) {
    const __m512 b0 = o.bias ? _mm512_maskz_loadu_ps(m0, o.bias) : _mm512_setzero_ps();
    const __m512 b1 = o.bias ? _mm512_maskz_loadu_ps(m1, o.bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
    for (int j = 0; j < NC; ++j) {
      acc[j][0] = _mm512_add_ps(acc[j][0], b0);
      acc[j][1] = _mm512_add_ps(acc[j][1], b1);
      if (o.res) {
        acc[j][0] = _mm512_add_ps(acc[j][0], _mm512_maskz_loadu_ps(m0, o.res + j * o.ldc));
        acc[j][1] = _mm512_add_ps(acc[j][1], _mm512_maskz_loadu_ps(m1, o.res + j * o.ldc + 16));
      }
      if (o.relu) {  // keep the lanes > 0 (not _mm512_max_ps: GCC 12 warns inside it)
        const __m512 zero = _mm512_setzero_ps();
        acc[j][0] = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(acc[j][0], zero, _CMP_GT_OQ), acc[j][0]);
        acc[j][1] = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(acc[j][1], zero, _CMP_GT_OQ), acc[j][1]);
      }
    }
  }
#pragma GCC unroll 12
  for (int j = 0; j < NC; ++j) {
    _mm512_mask_storeu_ps(o.c + j * o.ldc, m0, acc[j][0]);
    _mm512_mask_storeu_ps(o.c + j * o.ldc + 16, m1, acc[j][1]);
  }
}
#else
template <int NC, bool Packed>
inline void tile(const Segment* seg, int nseg, const float* a, const TileOut& o) {
  float acc[NC][kMR] = {};
  for (int g = 0; g < nseg; ++g) {
    const float* b = seg[g].b;
    for (int p = 0; p < seg[g].kb; ++p, a += kMR)
      for (int j = 0; j < NC; ++j)
        for (int i = 0; i < kMR; ++i)
          acc[j][i] += a[i] * (Packed ? b[p * kNR + j] : b[j * seg[g].ldb + p]);
  }
  for (int j = 0; j < NC; ++j)
    for (int i = 0; i < o.rows; ++i) {
      float v = acc[j][i] + (o.first ? 0.f : o.c[j * o.ldc + i]);
      if (o.last) {
        if (o.bias) v += o.bias[i];
        if (o.res) v += o.res[j * o.ldc + i];
        if (o.relu) v = std::max(v, 0.f);
      }
      o.c[j * o.ldc + i] = v;
    }
}
#endif

// tile<cols> for 1..kNR valid pixels (edge panels compute only their columns).
template <bool Packed, int NC = kNR>
inline void any_tile(int cols, const Segment* seg, int nseg, const float* a, const TileOut& o) {
  if constexpr (NC > 1) {
    if (cols < NC) return any_tile<Packed, NC - 1>(cols, seg, nseg, a, o);
  }
  tile<NC, Packed>(seg, nseg, a, o);
}

// One segment of kb steps.
template <bool Packed>
inline void any_tile(int cols, int kb, const float* a, const float* b, int64_t ldb,
                     const TileOut& o) {
  const Segment seg{b, ldb, kb};
  any_tile<Packed>(cols, &seg, 1, a, o);
}

}  // namespace plan_detail

}  // namespace ktune::kernels::cpu_conv
