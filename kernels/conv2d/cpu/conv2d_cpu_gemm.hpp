#pragma once
// Kinds cpu_im2col and cpu_gemm1x1: the convolution as the GEMM
//   out (k × n·p·q, column-major with ldc = k: the NHWC output) =
//     filterᵀ (k × c·r·s: the KRSC filter read as a column-major c·r·s × k matrix, transposed)
//     · patches (c·r·s × n·p·q: one column per output pixel, in the (r, s, c) order of KRSC)
// run by ktune's packed GEMM. im2col writes the patch columns of `rows` pixels at a time into a
// scratch matrix (window runs copied, padding zero-filled; 64 MiB at most) and multiplies each
// block; a 1×1 stride-1 unpadded layer's NHWC input already is the patch matrix.
// Templates over the GEMM call (`gemm(const gemm::cpu::Args&)`), so that the sweep runs them
// through the packed kernel's run-time dispatch and a deployed library through the one
// instantiation it ships. The callers check the parameters (rows ≥ 1, 1×1 for gemm1x1).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_args.hpp"

namespace ktune::kernels::conv2d::cpu::gemm_detail {

// out[pixels × k] = patches[pixels × ck] · filter[k × ck]ᵀ, all row-major.
inline gemm::cpu::Args rows_args(int64_t pixels, int64_t k, int64_t ck, const float* patches,
                                 const float* filter, float* out) {
  gemm::cpu::Args a;
  a.transa = true;
  a.transb = false;
  a.m = k;
  a.n = pixels;
  a.k = ck;
  a.a = filter;
  a.lda = ck;
  a.b = patches;
  a.ldb = ck;
  a.c = out;
  a.ldc = k;
  a.alpha = 1;
  a.beta = 0;
  return a;
}

// Patch rows of output pixels [first, first + count) into dst (count × r·s·c).
inline void im2col(const Shape& s, const float* input, int64_t first, int64_t count, float* dst) {
  const int64_t P = s.p(), Q = s.q(), run = s.s * s.c, ck = s.r * run;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    const int64_t pixel = first + i;
    const int64_t n = pixel / (P * Q), p = pixel / Q % P, q = pixel % Q;
    float* row = dst + i * ck;
    const int64_t x0 = q * s.stride - s.pad;
    for (int64_t r = 0; r < s.r; ++r) {
      float* out = row + r * run;
      const int64_t y = p * s.stride - s.pad + r;
      if (y < 0 || y >= s.h) {
        std::fill(out, out + run, 0.f);
        continue;
      }
      const float* in = input + (n * s.h + y) * s.w * s.c;
      if (x0 >= 0 && x0 + s.s <= s.w) {
        std::memcpy(out, in + x0 * s.c, sizeof(float) * size_t(run));
        continue;
      }
      for (int64_t t = 0; t < s.s; ++t) {
        const int64_t x = x0 + t;
        if (x < 0 || x >= s.w)
          std::fill(out + t * s.c, out + (t + 1) * s.c, 0.f);
        else
          std::memcpy(out + t * s.c, in + x * s.c, sizeof(float) * size_t(s.c));
      }
    }
  }
}

template <typename Gemm>
void im2col_conv(const Args& args, int rows, const Gemm& gemm) {
  const Shape& s = args.shape;
  const int64_t pixels = s.gemm_m(), ck = s.gemm_k();
  // At most 64 MiB of patches (16 Mi floats), however many rows the config asks for.
  const int64_t cap = std::max<int64_t>(64, (int64_t(1) << 24) / ck);
  const int64_t block = std::min<int64_t>({int64_t(rows), cap, pixels});
  thread_local std::vector<float> patches;  // reused across calls of this thread
  patches.resize(size_t(block * ck));
  for (int64_t first = 0; first < pixels; first += block) {
    const int64_t count = std::min(block, pixels - first);
    im2col(s, args.input, first, count, patches.data());
    gemm(rows_args(count, s.k, ck, patches.data(), args.filter, args.output + first * s.k));
  }
}

template <typename Gemm>
void gemm1x1_conv(const Args& args, const Gemm& gemm) {
  const Shape& s = args.shape;
  gemm(rows_args(s.gemm_m(), s.k, s.c, args.input, args.filter, args.output));
}

}  // namespace ktune::kernels::conv2d::cpu::gemm_detail
