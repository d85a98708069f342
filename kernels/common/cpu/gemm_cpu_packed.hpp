#pragma once
// The packed CPU GEMM kernel (kind `packed`), the BLIS/GotoBLAS design, column-major BLAS
// semantics C = alpha*op(A)*op(B) + beta*C (C not read when beta == 0):
//   for jc (nc columns of C)  for pc (kc of K): pack op(B) kc×nc into NR-column panels
//     for ic (mc rows of C):  pack op(A) mc×kc into MR-row panels
//       for jr, ir: MR×NR micro-tile held in SIMD registers, kc rank-1 updates.
// Panels are zero-padded at the edges so the micro-kernel never branches; edge micro-tiles are
// written through a small buffer, and row tails compute only the vectors they need (4 lanes for
// 1..4 rows). The transposes only change the packing routines. Vectors are GCC/Clang vector
// extensions of 8 (and 4) floats, so the code compiles anywhere and becomes AVX2/FMA under
// -march=x86-64-v3 or native. Threads (the caller and the helpers of gemm_cpu_pool.hpp, as many
// as OpenMP's thread count) claim (batch entry, part of C) tasks, each with its own thread-local
// packed panels and no barrier.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"  // Args
#include "kernels/common/cpu/gemm_cpu_packed_split.hpp"
#include "kernels/common/cpu/gemm_cpu_pool.hpp"

namespace ktune::kernels::gemm::cpu {

namespace packed_detail {

constexpr int kLanes = 8;  // floats per 256-bit vector: MR is a multiple of this
typedef float Vec __attribute__((vector_size(32)));
typedef float Vec4 __attribute__((vector_size(16)));  // short row tails (rows <= 4)
// Where the target has AVX-512 (kHaveZmm), the kernels' Zmm variant holds 16 rows per register
// in tiles of 16 or more rows (and 8 in a 256-bit one when MR is an odd multiple of 8): half
// the FMA instructions for the same work. The other variant is the portable 8-lane code.
#if defined(__AVX512F__)
constexpr bool kHaveZmm = true;
constexpr int kWideLanes = 16;
typedef float Wide __attribute__((vector_size(64)));
#else
constexpr bool kHaveZmm = false;
#endif

template <class V>
inline V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);  // one unaligned vector load; avoids aliasing casts
  return v;
}
template <class V>
inline void store(float* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

// acc + a*b as one fused instruction where the target has FMA (the compiler would not contract
// a*b + c under ISO C++ flags).
inline Vec fma(Vec a, float b, Vec acc) {
#if defined(__FMA__)
  return _mm256_fmadd_ps(a, _mm256_set1_ps(b), acc);
#else
  return a * b + acc;
#endif
}
inline Vec4 fma(Vec4 a, float b, Vec4 acc) {
#if defined(__FMA__)
  return _mm_fmadd_ps(a, _mm_set1_ps(b), acc);
#else
  return a * b + acc;
#endif
}
#if defined(__AVX512F__)
inline Wide fma(Wide a, float b, Wide acc) { return _mm512_fmadd_ps(a, _mm512_set1_ps(b), acc); }
#endif

// 64-byte aligned scratch that grows and is reused (one per thread and role, thread_local), so
// nothing is allocated per call once the buffers have reached their size.
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { std::free(data_); }
  float* get(size_t count) {
    if (count > size_) {
      std::free(data_);
      size_ = 0;
      const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
      data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (data_ == nullptr) throw std::bad_alloc();
      size_ = count;
    }
    return data_;
  }

 private:
  float* data_ = nullptr;
  size_t size_ = 0;
};

inline float* scratch_a(size_t count) {
  thread_local Scratch s;
  return s.get(count);
}
inline float* scratch_b(size_t count) {
  thread_local Scratch s;
  return s.get(count);
}

// One MR-row panel of op(A): rows [i0, i0 + rows) and K [p0, p0 + kb), stored p-major
// (MR floats per k), rows >= `rows` zero.
template <int MR, bool TA>
inline void pack_a_panel(const float* a, int64_t lda, int64_t i0, int64_t p0, int rows, int kb,
                         float* dst) {
  if constexpr (!TA) {  // op(A)(i,p) = a[i + p*lda]: each k holds MR contiguous rows
    const float* src = a + i0 + p0 * lda;
    if (rows == MR) {
      for (int p = 0; p < kb; ++p)
        for (int r = 0; r < MR; ++r) dst[p * MR + r] = src[p * lda + r];
    } else {
      for (int p = 0; p < kb; ++p) {
        for (int r = 0; r < rows; ++r) dst[p * MR + r] = src[p * lda + r];
        for (int r = rows; r < MR; ++r) dst[p * MR + r] = 0.f;
      }
    }
  } else {  // op(A)(i,p) = a[p + i*lda]: each row is contiguous along K
    for (int r = 0; r < rows; ++r) {
      const float* src = a + p0 + (i0 + r) * lda;
      for (int p = 0; p < kb; ++p) dst[p * MR + r] = src[p];
    }
    for (int r = rows; r < MR; ++r)
      for (int p = 0; p < kb; ++p) dst[p * MR + r] = 0.f;
  }
}

// One NR-column panel of op(B): K [p0, p0 + kb), columns [j0, j0 + cols), stored p-major
// (NR floats per k), columns >= `cols` zero.
template <int NR, bool TB>
inline void pack_b_panel(const float* b, int64_t ldb, int64_t p0, int64_t j0, int cols, int kb,
                         float* dst) {
  if constexpr (!TB) {  // op(B)(p,j) = b[p + j*ldb]: NR column streams, contiguous writes
    const float* src[NR];
    for (int j = 0; j < NR; ++j) src[j] = b + p0 + (j0 + std::min(j, cols - 1)) * ldb;
    if (cols == NR) {
      for (int p = 0; p < kb; ++p)
        for (int j = 0; j < NR; ++j) dst[p * NR + j] = src[j][p];
    } else {
      for (int p = 0; p < kb; ++p)
        for (int j = 0; j < NR; ++j) dst[p * NR + j] = j < cols ? src[j][p] : 0.f;
    }
  } else {  // op(B)(p,j) = b[j + p*ldb]: each k holds NR contiguous columns
    const float* src = b + j0 + p0 * ldb;
    if (cols == NR) {
      for (int p = 0; p < kb; ++p)
        for (int j = 0; j < NR; ++j) dst[p * NR + j] = src[p * ldb + j];
    } else {
      for (int p = 0; p < kb; ++p) {
        for (int j = 0; j < cols; ++j) dst[p * NR + j] = src[p * ldb + j];
        for (int j = cols; j < NR; ++j) dst[p * NR + j] = 0.f;
      }
    }
  }
}

// The MR×NR micro-tile: kb rank-1 updates from an A panel (MR floats per k) and a B panel (NR
// per k), then C_tile = alpha*acc + beta*C_tile (C not read when beta == 0). Only the first
// U vectors of L lanes (then T8 vectors of 8 lanes) of each A column are computed, so row
// tails (rows < MR) do not pay for the zero padding. S sets of accumulators take alternate k
// steps and are summed at the end (more FMA chains in flight). Edge tiles (rows < MR or
// cols < NR) are written through a buffer.
template <int MR, int NR, class V, int U, int T8, int S>
inline void micro_tile(int kb, const float* __restrict ap, const float* __restrict bp, float* c,
                       int64_t ldc, int rows, int cols, float alpha, float beta) {
  constexpr int L = int(sizeof(V) / sizeof(float));
  constexpr int R = U * L + T8 * kLanes;  // rows computed
  static_assert(R <= MR && T8 <= 1, "the tile computes at most MR rows");
  static_assert(S == 1 || S == 2, "one or two accumulator sets");
  V acc[S][NR][U];
  Vec tail[S][NR];  // rows U*L .. R when T8 == 1
#pragma GCC unroll 2
  for (int s = 0; s < S; ++s)
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) acc[s][j][u] = V{};
      tail[s][j] = Vec{};
    }
  // One k step into accumulator set s.
  auto step = [&](int s, const float* a, const float* b) __attribute__((always_inline)) {
    V av[U];
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) av[u] = load<V>(a + u * L);
    [[maybe_unused]] const Vec at = T8 == 1 ? load<Vec>(a + U * L) : Vec{};
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      const float bj = b[j];
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) acc[s][j][u] = fma(av[u], bj, acc[s][j][u]);
      if constexpr (T8 == 1) tail[s][j] = fma(at, bj, tail[s][j]);
    }
  };
  int p = 0;
  for (; p + S <= kb; p += S) {
#pragma GCC unroll 2
    for (int s = 0; s < S; ++s) step(s, ap + s * MR, bp + s * NR);
    ap += S * MR;
    bp += S * NR;
  }
  for (; p < kb; ++p, ap += MR, bp += NR) step(0, ap, bp);
#pragma GCC unroll 2
  for (int s = 1; s < S; ++s)
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) acc[0][j][u] += acc[s][j][u];
      tail[0][j] += tail[s][j];
    }
  if (R == MR && rows == MR && cols == NR) {
    if (beta == 0.f) {
#pragma GCC unroll 16
      for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u) store(c + j * ldc + u * L, alpha * acc[0][j][u]);
        if constexpr (T8 == 1) store(c + j * ldc + U * L, alpha * tail[0][j]);
      }
    } else {
#pragma GCC unroll 16
      for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u) {
          float* cu = c + j * ldc + u * L;
          store(cu, alpha * acc[0][j][u] + beta * load<V>(cu));
        }
        if constexpr (T8 == 1) {
          float* ct = c + j * ldc + U * L;
          store(ct, alpha * tail[0][j] + beta * load<Vec>(ct));
        }
      }
    }
    return;
  }
  alignas(64) float buf[NR][R];
  for (int j = 0; j < NR; ++j) {
    for (int u = 0; u < U; ++u) store(&buf[j][u * L], acc[0][j][u]);
    if constexpr (T8 == 1) store(&buf[j][U * L], tail[0][j]);
  }
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      float& out = c[i + j * ldc];
      out = beta == 0.f ? alpha * buf[j][i] : alpha * buf[j][i] + beta * out;
    }
}

// Accumulator sets of a tile holding NR * regs registers: two where the Zmm variant has the
// 32 registers of AVX-512 to hold them (an FMA's latency needs more chains in flight than
// small tiles have), else one.
constexpr int accumulator_sets(bool zmm, int nr, int regs) {
  return zmm && 2 * nr * regs <= 24 ? 2 : 1;
}

// Picks the micro-tile variant that computes the fewest padded rows for `rows` valid ones.
template <int MR, int NR, bool Zmm>
inline void any_micro_tile(int kb, const float* ap, const float* bp, float* c, int64_t ldc,
                           int rows, int cols, float alpha, float beta) {
#if defined(__AVX512F__)
  if constexpr (Zmm && MR >= kWideLanes) {  // MR = 16 Z + 8 T8
    constexpr int Z = MR / kWideLanes, T8 = MR % kWideLanes / kLanes;
    if (rows > MR - kLanes)
      return micro_tile<MR, NR, Wide, Z, T8, accumulator_sets(Zmm, NR, Z + T8)>(
          kb, ap, bp, c, ldc, rows, cols, alpha, beta);
    if (rows > kLanes && rows <= kWideLanes)
      return micro_tile<MR, NR, Wide, 1, 0, accumulator_sets(Zmm, NR, 1)>(kb, ap, bp, c, ldc, rows,
                                                                          cols, alpha, beta);
  }
#endif
  static_assert(!Zmm || kHaveZmm, "the Zmm variant needs an AVX-512 target");
  constexpr int S1 = accumulator_sets(Zmm, NR, 1);
  if (rows > MR - kLanes) {
    micro_tile<MR, NR, Vec, MR / kLanes, 0, accumulator_sets(Zmm, NR, MR / kLanes)>(
        kb, ap, bp, c, ldc, rows, cols, alpha, beta);
  } else if (rows <= 4) {
    micro_tile<MR, NR, Vec4, 1, 0, S1>(kb, ap, bp, c, ldc, rows, cols, alpha, beta);
  } else if constexpr (MR >= 2 * kLanes) {
    if (rows <= kLanes)
      micro_tile<MR, NR, Vec, 1, 0, S1>(kb, ap, bp, c, ldc, rows, cols, alpha, beta);
    else if constexpr (MR >= 3 * kLanes)
      micro_tile<MR, NR, Vec, 2, 0, accumulator_sets(Zmm, NR, 2)>(kb, ap, bp, c, ldc, rows, cols,
                                                                  alpha, beta);
  }
}

// The cache blocks; packed buffer sizes are rounded to whole panels.
struct Blocking {
  int kc, mc, nc;
  int64_t a_panel_floats(int mr) const { return (int64_t(mc) + mr - 1) / mr * mr * kc; }
  int64_t b_panel_floats(int nr) const { return (int64_t(nc) + nr - 1) / nr * nr * kc; }
};

// Panels [ip_begin, ip_end) of a packed mc×kc block of A times panels [jp_begin, jp_end) of the
// packed kc×nc block of B; c is C at the blocks' origin.
template <int MR, int NR, bool Zmm>
inline void macro_kernel(const float* apack, const float* bpack, int mb, int kb, int nb,
                         int64_t ip_begin, int64_t ip_end, int64_t jp_begin, int64_t jp_end,
                         float* c, int64_t ldc, float alpha, float beta) {
  for (int64_t jp = jp_begin; jp < jp_end; ++jp) {
    const int jr = int(jp) * NR;
    const int cols = std::min(NR, nb - jr);
    for (int64_t ip = ip_begin; ip < ip_end; ++ip) {
      const int ir = int(ip) * MR;
      const int rows = std::min(MR, mb - ir);
      any_micro_tile<MR, NR, Zmm>(kb, apack + int64_t(ir) * kb, bpack + int64_t(jr) * kb,
                                  c + ir + jr * ldc, ldc, rows, cols, alpha, beta);
    }
  }
}

// Panels [ip_begin, ip_end) of the mc×kc block of op(A) at (ic, pc), each at its place in dst.
template <int MR, bool TA>
inline void pack_a_block(const float* a, int64_t lda, int64_t ic, int64_t pc, int mb, int kb,
                         int64_t ip_begin, int64_t ip_end, float* dst) {
  for (int64_t ip = ip_begin; ip < ip_end; ++ip) {
    const int ir = int(ip) * MR;
    pack_a_panel<MR, TA>(a, lda, ic + ir, pc, std::min(MR, mb - ir), kb, dst + int64_t(ir) * kb);
  }
}

// C = beta*C (alpha == 0 or k == 0: BLAS reads neither A nor B; beta == 0 writes zeros).
inline void scale_c(float* c, int64_t ldc, int64_t m, int64_t n, float beta) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) c[i + j * ldc] = beta == 0.f ? 0.f : beta * c[i + j * ldc];
}

// One GEMM on the calling thread alone.
template <int MR, int NR, bool TA, bool TB, bool Zmm>
void gemm_solo(const Args& g, const Blocking& bl, const float* a, const float* b, float* c) {
  float* bpack = scratch_b(size_t(bl.b_panel_floats(NR)));
  float* apack = scratch_a(size_t(bl.a_panel_floats(MR)));
  for (int64_t jc = 0; jc < g.n; jc += bl.nc) {
    const int nb = int(std::min<int64_t>(bl.nc, g.n - jc));
    const int64_t panels = (nb + NR - 1) / NR;
    for (int64_t pc = 0; pc < g.k; pc += bl.kc) {
      const int kb = int(std::min<int64_t>(bl.kc, g.k - pc));
      const float beta = pc == 0 ? g.beta : 1.f;
      for (int64_t jp = 0; jp < panels; ++jp) {
        const int jr = int(jp) * NR;
        pack_b_panel<NR, TB>(b, g.ldb, pc, jc + jr, std::min(NR, nb - jr), kb,
                             bpack + int64_t(jr) * kb);
      }
      for (int64_t ic = 0; ic < g.m; ic += bl.mc) {
        const int mb = int(std::min<int64_t>(bl.mc, g.m - ic));
        const int64_t a_panels = (mb + MR - 1) / MR;
        pack_a_block<MR, TA>(a, g.lda, ic, pc, mb, kb, 0, a_panels, apack);
        macro_kernel<MR, NR, Zmm>(apack, bpack, mb, kb, nb, 0, a_panels, 0, panels,
                                  c + ic + jc * g.ldc, g.ldc, g.alpha, beta);
      }
    }
  }
}

// Rows [i0, i0 + rows) and columns [j0, j0 + cols) of batch entry e as a GEMM of its own
// (G: Args, or Bf16Args for the bf16 kernels).
template <bool TA, bool TB, class G>
inline G sub_problem(const G& g, int64_t e, int64_t i0, int64_t rows, int64_t j0, int64_t cols) {
  G s = g;
  s.m = rows;
  s.n = cols;
  s.batch = 1;
  s.a = g.a + e * g.stride_a + (TA ? i0 * g.lda : i0);
  s.b = g.b + e * g.stride_b + (TB ? j0 : j0 * g.ldb);
  s.c = g.c + e * g.stride_c + i0 + j0 * g.ldc;
  return s;
}

// Runs solo(sub-GEMM) over the whole GEMM on the calling thread and up to OpenMP's thread
// count of pool helpers (gemm_cpu_pool.hpp): each batch entry's C is cut into a grid of parts
// on MR×NR micro-tile boundaries, so that the tasks divide evenly among the threads; every task
// runs the whole blocked loop nest alone with its own packed panels. Threads claim tasks one at
// a time: a thread that is descheduled on a busy machine delays only the task it holds.
// Problems too small to pay for waking a helper run alone. Shared by the packed kinds.
template <int MR, int NR, bool TA, bool TB, class G, class Solo>
void run_packed_tasks(const G& g, Solo&& solo) {
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0) return;
  if (g.k <= 0 || g.alpha == 0.f) {
    for (int64_t e = 0; e < g.batch; ++e) scale_c(g.c + e * g.stride_c, g.ldc, g.m, g.n, g.beta);
    return;
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
  if (omp_in_parallel()) threads = 1;  // nested call: this thread alone
#endif
  const double work = double(g.m) * double(g.n) * double(g.k) * double(g.batch);
  if (work < 64.0 * 1024) threads = 1;  // waking a helper costs more than it saves

  if (threads == 1) {
    for (int64_t e = 0; e < g.batch; ++e) {
      const G s = sub_problem<TA, TB>(g, e, 0, g.m, 0, g.n);
      solo(s);
    }
    return;
  }
  const int64_t parts = task_parts(g.batch, threads, kTasksPerThread);
  const int64_t row_panels = (g.m + MR - 1) / MR, col_panels = (g.n + NR - 1) / NR;
  const Split grid = choose_split(parts, row_panels, col_panels);
  auto task = [&](int64_t t) {
    const int64_t e = t / (grid.ci * grid.cj);
    const int64_t pi = t / grid.cj % grid.ci, pj = t % grid.cj;
    const int64_t i0 = pi * row_panels / grid.ci * MR;
    const int64_t i1 = std::min(g.m, (pi + 1) * row_panels / grid.ci * MR);
    const int64_t j0 = pj * col_panels / grid.cj * NR;
    const int64_t j1 = std::min(g.n, (pj + 1) * col_panels / grid.cj * NR);
    if (i1 <= i0 || j1 <= j0) return;
    const G s = sub_problem<TA, TB>(g, e, i0, i1 - i0, j0, j1 - j0);
    solo(s);
  };
  run_tasks(g.batch * grid.ci * grid.cj, threads, task);
}

}  // namespace packed_detail

// The packed GEMM with an MR×NR micro-tile (MR a multiple of 8) and cache blocks kc, mc, nc
// (positive; any values work, multiples of MR/NR are efficient), threads as in
// run_packed_tasks. Zmm: the AVX-512 variant (the default where the target has it; tests also
// run the portable one).
template <int MR, int NR, bool TA, bool TB, bool Zmm = packed_detail::kHaveZmm>
void gemm_packed(const Args& g, int kc, int mc, int nc) {
  static_assert(MR % packed_detail::kLanes == 0 && NR > 0, "MR must be a multiple of 8");
  using namespace packed_detail;
  const Blocking bl{kc, mc, nc};
  run_packed_tasks<MR, NR, TA, TB>(
      g, [&](const Args& s) { gemm_solo<MR, NR, TA, TB, Zmm>(s, bl, s.a, s.b, s.c); });
}

}  // namespace ktune::kernels::gemm::cpu
