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
#include <atomic>
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

// x rounded to the nearest bf16 value (ties to even; a NaN stays a NaN), as FP32: the bf16 input
// of the nn engine's `ktune_bf16` Winograd layers, rounded as it is loaded.
inline Vec round_to_bf16(Vec x) {
  typedef uint32_t Bits __attribute__((vector_size(64)));
  const Bits b = Bits(x);
  const Bits rounded = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;
  const Bits quiet_nan = (b | 0x400000u) & 0xffff0000u;
  return Vec((b & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

// Σ_a w[a]·x[a] for a constant row w once unrolled: zero weights skipped, ±1 an add or subtract,
// the first term not added to a zero (which GCC may not drop: -0 + 0 is +0).
template <int J>
inline Vec dot(const float (&w)[J], const Vec (&x)[J]) {
  Vec acc = {};
  bool first = true;
#pragma GCC unroll 8
  for (int a = 0; a < J; ++a) {
    if (w[a] == 0) continue;
    const Vec term = w[a] == 1 ? x[a] : w[a] == -1 ? -x[a] : w[a] * x[a];
    acc = first ? term : acc + term;
    first = false;
  }
  return acc;
}

// T x T^T for an I×J constant T and a J×J matrix x of vectors whose rows come one at a time
// (row(a, x_a) fills row a): each row is multiplied by T^T as it arrives, then the columns by T,
// and out(i, j, value) takes each result, so that about 2J vectors are live at a time (the whole
// x and its transform, 2J² + I², would spill).
template <int I, int J, class Row, class Out>
inline void sandwich_by_rows(const float (&t)[I][J], Row&& row, Out&& out) {
  Vec r[J][I];  // r[a][j] = Σ_b x[a][b] t[j][b]
#pragma GCC unroll 6
  for (int a = 0; a < J; ++a) {
    Vec x[J];
    row(a, x);
#pragma GCC unroll 6
    for (int j = 0; j < I; ++j) r[a][j] = dot<J>(t[j], x);
  }
#pragma GCC unroll 6
  for (int j = 0; j < I; ++j) {
    Vec col[J];
#pragma GCC unroll 6
    for (int a = 0; a < J; ++a) col[a] = r[a][j];
#pragma GCC unroll 6
    for (int i = 0; i < I; ++i) out(i, j, dot<J>(t[i], col));
  }
}

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
  // fused: each block runs its three phases on one thread, in that thread's own V and M (one
  // set per thread), the blocks claimed by the threads in turn; else the threads share each
  // phase of one block at a time. bf16_input: each input value rounded to bf16 as the input
  // transform loads it (the `ktune_bf16` backend's bf16 layers: nn/cpu/winograd_bf16_plan.hpp).
  WinogradPlan(const Shape& s, const float* filter, int m, int threads, int64_t tiles_per_block,
               bool fused = false, bool bf16_input = false)
      : s_(s),
        m_(m),
        a_(m + 2),
        threads_(std::max(threads, 1)),
        fused_(fused),
        bf16_input_(bf16_input) {
    using plan_detail::kMR;
    using plan_detail::kNR;
    th_ = (s.p() + m - 1) / m;
    tw_ = (s.q() + m - 1) / m;
    tiles_ = s.n * th_ * tw_;
    // Blocks of at least tiles_per_block (up to twice that): each block streams the whole
    // transformed filter, so 49 tiles with T = 48 are one block, not 36 + 13.
    const int64_t blocks = std::max<int64_t>(tiles_ / std::max<int64_t>(tiles_per_block, 1), 1);
    block_ = std::min(tiles_, ((tiles_ + blocks - 1) / blocks + kNR - 1) / kNR * kNR);
    // Fused blocks are T tiles (whole register tiles), but at least two per thread where the
    // layer has the tiles, so that no thread idles through the last one.
    if (fused_)
      block_ = std::min((std::max<int64_t>(tiles_per_block, 1) + kNR - 1) / kNR * kNR,
                        std::max<int64_t>((tiles_ + 2 * threads_ - 1) / (2 * threads_), 1));
    panels_ = (s.k + kMR - 1) / kMR;
    const int64_t planes = int64_t(a_) * a_;
    u_ = plan_detail::aligned_floats(size_t(planes * panels_ * s.c * kMR));
    if (m == 2)
      transform_filter<2>(filter);
    else
      transform_filter<4>(filter);
    const int64_t sets = fused_ ? threads_ : 1;
    v_ = plan_detail::aligned_floats(size_t(sets * planes * block_ * s.c));
    mm_ = plan_detail::aligned_floats(size_t(sets * planes * block_ * s.k));
    if (fused_) {
      busy_ = std::make_unique<std::atomic<bool>[]>(size_t(threads_));
      for (int i = 0; i < threads_; ++i) busy_[size_t(i)] = false;
    }
  }

  int m() const { return m_; }
  int64_t tiles_per_block() const { return block_; }
  bool fused() const { return fused_; }

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

  // Tiles [first, first + count) into V at v (tile i at v + i·c, planes block_·c apart).
  template <int M>
  void input_transform(const float* input, int64_t first, int64_t count, float* v_at) const {
    constexpr int kA = M + 2, kL = winograd_detail::kLanes;
    const int64_t plane = block_ * s_.c;
    for (int64_t i = 0; i < count; ++i) {
      const TileAt at = tile_at(first + i);
      const int64_t y0 = at.y - s_.pad, x0 = at.x - s_.pad;
      const bool inside = y0 >= 0 && x0 >= 0 && y0 + kA <= s_.h && x0 + kA <= s_.w;
      const float* image = input + at.n * s_.h * s_.w * s_.c;
      if (i + 1 < count) prefetch_window<M>(input, first + i + 1);
      for (int64_t c0 = 0; c0 < s_.c; c0 += kL) {
        const int nc = int(std::min<int64_t>(kL, s_.c - c0));
        float* v = v_at + i * s_.c + c0;
        if (bf16_input_) {
          if (inside)
            transform_window<M, true, true>(image, y0, x0, c0, nc, v, plane);
          else
            transform_window<M, false, true>(image, y0, x0, c0, nc, v, plane);
        } else if (inside) {
          transform_window<M, true, false>(image, y0, x0, c0, nc, v, plane);
        } else {
          transform_window<M, false, false>(image, y0, x0, c0, nc, v, plane);
        }
      }
    }
  }

  // The cache lines of tile t's window that the tile before it did not read (its last m columns
  // within the image), asked for into L2: the window's α rows are w·c floats apart, and at
  // batch 1 the input comes from memory (perf put the input transform's time on its loads).
  template <int M>
  void prefetch_window(const float* input, int64_t t) const {
    constexpr int kA = M + 2;
    const TileAt at = tile_at(t);
    const int64_t y0 = at.y - s_.pad, x_begin = std::max<int64_t>(at.x - s_.pad + 2, 0),
                  x_end = std::min<int64_t>(at.x - s_.pad + kA, s_.w);
    if (x_end <= x_begin) return;
    const float* image = input + at.n * s_.h * s_.w * s_.c;
    for (int a = 0; a < kA; ++a) {
      const int64_t y = y0 + a;
      if (y < 0 || y >= s_.h) continue;
      const float* row = image + (y * s_.w + x_begin) * s_.c;
      for (int64_t f = 0, n = (x_end - x_begin) * s_.c; f < n; f += 16)
        __builtin_prefetch(row + f, 0, 2);
    }
  }

  // One tile's α×α window (top-left cell y0, x0; cells outside the image are zero unless Inside),
  // channels [c0, c0 + nc), as V = B^T d B into the planes at v: each window row is loaded and
  // multiplied by B at once, then the columns by B^T, so that about 2α vectors are live (the
  // whole window and its transform, 3α², spilled to the stack). Bf16: each value rounded to bf16.
  template <int M, bool Inside, bool Bf16>
  void transform_window(const float* image, int64_t y0, int64_t x0, int64_t c0, int nc, float* v,
                        int64_t plane) const {
    using winograd_detail::Vec;
    constexpr int kA = M + 2;
    winograd_detail::sandwich_by_rows(
        winograd::Tables<M>::BT,
        [&](int a, Vec(&d)[kA]) {
          const int64_t y = y0 + a;
          const bool row_in = Inside || (y >= 0 && y < s_.h);
#pragma GCC unroll 6
          for (int b = 0; b < kA; ++b) {
            const int64_t x = x0 + b;
            d[b] = row_in && (Inside || (x >= 0 && x < s_.w))
                       ? winograd_detail::load(image + (y * s_.w + x) * s_.c + c0, nc)
                       : Vec{};
            if constexpr (Bf16) d[b] = winograd_detail::round_to_bf16(d[b]);
          }
        },
        [&](int i, int j, Vec value) {
          winograd_detail::store(v + (i * kA + j) * plane, value, nc);
        });
  }

  // Plane ξ's GEMM over the block's count tiles: M[ξ] (k × count, ldc k) = U[ξ] · V[ξ], for the
  // V and M of one set (vs, ms).
  void plane_gemm(int xi, int64_t count, const float* vs, float* ms) const {
    using namespace plan_detail;
    const float* u = u_.get() + int64_t(xi) * panels_ * s_.c * kMR;
    const float* v = vs + xi * block_ * s_.c;
    float* mm = ms + xi * block_ * s_.k;
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

  // Tiles [first, first + count) from M at mm_at (tile i at mm_at + i·k, planes block_·k apart).
  template <int M>
  void output_transform(const float* mm_at, int64_t first, int64_t count, float* output,
                        const Epilogue& e) const {
    using winograd_detail::Vec;
    constexpr int kA = M + 2, kL = winograd_detail::kLanes;
    const int64_t plane = block_ * s_.k, P = s_.p(), Q = s_.q();
    for (int64_t i = 0; i < count; ++i) {
      const TileAt at = tile_at(first + i);
      const int rows = int(std::min<int64_t>(M, P - at.y)),
                cols = int(std::min<int64_t>(M, Q - at.x));
      const float* mm = mm_at + i * s_.k;
      if (i + 1 < count) prefetch_output<M>(output, e, first + i + 1);
      for (int64_t k0 = 0; k0 < s_.k; k0 += kL) {
        const int nk = int(std::min<int64_t>(kL, s_.k - k0));
        // Y = A^T M A, M's rows loaded one at a time (as the input transform).
        Vec y[M][M];
        winograd_detail::sandwich_by_rows(
            winograd::Tables<M>::AT,
            [&](int a, Vec(&row)[kA]) {
#pragma GCC unroll 6
              for (int b = 0; b < kA; ++b)
                row[b] = winograd_detail::load(mm + (a * kA + b) * plane + k0, nk);
            },
            [&](int r, int j, Vec value) { y[r][j] = value; });
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

  // The output lines tile t writes, asked for (for writing) while the tile before it is
  // transformed, and its residual's (read): m rows of m·k floats, Q·k floats apart.
  template <int M>
  void prefetch_output(float* output, const Epilogue& e, int64_t t) const {
    const TileAt at = tile_at(t);
    const int64_t P = s_.p(), Q = s_.q(), rows = std::min<int64_t>(M, P - at.y),
                  n = std::min<int64_t>(M, Q - at.x) * s_.k;
    for (int64_t a = 0; a < rows; ++a) {
      const int64_t at_out = ((at.n * P + at.y + a) * Q + at.x) * s_.k;
      for (int64_t f = 0; f < n; f += 16) {
        __builtin_prefetch(output + at_out + f, 1, 2);
        if (e.residual) __builtin_prefetch(e.residual + at_out + f, 0, 2);
      }
    }
  }

  template <int M>
  void run_m(const float* input, float* output, const Epilogue& e) {
    if (fused_) return run_fused<M>(input, output, e);
    const int planes = a_ * a_;
    for (int64_t first = 0; first < tiles_; first += block_) {
      const int64_t count = std::min(block_, tiles_ - first);
      // Tiles split into at most 4 parts per thread (the phases' own barriers keep them in step).
      const int64_t parts = std::min<int64_t>(count, 4 * int64_t(threads_));
      auto in = [&](int64_t part) {
        const int64_t a = count * part / parts, b = count * (part + 1) / parts;
        input_transform<M>(input, first + a, b - a, v_.get() + a * s_.c);
      };
      run_tasks(parts, threads_, in);
      auto gemm = [&](int64_t xi) { plane_gemm(int(xi), count, v_.get(), mm_.get()); };
      run_tasks(planes, threads_, gemm);
      auto out = [&](int64_t part) {
        const int64_t a = count * part / parts, b = count * (part + 1) / parts;
        output_transform<M>(mm_.get() + a * s_.k, first + a, b - a, output, e);
      };
      run_tasks(parts, threads_, out);
    }
  }

  // Each block on one thread: its tiles transformed into the thread's V, the α² GEMMs into its M,
  // transformed out, while V and M are still in that core's cache (shared, the phases passed each
  // block's V and M, 2.25× the input's and output's size for F(4×4), between the cores through
  // L3 and waited at three barriers per block).
  template <int M>
  void run_fused(const float* input, float* output, const Epilogue& e) {
    const int planes = a_ * a_;
    const int64_t blocks = (tiles_ + block_ - 1) / block_;
    auto block = [&](int64_t b) {
      int slot = 0;  // a free V, M set: at most threads_ blocks run at once
      for (bool expected = false;; slot = (slot + 1) % threads_, expected = false)
        if (busy_[size_t(slot)].compare_exchange_weak(expected, true, std::memory_order_acquire))
          break;
      float* v = v_.get() + int64_t(slot) * planes * block_ * s_.c;
      float* mm = mm_.get() + int64_t(slot) * planes * block_ * s_.k;
      const int64_t first = b * block_, count = std::min(block_, tiles_ - first);
      input_transform<M>(input, first, count, v);
      for (int xi = 0; xi < planes; ++xi) plane_gemm(xi, count, v, mm);
      output_transform<M>(mm, first, count, output, e);
      busy_[size_t(slot)].store(false, std::memory_order_release);
    };
    run_tasks(blocks, threads_, block);
  }

  Shape s_;
  int m_, a_, threads_;
  bool fused_ = false, bf16_input_ = false;
  int64_t th_ = 0, tw_ = 0, tiles_ = 0, block_ = 1, panels_ = 0;
  plan_detail::Floats u_, v_, mm_;  // fused: threads_ sets of V and M, one per running block
  std::unique_ptr<std::atomic<bool>[]> busy_;  // fused: which sets are taken
};

}  // namespace ktune::kernels::cpu_conv
