#include "kernels/conv2d/conv2d_reference.hpp"

#include <cmath>
#include <limits>

namespace ktune::kernels::conv2d {

std::vector<double> reference_conv2d(const Shape& s, const float* input, const float* filter) {
  const int64_t P = s.p(), Q = s.q();
  std::vector<double> out(size_t(s.output_elements()), 0.0);
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t p = 0; p < P; ++p)
      for (int64_t q = 0; q < Q; ++q)
        for (int64_t k = 0; k < s.k; ++k) {
          double sum = 0;
          for (int64_t r = 0; r < s.r; ++r) {
            const int64_t y = p * s.stride - s.pad + r;
            if (y < 0 || y >= s.h) continue;  // zero padding
            for (int64_t t = 0; t < s.s; ++t) {
              const int64_t x = q * s.stride - s.pad + t;
              if (x < 0 || x >= s.w) continue;
              const float* in = input + ((n * s.h + y) * s.w + x) * s.c;
              const float* f = filter + ((k * s.r + r) * s.s + t) * s.c;
              for (int64_t c = 0; c < s.c; ++c) sum += double(in[c]) * double(f[c]);
            }
          }
          out[size_t(((n * P + p) * Q + q) * s.k + k)] = sum;
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
