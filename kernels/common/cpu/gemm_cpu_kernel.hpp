#pragma once
// The seed GEMM kernel on the CPU, column-major BLAS semantics:
//   C = alpha * op(A) * op(B) + beta * C   (C is not read when beta == 0, A and B not when
//   alpha == 0)
// A work item computes an R×C tile of C, stepping along K by A: it loads an R×A tile of op(A)
// and an A×C tile of op(B) into registers and does R·A·C FMAs. A work-group is a block of
// wg_x × wg_y tiles (x along M, y along N) owned by one thread task. Tiles are template
// parameters so each config is a separate instantiation, as on the GPU; so are the transposes,
// which makes the unit strides known to the compiler and lets it vectorize along R.
#include <algorithm>
#include <cstdint>

namespace ktune::kernels::gemm::cpu {

// The call's arguments, In: the element type of A and B (float; uint16_t for bf16, the 16 bits
// of each value as to_input_bits makes them); C is FP32 in both. One template, so that the
// packed kinds' task split (sub_problem, run_packed_tasks) serves the FP32 and bf16 kernels.
template <class In>
struct GemmArgs {
  bool transa = false, transb = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  float alpha = 1, beta = 0;
  const In* a = nullptr;
  int64_t lda = 0, stride_a = 0;
  const In* b = nullptr;
  int64_t ldb = 0, stride_b = 0;
  float* c = nullptr;
  int64_t ldc = 0, stride_c = 0;
};
using Args = GemmArgs<float>;
using Bf16Args = GemmArgs<uint16_t>;

namespace detail {

// One R×C tile whose top-left element is (i0, j0). Full tiles take the unchecked path; edge
// tiles clamp their loads (zero padding) and stores.
template <int R, int A, int C, bool TA, bool TB, bool kEdge>
inline void tile(const Args& g, const float* a, const float* b, float* c, int64_t i0, int64_t j0) {
  float acc[C][R] = {};  // column-major like C, so the innermost loop runs along contiguous rows
  const int64_t a_row = TA ? g.lda : 1, a_col = TA ? 1 : g.lda;  // op(A)(i,p)
  const int64_t b_row = TB ? g.ldb : 1, b_col = TB ? 1 : g.ldb;  // op(B)(p,j)
  for (int64_t p0 = 0; p0 < g.k; p0 += A) {
    const bool k_edge = p0 + A > g.k;
    float ra[R][A], rb[A][C];
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < A; ++q) {
        const int64_t i = i0 + r, p = p0 + q;
        ra[r][q] = ((kEdge && i >= g.m) || (k_edge && p >= g.k)) ? 0.f : a[i * a_row + p * a_col];
      }
    for (int q = 0; q < A; ++q)
      for (int cc = 0; cc < C; ++cc) {
        const int64_t p = p0 + q, j = j0 + cc;
        rb[q][cc] = ((kEdge && j >= g.n) || (k_edge && p >= g.k)) ? 0.f : b[p * b_row + j * b_col];
      }
    for (int q = 0; q < A; ++q)
      for (int cc = 0; cc < C; ++cc)
        for (int r = 0; r < R; ++r) acc[cc][r] += ra[r][q] * rb[q][cc];
  }
  for (int cc = 0; cc < C; ++cc)
    for (int r = 0; r < R; ++r) {
      const int64_t i = i0 + r, j = j0 + cc;
      if (kEdge && (i >= g.m || j >= g.n)) continue;
      float& out = c[i + j * g.ldc];
      out = g.beta == 0.f ? g.alpha * acc[cc][r] : g.alpha * acc[cc][r] + g.beta * out;
    }
}

}  // namespace detail

// Runs the whole GEMM with the given tile and work-group; threads through OpenMP, one task per
// work-group block (dynamic scheduling: edge blocks are cheaper). alpha == 0 runs with k = 0:
// BLAS reads neither A nor B then, so a NaN in them must not reach C.
template <int R, int A, int C, bool TA, bool TB>
void gemm_seed(const Args& args, int wg_x, int wg_y) {
  Args g = args;
  if (g.alpha == 0.f) g.k = 0;
  const int64_t block_rows = int64_t(wg_x) * R, block_cols = int64_t(wg_y) * C;
  const int64_t blocks_m = (g.m + block_rows - 1) / block_rows;
  const int64_t blocks_n = (g.n + block_cols - 1) / block_cols;
  const int64_t tasks = g.batch * blocks_m * blocks_n;
#pragma omp parallel for schedule(dynamic)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t batch = t / (blocks_m * blocks_n);
    const int64_t bm = t % blocks_m, bn = (t / blocks_m) % blocks_n;
    const float* a = g.a + batch * g.stride_a;
    const float* b = g.b + batch * g.stride_b;
    float* c = g.c + batch * g.stride_c;
    for (int ty = 0; ty < wg_y; ++ty) {
      const int64_t j0 = bn * block_cols + int64_t(ty) * C;
      if (j0 >= g.n) break;
      for (int tx = 0; tx < wg_x; ++tx) {
        const int64_t i0 = bm * block_rows + int64_t(tx) * R;
        if (i0 >= g.m) break;
        if (i0 + R <= g.m && j0 + C <= g.n)
          detail::tile<R, A, C, TA, TB, false>(g, a, b, c, i0, j0);
        else
          detail::tile<R, A, C, TA, TB, true>(g, a, b, c, i0, j0);
      }
    }
  }
}

}  // namespace ktune::kernels::gemm::cpu
