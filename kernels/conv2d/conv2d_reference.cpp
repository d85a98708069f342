#include "kernels/conv2d/conv2d_reference.hpp"

// GCC 12 reports `_mm256_undefined_pd`'s self-initialisation (avxintrin.h) inside Eigen's
// AVX-512 reductions as -Wmaybe-uninitialized, a false positive of the intrinsics headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune::kernels::conv2d {

std::vector<double> reference_conv2d(const Shape& s, const float* input, const float* filter) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t P = s.p(), Q = s.q(), K = s.r * s.s * s.c, pixels = s.n * P * Q;
  // The convolution as a float64 GEMM, out (pixels × k) = patches (pixels × K) · filterᵀ, over
  // blocks of pixels whose patches (im2col, zero padded) are built in double: the products of two
  // floats are exact in double and Eigen sums them in double, in its own order (rounding of order
  // 1e-16 relative, far below every kernel's bound). One dot product per output, a single chain,
  // took minutes for VGG16's layers at batch 16.
  const Matrix f =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          filter, s.k, K)
          .cast<double>();
  std::vector<double> out(size_t(s.output_elements()), 0.0);
  // Pixels per block: with K <= 4608 (VGG16) 4.7 MB of patches a thread (hosts with many cores
  // run many threads).
  constexpr int64_t kBlock = 128;
  const int64_t blocks = (pixels + kBlock - 1) / kBlock;
#pragma omp parallel
  {
    Matrix patches(std::min(kBlock, pixels), K);
#pragma omp for schedule(dynamic)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t first = b * kBlock, count = std::min(kBlock, pixels - first);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t pixel = first + i, n = pixel / (P * Q), p = pixel / Q % P, q = pixel % Q;
        for (int64_t r = 0; r < s.r; ++r)
          for (int64_t t = 0; t < s.s; ++t) {
            const int64_t y = p * s.stride - s.pad + r, x = q * s.stride - s.pad + t;
            double* to = patches.data() + i * K + (r * s.s + t) * s.c;
            if (y < 0 || y >= s.h || x < 0 || x >= s.w) {  // zero padding
              std::fill_n(to, s.c, 0.0);
              continue;
            }
            const float* in = input + ((n * s.h + y) * s.w + x) * s.c;
            for (int64_t c = 0; c < s.c; ++c) to[c] = double(in[c]);
          }
      }
      Eigen::Map<Matrix>(out.data() + first * s.k, count, s.k).noalias() =
          patches.topRows(count) * f.transpose();
    }
  }
  return out;
}

double relative_error(const Shape& s, const float* out, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  const size_t count = size_t(s.output_elements());
  for (size_t i = 0; i < count; ++i) {
    const double d = double(out[i]) - ref[i];
    diff += d * d;
    norm += ref[i] * ref[i];
  }
  if (!std::isfinite(diff)) return std::numeric_limits<double>::infinity();
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace ktune::kernels::conv2d

#pragma GCC diagnostic pop
