#pragma once
// Kind cpu_direct: tiled direct convolution on the layouts as given (NHWC input, KRSC filter),
// nothing repacked. For an output pixel and a filter row r, the window's (filter column, input
// channel) run is contiguous in both tensors when the window lies inside the image: a dot
// product of length s·c. A register tile of COLS output pixels × VK output channels keeps
// COLS·VK accumulators of NV vectors (VC = 8·NV lanes) and loads COLS + VK vectors per
// COLS·VK·NV FMAs. Windows that reach into the zero padding take the run per filter column,
// reading a zero row for columns outside the image. Pixel and channel tails repeat the tile's
// first pixel or channel and drop those results, so every tile runs the same code.
// Tasks (OpenMP): one image × ROWS output rows × one block of VK output channels.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/conv2d/cpu/conv2d_cpu_args.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_vec.hpp"

namespace ktune::kernels::conv2d::cpu::direct_detail {

using simd::Vec;

// acc[j][i] += x[j][0..len) · w[i][0..len): NV vectors at a time, then a scalar tail.
template <int COLS, int VK, int NV>
inline void dot_run(const float* const (&x)[COLS], const float* const (&w)[VK], int64_t len,
                    Vec (&acc)[COLS][VK][NV], float (&tail)[COLS][VK]) {
  constexpr int64_t kStep = NV * simd::kLanes;
  int64_t e = 0;
  for (; e + kStep <= len; e += kStep) {
    Vec xv[COLS][NV], wv[VK][NV];
    for (int j = 0; j < COLS; ++j)
      for (int v = 0; v < NV; ++v) xv[j][v] = simd::load(x[j] + e + v * simd::kLanes);
    for (int i = 0; i < VK; ++i)
      for (int v = 0; v < NV; ++v) wv[i][v] = simd::load(w[i] + e + v * simd::kLanes);
    for (int j = 0; j < COLS; ++j)
      for (int i = 0; i < VK; ++i)
        for (int v = 0; v < NV; ++v) acc[j][i][v] = simd::fma(xv[j][v], wv[i][v], acc[j][i][v]);
  }
  for (; e < len; ++e)
    for (int j = 0; j < COLS; ++j)
      for (int i = 0; i < VK; ++i) tail[j][i] += x[j][e] * w[i][e];
}

// Output pixels (n, p, q0 .. q0+COLS) × channels k0 .. k0+VK, of which qn × kn are real.
template <int COLS, int VK, int NV>
void tile(const Args& a, const float* zeros, int64_t n, int64_t p, int64_t q0, int qn, int64_t k0,
          int kn) {
  const Shape& s = a.shape;
  const int64_t P = s.p(), Q = s.q();
  Vec acc[COLS][VK][NV] = {};
  float tail[COLS][VK] = {};
  const int64_t x_first = q0 * s.stride - s.pad;
  const int64_t x_last = (q0 + qn - 1) * s.stride - s.pad + s.s - 1;
  const bool inside = x_first >= 0 && x_last < s.w;
  for (int64_t r = 0; r < s.r; ++r) {
    const int64_t y = p * s.stride - s.pad + r;
    if (y < 0 || y >= s.h) continue;  // the whole filter row sees padding
    const float* row = a.input + (n * s.h + y) * s.w * s.c;
    const float* w[VK];
    for (int i = 0; i < VK; ++i)
      w[i] = a.filter + ((k0 + std::min(i, kn - 1)) * s.r + r) * s.s * s.c;
    if (inside) {
      const float* x[COLS];
      for (int j = 0; j < COLS; ++j)
        x[j] = row + ((q0 + std::min(j, qn - 1)) * s.stride - s.pad) * s.c;
      dot_run<COLS, VK, NV>(x, w, s.s * s.c, acc, tail);
      continue;
    }
    for (int64_t t = 0; t < s.s; ++t) {
      const float* x[COLS];
      for (int j = 0; j < COLS; ++j) {
        const int64_t col = (q0 + std::min(j, qn - 1)) * s.stride - s.pad + t;
        x[j] = col >= 0 && col < s.w ? row + col * s.c : zeros;
      }
      const float* wt[VK];
      for (int i = 0; i < VK; ++i) wt[i] = w[i] + t * s.c;
      dot_run<COLS, VK, NV>(x, wt, s.c, acc, tail);
    }
  }
  for (int j = 0; j < qn; ++j) {
    float* out = a.output + ((n * P + p) * Q + q0 + j) * s.k + k0;
    for (int i = 0; i < kn; ++i) {
      Vec total = acc[j][i][0];
      for (int v = 1; v < NV; ++v) total += acc[j][i][v];
      out[i] = simd::sum(total) + tail[j][i];
    }
  }
}

template <int COLS, int VK, int NV>
void conv(const Args& a, int rows) {
  const Shape& s = a.shape;
  const int64_t P = s.p(), Q = s.q();
  const int64_t row_blocks = (P + rows - 1) / rows, k_blocks = (s.k + VK - 1) / VK;
  const int64_t tasks = s.n * row_blocks * k_blocks;
  const std::vector<float> zeros(size_t(s.c), 0.f);  // the image outside its borders
#pragma omp parallel for schedule(dynamic)
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t kb = task % k_blocks, rb = task / k_blocks % row_blocks,
                  n = task / k_blocks / row_blocks;
    const int64_t k0 = kb * VK;
    const int kn = int(std::min<int64_t>(VK, s.k - k0));
    for (int64_t p = rb * rows; p < std::min<int64_t>(P, (rb + 1) * rows); ++p)
      for (int64_t q0 = 0; q0 < Q; q0 += COLS)
        tile<COLS, VK, NV>(a, zeros.data(), n, p, q0, int(std::min<int64_t>(COLS, Q - q0)), k0, kn);
  }
}

}  // namespace ktune::kernels::conv2d::cpu::direct_detail
