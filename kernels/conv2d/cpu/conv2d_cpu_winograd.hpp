#pragma once
// Kind cpu_winograd: F(m×m, 3×3) for 3×3 stride-1 layers (Lavin & Gray's formulation), m = 2
// or 4, α = m + 2:
//   filter transform  U[ξ][k][c] = (G g G^T)[ξ]             (every call, unless pretransformed)
//   input transform   V[ξ][t][c] = (B^T d B)[ξ] per α×α input tile d (stride m, zero padded)
//   α² GEMMs          M[ξ][t][k] = Σ_c U[ξ][k][c] V[ξ][t][c] (ktune's packed GEMM, batched)
//   output transform  Y = A^T M A, the m×m outputs of tile t (clipped at the image border)
// `tiles` tiles go through the input transform, GEMMs and output transform together, so V and M
// stay small. Transforms are vectorized over 8 channels (c for the input and filter, k for the
// output), which are contiguous in NHWC and KRSC.
// Templates over the GEMM call (`gemm(const gemm::cpu::Args&)`), so that the sweep runs them
// through the packed kernel's run-time dispatch and a deployed library through the one
// instantiation it ships. The callers check the parameters (3×3 stride 1, m, tiles ≥ 1).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/common/cpu/winograd_tables.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_args.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_vec.hpp"

namespace ktune::kernels::conv2d::cpu::winograd_detail {

using simd::Vec;

using winograd::sandwich;
using winograd::Tables;

template <int M>
struct Geometry {
  static constexpr int kAlpha = M + 2;
  int64_t P, Q, th, tw, tiles;
  explicit Geometry(const Shape& s)
      : P(s.p()), Q(s.q()), th((P + M - 1) / M), tw((Q + M - 1) / M), tiles(s.n * th * tw) {}

  // A transform job: tile `first + i` (image n, tile row ty, column tx) and 8 channels from ch0
  // (lanes of them real) of `channels`.
  struct Job {
    int64_t i, n, ty, tx, ch0;
    int lanes;
  };
  Job job(int64_t index, int64_t first, int64_t channels) const {
    const int64_t blocks = (channels + simd::kLanes - 1) / simd::kLanes;
    const int64_t i = index / blocks, ch0 = index % blocks * simd::kLanes, t = first + i;
    return {i,      t / (th * tw), t / tw % th,
            t % tw, ch0,           int(std::min<int64_t>(simd::kLanes, channels - ch0))};
  }
  static int64_t jobs(int64_t count, int64_t channels) {
    return count * ((channels + simd::kLanes - 1) / simd::kLanes);
  }
};

template <int M>
void transform_filter(const Shape& s, const float* filter, float* u) {
  constexpr int kA = M + 2;
  const int64_t kc = s.k * s.c;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < s.k; ++k)
    for (int64_t c0 = 0; c0 < s.c; c0 += simd::kLanes) {
      const int nc = int(std::min<int64_t>(simd::kLanes, s.c - c0));
      Vec g[3][3], out[kA][kA];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          g[a][b] = simd::load_partial(filter + ((k * 3 + a) * 3 + b) * s.c + c0, nc);
      // G g G^T: G is α×3, so apply it as the sandwich of the 3×3 g padded to rows of G.
      Vec tmp[kA][3];
      for (int i = 0; i < kA; ++i)
        for (int b = 0; b < 3; ++b) {
          Vec acc = {};
          for (int a = 0; a < 3; ++a) acc += Tables<M>::G[i][a] * g[a][b];
          tmp[i][b] = acc;
        }
      for (int i = 0; i < kA; ++i)
        for (int j = 0; j < kA; ++j) {
          Vec acc = {};
          for (int b = 0; b < 3; ++b) acc += Tables<M>::G[j][b] * tmp[i][b];
          out[i][j] = acc;
        }
      for (int i = 0; i < kA; ++i)
        for (int j = 0; j < kA; ++j)
          simd::store_partial(u + (i * kA + j) * kc + k * s.c + c0, out[i][j], nc);
    }
}

// V[ξ][t - first][c] for tiles [first, first + count); ξ planes `plane` floats apart.
template <int M>
void transform_input(const Shape& s, const Geometry<M>& geo, const float* input, int64_t first,
                     int64_t count, int64_t plane, float* v) {
  constexpr int kA = M + 2;
#pragma omp parallel for schedule(static)
  for (int64_t index = 0; index < geo.jobs(count, s.c); ++index) {
    const auto [i, n, ty, tx, c0, nc] = geo.job(index, first, s.c);
    const int64_t y0 = ty * M - s.pad, x0 = tx * M - s.pad;
    Vec d[kA][kA], out[kA][kA];
    for (int a = 0; a < kA; ++a)
      for (int b = 0; b < kA; ++b) {
        const int64_t y = y0 + a, x = x0 + b;
        d[a][b] = y >= 0 && y < s.h && x >= 0 && x < s.w
                      ? simd::load_partial(input + ((n * s.h + y) * s.w + x) * s.c + c0, nc)
                      : Vec{};
      }
    sandwich<kA, kA>(Tables<M>::BT, d, out);
    for (int a = 0; a < kA; ++a)
      for (int b = 0; b < kA; ++b)
        simd::store_partial(v + (a * kA + b) * plane + i * s.c + c0, out[a][b], nc);
  }
}

template <int M>
void transform_output(const Shape& s, const Geometry<M>& geo, const float* mm, int64_t first,
                      int64_t count, int64_t plane, float* output) {
  constexpr int kA = M + 2;
#pragma omp parallel for schedule(static)
  for (int64_t index = 0; index < geo.jobs(count, s.k); ++index) {
    const auto [i, n, ty, tx, k0, nk] = geo.job(index, first, s.k);
    Vec m[kA][kA], y[M][M];
    for (int a = 0; a < kA; ++a)
      for (int b = 0; b < kA; ++b)
        m[a][b] = simd::load_partial(mm + (a * kA + b) * plane + i * s.k + k0, nk);
    sandwich<M, kA>(Tables<M>::AT, m, y);
    for (int a = 0; a < M && ty * M + a < geo.P; ++a)
      for (int b = 0; b < M && tx * M + b < geo.Q; ++b)
        simd::store_partial(output + ((n * geo.P + ty * M + a) * geo.Q + tx * M + b) * s.k + k0,
                            y[a][b], nk);
  }
}

// The convolution with u = the transformed filter, or nullptr to transform it here.
template <int M, typename Gemm>
void run(const Args& args, int tiles, const float* u, const Gemm& gemm) {
  constexpr int kA = M + 2;
  const Shape& s = args.shape;
  const Geometry<M> geo(s);
  thread_local std::vector<float> filter_t, v, mm;  // reused across calls of this thread
  if (u == nullptr) {
    filter_t.resize(size_t(kA * kA * s.k * s.c));
    transform_filter<M>(s, args.filter, filter_t.data());
    u = filter_t.data();
  }
  const int64_t block = std::min<int64_t>(tiles, geo.tiles);
  v.resize(size_t(kA * kA * block * s.c));
  mm.resize(size_t(kA * kA * block * s.k));
  for (int64_t first = 0; first < geo.tiles; first += block) {
    const int64_t count = std::min(block, geo.tiles - first);
    transform_input<M>(s, geo, args.input, first, count, block * s.c, v.data());
    gemm::cpu::Args a;  // M[ξ] (k × count) = U[ξ] (k × c) · V[ξ] (c × count), column-major
    a.transa = true;
    a.m = s.k;
    a.n = count;
    a.k = s.c;
    a.batch = kA * kA;
    a.a = u;
    a.lda = s.c;
    a.stride_a = s.k * s.c;
    a.b = v.data();
    a.ldb = s.c;
    a.stride_b = block * s.c;
    a.c = mm.data();
    a.ldc = s.k;
    a.stride_c = block * s.k;
    gemm(a);
    transform_output<M>(s, geo, mm.data(), first, count, block * s.k, args.output);
  }
}

}  // namespace ktune::kernels::conv2d::cpu::winograd_detail
