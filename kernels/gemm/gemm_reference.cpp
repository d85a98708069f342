#include "kernels/gemm/gemm_reference.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace ktune::kernels::gemm {

std::vector<float> random_matrix(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(rng);
  return v;
}

std::vector<double> reference_gemm(const Shape& s, const float* a, const float* b, double alpha,
                                   double beta, const float* c_in) {
  std::vector<double> ref(size_t(s.ldc * s.n * s.batch), 0.0);
  const int64_t a_row = s.transa ? s.lda : 1, a_col = s.transa ? 1 : s.lda;
  const int64_t b_row = s.transb ? s.ldb : 1, b_col = s.transb ? 1 : s.ldb;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t batch = 0; batch < s.batch; ++batch)
    for (int64_t j = 0; j < s.n; ++j) {
      const float* ab = a + batch * s.stride_a();
      const float* bb = b + batch * s.stride_b();
      for (int64_t i = 0; i < s.m; ++i) {
        double sum = 0;
        for (int64_t p = 0; p < s.k; ++p)
          sum += double(ab[i * a_row + p * a_col]) * double(bb[p * b_row + j * b_col]);
        const size_t at = size_t(batch * s.stride_c() + i + j * s.ldc);
        ref[at] = alpha * sum + (beta != 0 ? beta * double(c_in[at]) : 0.0);
      }
    }
  return ref;
}

double relative_error(const Shape& s, const float* c, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (int64_t batch = 0; batch < s.batch; ++batch)
    for (int64_t j = 0; j < s.n; ++j)
      for (int64_t i = 0; i < s.m; ++i) {
        const size_t at = size_t(batch * s.stride_c() + i + j * s.ldc);
        const double d = double(c[at]) - ref[at];
        diff += d * d;
        norm += ref[at] * ref[at];
      }
  if (!std::isfinite(diff)) return std::numeric_limits<double>::infinity();
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

uint64_t seed_of(const std::string& key) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across platforms, unlike std::hash
  for (unsigned char ch : key) h = (h ^ ch) * 1099511628211ull;
  return h;
}

}  // namespace ktune::kernels::gemm
