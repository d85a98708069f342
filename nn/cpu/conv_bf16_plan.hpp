#pragma once
// A bf16 CPU convolution plan (the `ktune_bf16` backend): the convolution as the implicit GEMM
//   out (k × n·p·q, column-major, ldc = k: the NHWC output) = filter (k × c·r·s) · patches
// on an AVX512_BF16 register tile (vdpbf16ps: bf16 (k, k+1) pairs, FP32 accumulation; the pair
// layout of the gemm family's packedz bf16 kernel), with
//   - the KRSC filter rounded to bf16 and packed once, at construction, into panels of kMR
//     output channels × (k, k+1) pairs (zero rows past k, a zero second half past c·r·s);
//   - the FP32 NHWC input rounded to bf16 (round to nearest even) inside the call: 1×1 layers
//     while their patches are packed, layers with overlapping windows in one pass first (each
//     value once), their patches then packed as bf16 row copies (implicit im2col into pixel-major
//     kNR × kKc panels, zeros where a window leaves the image). The activations stay FP32
//     between layers, so the engine's pooling, adds and buffers are unchanged;
//   - the epilogue (bias, residual add, ReLU, in FP32) applied in the registers after the last
//     K block;
//   - the split of C into tasks (channel ranges × pixel ranges) on the packed GEMM's pool.
// Winograd does not run in bf16 arithmetic (its transforms would round the transformed operands
// to bf16 again): the backend's large 3×3 layers run it in FP32 on bf16 operands instead
// (nn/cpu/winograd_bf16_plan.hpp).
// Error bound of one output (tests/nn/test_bf16_backends.cpp checks it against float64):
// rounding each operand to bf16 (unit roundoff u = 2^-8) gives |x̂ŷ − xy| <= (2u + u²)|x||y|;
// the products of bf16 values are exact in FP32 and vdpbf16ps sums them into FP32 accumulators
// (at most ⌈K/2⌉ + 1 roundings of u32 = 2^-24 each along a chain, K = c·r·s), so
//   |out − exact| <= ((2u + u²) + (K/2 + 4)·u32/(1 − (K/2 + 4)·u32)) · Σ|x||y| + the epilogue's
// FP32 roundings (bias, residual: 2·u32 of |out|), i.e. about 2^-7 of Σ|x||y| for every layer
// of ResNet-50 and VGG16 (K ≤ 25088: the accumulation term is at most 2^-10).
// Needs AVX-512F in the build and AVX512_BF16 on the CPU (checked by the backend).
#if !defined(__AVX512F__)
#error "conv_bf16_plan.hpp needs an AVX-512 target (-march with avx512f)"
#endif
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/cpu/conv_cpu_tile.hpp"
#include "kernels/common/cpu/cpu_task_workers.hpp"
#include "kernels/common/cpu/gemm_cpu_packed.hpp"

// The functions with AVX512_BF16 instructions (the conversions, the tile and their callers),
// compiled for it whatever the build's target.
#define KTUNE_BF16_PLAN_TARGET __attribute__((target("avx512bf16")))

namespace ktune::nn::cpu {

namespace bf16_plan_detail {

namespace kc = ktune::kernels::cpu_conv;

// Register tile: 32 channels (2 zmm) × kNR pixels. Single-thread sums over ResNet-50's conv
// layers at batch 1 against onednn_bf16 (loaded EPYC, steering only): 32×8 1.16x, 32×12 1.19x,
// 64×6 1.20x (the packedz bf16 GEMM's fastest on dnn-sample was 32×8 too).
constexpr int kMR = 32, kNR = 8;
// K block (k values, even): a B panel is kNR pixel rows of kRow dwords (kKc/2 pairs, padded
// so that the rows do not share cache sets: 16 KiB, in L1); the filter block of a task (its
// channels × kKc bf16) stays in L2. kKc 512 / 1024 / 2048: 1.16x / 1.14x / 1.17x (as above).
// Pixel columns per inner block: kNc (their packed patches, 12 panels of 16 KiB, in L2);
// output channels per filter block: kMc (kMc × kKc bf16 = 512 KiB, in L2 beside them).
constexpr int kMc = 256;
constexpr int kKc = 1024, kNc = 96, kRow = kKc / 2 + 16;

// Round to nearest even (NaN kept a NaN): the bf16 bits of x.
inline uint16_t to_bf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

inline uint32_t pair(float even, float odd) {
  return uint32_t(to_bf16(even)) | uint32_t(to_bf16(odd)) << 16;
}

// What a tile adds after its last K block: bias (channels of the tile), residual (at the
// tile's origin, the output's strides), ReLU.
struct TileEpilogue {
  const float* bias = nullptr;
  const float* residual = nullptr;
  bool relu = false;
};

// C (kMR × cols, ldc) = [C +] the kq pairs of a filter panel (kMR dwords per pair, zero rows
// past the channels) times pixel-major patches (pixel x's pair q at b[x·kRow + q], so packing
// stores whole vectors), FP32 accumulation by vdpbf16ps; then, where e is given, the epilogue
// in registers. Only rows × cols are stored.
// NR < kNR serves a last pixel panel of NR columns (batch 1's 7×7 maps: 49 = 6·8 + 1; fc at
// batch 1: 1), so that no multiply is spent on missing pixels.
template <int NR>
KTUNE_BF16_PLAN_TARGET inline void conv_tile(int kq, const uint32_t* a, const uint32_t* b, float* c,
                                             int64_t ldc, int rows, int cols, bool accumulate,
                                             const TileEpilogue* e) {
  constexpr int MV = kMR / 16;
  __m512 acc[NR][MV];
  for (auto& column : acc)
    for (__m512& v : column) v = _mm512_setzero_ps();
  for (int q = 0; q < kq; ++q, a += kMR) {
    __m512bh av[MV];
    for (int v = 0; v < MV; ++v) av[v] = (__m512bh)_mm512_loadu_si512(a + 16 * v);
#pragma GCC unroll 16
    for (int x = 0; x < NR; ++x) {
      const __m512bh bx = (__m512bh)_mm512_set1_epi32(int(b[x * kRow + q]));
      for (int v = 0; v < MV; ++v) acc[x][v] = _mm512_dpbf16_ps(acc[x][v], av[v], bx);
    }
  }
  const __m512 zero = _mm512_setzero_ps();
  for (int v = 0; v < MV && 16 * v < rows; ++v) {
    const __mmask16 m = kernels::cpu_conv::plan_detail::lanes(rows - 16 * v);
    const __m512 bias = e && e->bias ? _mm512_maskz_loadu_ps(m, e->bias + 16 * v) : zero;
    for (int x = 0; x < cols; ++x) {
      float* o = c + x * ldc + 16 * v;
      __m512 r = acc[x][v];
      if (accumulate) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(m, o));
      if (e) {
        r = _mm512_add_ps(r, bias);
        if (e->residual)
          r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(m, e->residual + x * ldc + 16 * v));
        if (e->relu) r = _mm512_maskz_max_ps(m, r, zero);
      }
      _mm512_mask_storeu_ps(o, m, r);
    }
  }
}

// conv_tile for cols (1..kNR) columns.
KTUNE_BF16_PLAN_TARGET inline void any_conv_tile(int kq, const uint32_t* a, const uint32_t* b,
                                                 float* c, int64_t ldc, int rows, int cols,
                                                 bool accumulate, const TileEpilogue* e) {
  static_assert(kNR == 8, "one case per column count");
  switch (cols) {
#define KTUNE_BF16_TILE_CASE(n) \
  case n:                       \
    return conv_tile<n>(kq, a, b, c, ldc, rows, cols, accumulate, e);
    KTUNE_BF16_TILE_CASE(1)
    KTUNE_BF16_TILE_CASE(2)
    KTUNE_BF16_TILE_CASE(3)
    KTUNE_BF16_TILE_CASE(4)
    KTUNE_BF16_TILE_CASE(5)
    KTUNE_BF16_TILE_CASE(6)
    KTUNE_BF16_TILE_CASE(7)
#undef KTUNE_BF16_TILE_CASE
    default:
      return conv_tile<kNR>(kq, a, b, c, ldc, rows, cols, accumulate, e);
  }
}

}  // namespace bf16_plan_detail

class Bf16ConvPlan {
 public:
  using Shape = kernels::cpu_conv::Shape;
  using Epilogue = kernels::cpu_conv::Epilogue;

  // filter: KRSC FP32, read only during construction. threads: the pool's thread count.
  Bf16ConvPlan(const Shape& s, const float* filter, int threads) : s_(s), threads_(threads) {
    using namespace bf16_plan_detail;
    const int64_t ck = s.gemm_k();
    kq_ = (ck + 1) / 2;
    panels_ = (s.k + kMR - 1) / kMR;
    filter_.assign(size_t(panels_ * kq_ * kMR), 0u);
    for (int64_t ip = 0; ip < panels_; ++ip)
      for (int64_t q = 0; q < kq_; ++q)
        for (int64_t i = 0; i < kMR; ++i) {
          const int64_t ch = ip * kMR + i;
          if (ch >= s.k) continue;
          const float* row = filter + ch * ck;
          filter_[size_t((ip * kq_ + q) * kMR + i)] =
              pair(row[2 * q], 2 * q + 1 < ck ? row[2 * q + 1] : 0.f);
        }
    // Tasks: pixel ranges first (each packs its own patches), channel ranges where there are
    // too few pixels for every thread (batch 1's 7×7 maps, fc at batch 1).
    const int64_t cols = s.gemm_m(), col_panels = (cols + kNR - 1) / kNR;
    const int64_t want = threads_ > 1 ? 4 * threads_ : 1;
    col_parts_ = std::clamp<int64_t>(col_panels / 4, 1, want);
    row_parts_ = std::clamp<int64_t>(want / col_parts_, 1, panels_);
    if (double(cols) * double(s.k) * double(ck) < 64.0 * 1024) col_parts_ = row_parts_ = 1;
    // Split by channels, every task would pack the same patches: they are packed once per call
    // instead, before the GEMM tasks (few pixels, so this buffer stays small).
    convert_first_ = s.r * s.s > 1;
    if (row_parts_ > 1) shared_b_.resize(size_t(col_panels * blocks() * kNR * kRow));
  }

  const Shape& shape() const { return s_; }

  // out = conv(in) then the epilogue; in and out NHWC FP32 (out, and residual, n·p·q × k).
  void run(const float* in, float* out, const Epilogue& e) const {
    in16_ = convert_first_ ? to_bf16_input(in) : nullptr;
    if (!shared_b_.empty()) {
      const int64_t panels = int64_t(shared_b_.size()) / (blocks() * panel_dwords());
      const int64_t parts = std::min<int64_t>(panels, 2 * threads_);
      auto pack = [&](int64_t t) {
        for (int64_t jp = panels * t / parts; jp < panels * (t + 1) / parts; ++jp)
          pack_panel(in, jp);
      };
      kernels::cpu_conv::run_tasks(parts, threads_, pack);
    }
    const int64_t tasks = col_parts_ * row_parts_;
    auto task = [&](int64_t t) { run_task(t / row_parts_, t % row_parts_, in, out, e); };
    if (tasks == 1)
      task(0);
    else
      kernels::cpu_conv::run_tasks(tasks, threads_, task);
  }

 private:
  // An output pixel: image, row, column.
  struct Pixel {
    int64_t img = 0, oh = 0, ow = 0;
  };
  Pixel pixel(int64_t j) const {
    const int64_t pq = s_.p() * s_.q();
    return {j / pq, j % pq / s_.q(), j % s_.q()};
  }
  void next(Pixel& px) const {  // the pixel after px (no division: the stems pack 9-21 values)
    if (++px.ow < s_.q()) return;
    px.ow = 0;
    if (++px.oh < s_.p()) return;
    px.oh = 0;
    ++px.img;
  }

  // The kb values of pixel px's patch from k index p0 (zero where the window leaves the image)
  // into patch[0, kb): a filter row's s·c values are contiguous in NHWC, so whole rows are one
  // copy where they stay inside the image, else one copy per filter position.
  template <class T>
  void gather_patch(const T* in, const Pixel& px, int64_t p0, int kb, T* patch) const {
    const int64_t row = s_.s * s_.c;
    const int64_t h0 = px.oh * s_.stride - s_.pad, w0 = px.ow * s_.stride - s_.pad;
    const bool row_inside = w0 >= 0 && w0 + s_.s <= s_.w;
    int64_t r = p0 / row, off = p0 % row;  // advanced step by step below
    for (int i = 0; i < kb;) {
      const int64_t h = h0 + r;
      const T* src = in + ((px.img * s_.h + h) * s_.w + w0) * s_.c + off;
      int64_t n;  // values of this step, all inside or all outside the image
      bool inside = h >= 0 && h < s_.h;
      if (row_inside) {
        n = std::min<int64_t>(row - off, kb - i);
      } else {
        const int64_t w = w0 + off / s_.c;
        n = std::min<int64_t>(s_.c - off % s_.c, kb - i);
        inside = inside && w >= 0 && w < s_.w;
      }
      off += n;
      if (off == row) off = 0, ++r;
#if defined(__AVX512BW__)
      // The stems' rows of 9 or 21 bf16 values: one masked move rather than a memcpy call
      // (packing was most of the 3-channel stems' time).
      if (sizeof(T) == 2 && n <= 32) {
        const __mmask32 m = n == 32 ? ~__mmask32(0) : (__mmask32(1) << n) - 1;
        _mm512_mask_storeu_epi16(
            patch + i, m, inside ? _mm512_maskz_loadu_epi16(m, src) : _mm512_setzero_si512());
        i += int(n);
        continue;
      }
#endif
      if (inside)
        std::memcpy(patch + i, src, size_t(n) * sizeof(T));
      else
        std::memset(patch + i, 0, size_t(n) * sizeof(T));
      i += int(n);
    }
  }

  // Patches of pixel columns [j0, j0 + cols) (cols <= kNR) over K [p0, p0 + kb) as ceil(kb/2)
  // pairs per pixel row of kRow dwords (zero rows past cols), rounded to bf16 32 floats at a time
  // (vcvtne2ps2bf16 pairs them as vdpbf16ps reads them). A 1×1 stride-1 layer's patch is the
  // input pixel itself.
  KTUNE_BF16_PLAN_TARGET void pack_patches(const float* in, int64_t j0, int cols, int64_t p0,
                                           int kb, uint32_t* dst) const {
    using namespace bf16_plan_detail;
    const int kqb = (kb + 1) / 2;
    const bool direct = s_.r == 1 && s_.s == 1 && s_.stride == 1 && s_.pad == 0;
    float* patch = patch_buffer();
    Pixel px = pixel(j0);
    for (int x = 0; x < kNR; ++x, dst += kRow, next(px)) {
      if (x >= cols) {
        std::memset(dst, 0, size_t(kqb) * sizeof(uint32_t));
        continue;
      }
      if (in16_ != nullptr) {  // the input in bf16 already: the patch is the packed row
        auto* row = reinterpret_cast<uint16_t*>(dst);
        gather_patch(in16_, px, p0, kb, row);
        if (kb % 2 != 0) std::memset(row + kb, 0, sizeof(uint16_t));
        continue;
      }
      const float* src = patch;
      if (direct)
        src = in + (j0 + x) * s_.c + p0;
      else
        gather_patch(in, px, p0, kb, patch);
      for (int i = 0; i < kb; i += 32) {
        const __mmask16 lo = kernels::cpu_conv::plan_detail::lanes(kb - i),
                        hi = kernels::cpu_conv::plan_detail::lanes(kb - i - 16);
        const __m512bh h = _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(hi, src + i + 16),
                                               _mm512_maskz_loadu_ps(lo, src + i));
        _mm512_mask_storeu_epi32(dst + i / 2, kernels::cpu_conv::plan_detail::lanes(kqb - i / 2),
                                 (__m512i)h);
      }
    }
  }

  // The whole input rounded to bf16 (into the calling thread's buffer, grown on first use),
  // for layers whose patches overlap: each input value is converted once rather than once per
  // filter position reading it (r·s/stride² times), and packing is a copy of bf16 rows.
  const uint16_t* to_bf16_input(const float* in) const {
    thread_local std::vector<uint16_t> buffer;
    const int64_t count = s_.n * s_.h * s_.w * s_.c;
    if (int64_t(buffer.size()) < count) buffer.resize(size_t(count));
    uint16_t* dst = buffer.data();
    const int64_t parts = std::min<int64_t>(2 * threads_, (count + 4095) / 4096);
    auto edge = [&](int64_t t) { return t == parts ? count : count * t / parts / 16 * 16; };
    auto convert = [&](int64_t t) { convert_range(in, dst, edge(t), edge(t + 1)); };
    kernels::cpu_conv::run_tasks(parts, threads_, convert);
    return dst;
  }

  KTUNE_BF16_PLAN_TARGET static void convert_range(const float* in, uint16_t* out, int64_t begin,
                                                   int64_t end) {
    int64_t i = begin;
    for (; i + 16 <= end; i += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                          (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(in + i)));
    for (; i < end; ++i) out[i] = bf16_plan_detail::to_bf16(in[i]);
  }

  static int64_t panel_dwords() { return bf16_plan_detail::kNR * bf16_plan_detail::kRow; }
  int64_t blocks() const {
    return (s_.gemm_k() + bf16_plan_detail::kKc - 1) / bf16_plan_detail::kKc;
  }

  // A patch of up to kKc floats per thread.
  static float* patch_buffer() {
    alignas(64) thread_local float patch[bf16_plan_detail::kKc + 32];
    return patch;
  }

  // Pixel column panel jp's patches, every K block, into shared_b_ (panel-major, then block).
  void pack_panel(const float* in, int64_t jp) const {
    using namespace bf16_plan_detail;
    const int64_t j0 = jp * kNR, ck = s_.gemm_k();
    const int ncols = int(std::min<int64_t>(kNR, s_.gemm_m() - j0));
    for (int64_t pc = 0; pc < ck; pc += kKc)
      pack_patches(in, j0, ncols, pc, int(std::min<int64_t>(kKc, ck - pc)),
                   shared_b_.data() + (jp * blocks() + pc / kKc) * panel_dwords());
  }

  // The channels of row part `rp` × the pixels of column part `cp`.
  KTUNE_BF16_PLAN_TARGET void run_task(int64_t cp, int64_t rp, const float* in, float* out,
                                       const Epilogue& e) const {
    using namespace bf16_plan_detail;
    const int64_t cols = s_.gemm_m(), ck = s_.gemm_k();
    const int64_t col_panels = (cols + kNR - 1) / kNR;
    const int64_t jp0 = col_panels * cp / col_parts_, jp1 = col_panels * (cp + 1) / col_parts_;
    const int64_t ip0 = panels_ * rp / row_parts_, ip1 = panels_ * (rp + 1) / row_parts_;
    if (jp0 == jp1 || ip0 == ip1) return;
    const int64_t nc_panels = kNc / kNR;
    auto* bpack = reinterpret_cast<uint32_t*>(
        kernels::gemm::cpu::packed_detail::scratch_b(size_t(nc_panels * panel_dwords())));
    for (int64_t jc = jp0; jc < jp1; jc += nc_panels) {
      const int64_t jcn = std::min(jp1, jc + nc_panels);
      for (int64_t pc = 0; pc < ck; pc += kKc) {
        const int kb = int(std::min<int64_t>(kKc, ck - pc)), kqb = (kb + 1) / 2;
        const bool last = pc + kKc >= ck;
        // The block's patches first (packed here, or the call's shared ones), then the filter
        // in blocks of kMc channels, each kept in L2 while it meets every pixel panel.
        auto panel = [&](int64_t jp) {
          return shared_b_.empty() ? bpack + (jp - jc) * panel_dwords()
                                   : shared_b_.data() + (jp * blocks() + pc / kKc) * panel_dwords();
        };
        if (shared_b_.empty())
          for (int64_t jp = jc; jp < jcn; ++jp)
            pack_patches(in, jp * kNR, int(std::min<int64_t>(kNR, cols - jp * kNR)), pc, kb,
                         panel(jp));
        for (int64_t ib = ip0; ib < ip1; ib += kMc / kMR)
          for (int64_t jp = jc; jp < jcn; ++jp) {
            const int64_t j0 = jp * kNR;
            const int ncols = int(std::min<int64_t>(kNR, cols - j0));
            for (int64_t ip = ib; ip < std::min(ip1, ib + kMc / kMR); ++ip) {
              const int64_t i0 = ip * kMR, at = i0 + j0 * s_.k;
              const TileEpilogue te{e.bias ? e.bias + i0 : nullptr,
                                    e.residual ? e.residual + at : nullptr, e.relu};
              any_conv_tile(kqb, filter_.data() + (ip * kq_ + pc / 2) * kMR, panel(jp), out + at,
                            s_.k, int(std::min<int64_t>(kMR, s_.k - i0)), ncols, pc > 0,
                            last ? &te : nullptr);
            }
          }
      }
    }
  }

  Shape s_;
  int threads_;
  int64_t kq_ = 0, panels_ = 0, col_parts_ = 1, row_parts_ = 1;
  std::vector<uint32_t> filter_;  // panels_ × kq_ pairs × kMR channels
  // The call's packed patches where tasks split the channels: pixel panels × K blocks × kNR
  // rows of kRow dwords.
  mutable std::vector<uint32_t> shared_b_;
  // Layers with overlapping windows (r·s > 1) convert their input to bf16 first; in16_ points at
  // it during a call.
  bool convert_first_ = false;
  mutable const uint16_t* in16_ = nullptr;
};

}  // namespace ktune::nn::cpu

#undef KTUNE_BF16_PLAN_TARGET
