// Gaussian blur, 5x5 binomial weights w[dy]*w[dx] with w = 1 4 6 4 1 (sum 256), borders 2.
// Straight-line, row-major (north-west first) accumulation, then one division by 256, so the
// CPU, CUDA and the reference compute the same operation sequence. Shared by both backends:
// KTUNE_HD is defined by the includer (__device__ on CUDA, inline on the CPU).
#ifndef KTUNE_STENCIL_GAUSSIAN_CUH
#define KTUNE_STENCIL_GAUSSIAN_CUH

template <typename T, typename In>
KTUNE_HD T ktune_gaussian(const In& in) {
  T acc = T(1) * in(-2, -2);
  acc = acc + T(4) * in(-2, -1);
  acc = acc + T(6) * in(-2, 0);
  acc = acc + T(4) * in(-2, 1);
  acc = acc + T(1) * in(-2, 2);
  acc = acc + T(4) * in(-1, -2);
  acc = acc + T(16) * in(-1, -1);
  acc = acc + T(24) * in(-1, 0);
  acc = acc + T(16) * in(-1, 1);
  acc = acc + T(4) * in(-1, 2);
  acc = acc + T(6) * in(0, -2);
  acc = acc + T(24) * in(0, -1);
  acc = acc + T(36) * in(0, 0);
  acc = acc + T(24) * in(0, 1);
  acc = acc + T(6) * in(0, 2);
  acc = acc + T(4) * in(1, -2);
  acc = acc + T(16) * in(1, -1);
  acc = acc + T(24) * in(1, 0);
  acc = acc + T(16) * in(1, 1);
  acc = acc + T(4) * in(1, 2);
  acc = acc + T(1) * in(2, -2);
  acc = acc + T(4) * in(2, -1);
  acc = acc + T(6) * in(2, 0);
  acc = acc + T(4) * in(2, 1);
  acc = acc + T(1) * in(2, 2);
  return acc / T(256);
}

#endif
