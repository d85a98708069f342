// Kinds cpu_im2col and cpu_gemm1x1: the convolution as the GEMM
//   out (k × n·p·q, column-major with ldc = k: the NHWC output) =
//     filterᵀ (k × c·r·s: the KRSC filter read as a column-major c·r·s × k matrix, transposed)
//     · patches (c·r·s × n·p·q: one column per output pixel, in the (r, s, c) order of KRSC)
// run by ktune's packed GEMM. im2col writes the patch columns of `rows` pixels at a time into a
// scratch matrix (window runs copied, padding zero-filled; 64 MiB at most) and multiplies each
// block; a 1×1 stride-1 unpadded layer's NHWC input already is the patch matrix.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packed_dispatch.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cpu {

namespace {

// out[pixels × k] = patches[pixels × ck] · filter[k × ck]ᵀ, all row-major.
void gemm_rows(const GemmParams& g, int64_t pixels, int64_t k, int64_t ck, const float* patches,
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
  gemm::cpu::run_packed(a, gemm::PackedParams{g.mr, g.nr, g.kc, 96, 3840});
}

// Patch rows of output pixels [first, first + count) into dst (count × r·s·c).
void im2col(const Shape& s, const float* input, int64_t first, int64_t count, float* dst) {
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

}  // namespace

void run_im2col(const Args& args, const GemmParams& g, int rows) {
  if (rows < 1) throw Error(fmt::format("conv2d cpu_im2col: rows {} must be positive", rows));
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
    gemm_rows(g, count, s.k, ck, patches.data(), args.filter, args.output + first * s.k);
  }
}

std::optional<std::string> gemm1x1_refusal(const Shape& s) {
  if (s.r != 1 || s.s != 1 || s.stride != 1 || s.pad != 0)
    return fmt::format(
        "cpu_gemm1x1 runs 1x1 stride-1 unpadded layers only (got {}x{}, stride {}, "
        "pad {})",
        s.r, s.s, s.stride, s.pad);
  return std::nullopt;
}

void run_gemm1x1(const Args& args, const GemmParams& g) {
  if (auto why = gemm1x1_refusal(args.shape)) throw Error("conv2d " + *why);
  const Shape& s = args.shape;
  gemm_rows(g, s.gemm_m(), s.k, s.c, args.input, args.filter, args.output);
}

}  // namespace ktune::kernels::conv2d::cpu
