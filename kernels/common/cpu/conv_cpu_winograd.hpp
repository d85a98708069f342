#pragma once
// The CPU conv plan's Winograd path (conv_cpu_plan.hpp chooses it): F(m×m, 3×3), m = 2 or 4,
// α = m + 2, for 3×3 stride-1 layers (any padding). F(4×4) does 36 multiplies per 16 outputs
// where direct convolution does 144: a quarter of the flops, plus transforms.
//   at construction  U[ξ] = (G g G^T)[ξ] per (k, c), computed in float64 and packed as the
//                    register tile's filter panels (kMR channels per c step): never per call;
//   per block of T tiles (α×α input tiles at stride m), three phases on the shared thread pool:
//   1. input         V[ξ][t][c] = (B^T d B)[ξ], 16 channels per AVX-512 vector, zero padding
//                    read as zeros at the image border;
//   2. α² GEMMs      M[ξ][t][k] = Σ_c U[ξ][k][c] V[ξ][t][c]: the conv plan's 32 × 12 register
//                    tile over the packed U and V read in place (tile t's c values contiguous,
//                    as a 1×1 layer's input), one task per ξ, all of c in one block;
//   3. output        Y = A^T M A per tile, 16 output channels per vector, then bias, residual
//                    and ReLU (the Epilogue) before the one store, clipped at the image border.
// T is fixed at construction (at least tiles_per_block, evened over the blocks, rounded up to
// the tile's 12 columns); V and M are allocated then: nothing is allocated per call.
// Error (relative Frobenius norm against float64): the transforms' constants grow with m, so
// the bound is that of a direct convolution's c·9-term sums (16·eps·sqrt(9c) + 1e-6) times 8 for
// F(2×2) and 64 for F(4×4), as the conv2d family's cpu_winograd kind (conv2d_family.hpp's
// error_bound); tested in tests/core/test_conv2d_cpu_plan.cpp.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "kernels/common/cpu/conv_cpu_tile.hpp"
#include "kernels/common/cpu/cpu_task_workers.hpp"
#include "kernels/common/cpu/winograd_tables.hpp"

namespace ktune::kernels::cpu_conv {

namespace winograd_detail {

constexpr int kLanes = 16;  // floats per vector: one zmm under AVX-512
typedef float Vec __attribute__((vector_size(64)));

// The first n (1..16) floats from p, the rest zero; the first n lanes of v to p. Masked AVX-512
// moves (a memcpy of n floats is a library call: it tripled the transforms' time).
#if defined(__AVX512F__)
inline Vec load(const float* p, int n) {
  return Vec(_mm512_maskz_loadu_ps(__mmask16((1u << n) - 1), p));
}
inline void store(float* p, Vec v, int n) {
  _mm512_mask_storeu_ps(p, __mmask16((1u << n) - 1), __m512(v));
}
#else
inline Vec load(const float* p, int n) {
  Vec v = {};
  if (n == kLanes) return std::memcpy(&v, p, sizeof v), v;
  std::memcpy(&v, p, sizeof(float) * size_t(n));
  return v;
}
inline void store(float* p, Vec v, int n) {
  if (n == kLanes) return void(std::memcpy(p, &v, sizeof v));
  std::memcpy(p, &v, sizeof(float) * size_t(n));
}
#endif

// f(a, b) for each cell of an A×A tile, unrolled.
template <int A, class F>
inline void each_cell(F&& f) {
#pragma GCC unroll 6
  for (int a = 0; a < A; ++a)
#pragma GCC unroll 6
    for (int b = 0; b < A; ++b) f(a, b);
}

}  // namespace winograd_detail

class WinogradPlan {
 public:
  // Whether the plan runs this layer: 3×3 stride 1, padding at most 2 (the workloads' 1, the
  // tests' 0 and 2; the input transform reads any cell outside the image as zero).
  static bool applies(const Shape& s) {
    return s.r == 3 && s.s == 3 && s.stride == 1 && s.pad <= 2 && s.p() > 0 && s.q() > 0;
  }

  // filter: KRSC, read only here. m: 2 or 4. threads >= 1. tiles_per_block: T before rounding.
  WinogradPlan(const Shape& s, const float* filter, int m, int threads, int64_t tiles_per_block)
      : s_(s), m_(m), a_(m + 2), threads_(std::max(threads, 1)) {
    using plan_detail::kMR;
    using plan_detail::kNR;
    th_ = (s.p() + m - 1) / m;
    tw_ = (s.q() + m - 1) / m;
    tiles_ = s.n * th_ * tw_;
    // Blocks of at least tiles_per_block (up to twice that): each block streams the whole
    // transformed filter, so 49 tiles with T = 48 are one block, not 36 + 13.
    const int64_t blocks = std::max<int64_t>(tiles_ / std::max<int64_t>(tiles_per_block, 1), 1);
    block_ = std::min(tiles_, ((tiles_ + blocks - 1) / blocks + kNR - 1) / kNR * kNR);
    panels_ = (s.k + kMR - 1) / kMR;
    const int64_t planes = int64_t(a_) * a_;
    u_ = plan_detail::aligned_floats(size_t(planes * panels_ * s.c * kMR));
    if (m == 2)
      transform_filter<2>(filter);
    else
      transform_filter<4>(filter);
    v_ = plan_detail::aligned_floats(size_t(planes * block_ * s.c));
    mm_ = plan_detail::aligned_floats(size_t(planes * block_ * s.k));
  }

  int m() const { return m_; }
  int64_t tiles_per_block() const { return block_; }

  // output = epilogue(conv(input)), NHWC, not overlapping. One call at a time.
  void run(const float* input, float* output, const Epilogue& e) {
    if (m_ == 2) return run_m<2>(input, output, e);
    run_m<4>(input, output, e);
  }

 private:
  // U[ξ] in tile panels: plane ξ, panel ip, channel c, lane i at
  // ((ξ·panels + ip)·c + c)·kMR + i; zero for output channels past k.
  template <int M>
  void transform_filter(const float* filter) {
    using plan_detail::kMR;
    constexpr int kA = M + 2;
    const auto& G = winograd::Tables<M>::G;
    std::fill_n(u_.get(), size_t(kA * kA * panels_ * s_.c * kMR), 0.f);
    for (int64_t k = 0; k < s_.k; ++k)
      for (int64_t c = 0; c < s_.c; ++c) {
        double tmp[kA][3];
        for (int i = 0; i < kA; ++i)
          for (int b = 0; b < 3; ++b) {
            double acc = 0;
            for (int a = 0; a < 3; ++a)
              acc += double(G[i][a]) * filter[((k * 3 + a) * 3 + b) * s_.c + c];
            tmp[i][b] = acc;
          }
        for (int i = 0; i < kA; ++i)
          for (int j = 0; j < kA; ++j) {
            double acc = 0;
            for (int b = 0; b < 3; ++b) acc += double(G[j][b]) * tmp[i][b];
            u_[size_t((((i * kA + j) * panels_ + k / kMR) * s_.c + c) * kMR + k % kMR)] =
                float(acc);
          }
      }
  }

  // Tile t's image, first output row and column.
  struct TileAt {
    int64_t n, y, x;
  };
  TileAt tile_at(int64_t t) const { return {t / (th_ * tw_), t / tw_ % th_ * m_, t % tw_ * m_}; }

  template <int M>
  void input_transform(const float* input, int64_t first, int64_t count) {
    using winograd_detail::Vec;
    constexpr int kA = M + 2, kL = winograd_detail::kLanes;
    const int64_t plane = block_ * s_.c;
    for (int64_t i = 0; i < count; ++i) {
      const TileAt at = tile_at(first + i);
      const int64_t y0 = at.y - s_.pad, x0 = at.x - s_.pad;
      const bool inside = y0 >= 0 && x0 >= 0 && y0 + kA <= s_.h && x0 + kA <= s_.w;
      const float* image = input + at.n * s_.h * s_.w * s_.c;
      for (int64_t c0 = 0; c0 < s_.c; c0 += kL) {
        const int nc = int(std::min<int64_t>(kL, s_.c - c0));
        Vec d[kA][kA], out[kA][kA];
        winograd_detail::each_cell<kA>([&](int a, int b) {
          const int64_t y = y0 + a, x = x0 + b;
          d[a][b] = inside || (y >= 0 && y < s_.h && x >= 0 && x < s_.w)
                        ? winograd_detail::load(image + (y * s_.w + x) * s_.c + c0, nc)
                        : Vec{};
        });
        winograd::sandwich<kA, kA>(winograd::Tables<M>::BT, d, out);
        float* v = v_.get() + (first % block_ + i) * s_.c + c0;
        winograd_detail::each_cell<kA>(
            [&](int a, int b) { winograd_detail::store(v + (a * kA + b) * plane, out[a][b], nc); });
      }
    }
  }

  // Plane ξ's GEMM over the block's count tiles: M[ξ] (k × count, ldc k) = U[ξ] · V[ξ].
  void plane_gemm(int xi, int64_t count) {
    using namespace plan_detail;
    const float* u = u_.get() + int64_t(xi) * panels_ * s_.c * kMR;
    const float* v = v_.get() + xi * block_ * s_.c;
    float* mm = mm_.get() + xi * block_ * s_.k;
    for (int64_t ip = 0; ip < panels_; ++ip)
      for (int64_t t = 0; t < count; t += kNR) {
        const TileOut o{mm + t * s_.k + ip * kMR,
                        nullptr,
                        nullptr,
                        s_.k,
                        int(std::min<int64_t>(kMR, s_.k - ip * kMR)),
                        true,
                        true,
                        false};
        any_tile<false>(int(std::min<int64_t>(kNR, count - t)), int(s_.c), u + ip * s_.c * kMR,
                        v + t * s_.c, s_.c, o);
      }
  }

  template <int M>
  void output_transform(int64_t first, int64_t count, float* output, const Epilogue& e) const {
    using winograd_detail::Vec;
    constexpr int kA = M + 2, kL = winograd_detail::kLanes;
    const int64_t plane = block_ * s_.k, P = s_.p(), Q = s_.q();
    for (int64_t i = 0; i < count; ++i) {
      const TileAt at = tile_at(first + i);
      const int rows = int(std::min<int64_t>(M, P - at.y)),
                cols = int(std::min<int64_t>(M, Q - at.x));
      const float* mm = mm_.get() + (first % block_ + i) * s_.k;
      for (int64_t k0 = 0; k0 < s_.k; k0 += kL) {
        const int nk = int(std::min<int64_t>(kL, s_.k - k0));
        Vec m[kA][kA], y[M][M];
        winograd_detail::each_cell<kA>([&](int a, int b) {
          m[a][b] = winograd_detail::load(mm + (a * kA + b) * plane + k0, nk);
        });
        winograd::sandwich<M, kA>(winograd::Tables<M>::AT, m, y);
        const Vec bias = e.bias ? winograd_detail::load(e.bias + k0, nk) : Vec{};
        for (int a = 0; a < rows; ++a)
          for (int b = 0; b < cols; ++b) {
            const int64_t at_out = ((at.n * P + at.y + a) * Q + at.x + b) * s_.k + k0;
            Vec r = y[a][b] + bias;
            if (e.residual) r += winograd_detail::load(e.residual + at_out, nk);
            if (e.relu) r = r > 0 ? r : Vec{};
            winograd_detail::store(output + at_out, r, nk);
          }
      }
    }
  }

  template <int M>
  void run_m(const float* input, float* output, const Epilogue& e) {
    const int planes = a_ * a_;
    for (int64_t first = 0; first < tiles_; first += block_) {
      const int64_t count = std::min(block_, tiles_ - first);
      // Tiles split into at most 4 parts per thread (the phases' own barriers keep them in step).
      const int64_t parts = std::min<int64_t>(count, 4 * int64_t(threads_));
      auto in = [&](int64_t part) {
        const int64_t a = first + count * part / parts, b = first + count * (part + 1) / parts;
        input_transform<M>(input, a, b - a);
      };
      run_tasks(parts, threads_, in);
      auto gemm = [&](int64_t xi) { plane_gemm(int(xi), count); };
      run_tasks(planes, threads_, gemm);
      auto out = [&](int64_t part) {
        const int64_t a = first + count * part / parts, b = first + count * (part + 1) / parts;
        output_transform<M>(a, b - a, output, e);
      };
      run_tasks(parts, threads_, out);
    }
  }

  Shape s_;
  int m_, a_, threads_;
  int64_t th_ = 0, tw_ = 0, tiles_ = 0, block_ = 1, panels_ = 0;
  plan_detail::Floats u_, v_, mm_;
};

}  // namespace ktune::kernels::cpu_conv
