#include "kernels/common/gemm_reference.hpp"

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

namespace {

// The reference's register tile: kMr rows of op(A) by kNr columns of op(B).
constexpr int64_t kMr = 8, kNr = 8;

// `rows` vectors of length k (element (r, p) at x[r * row_stride + p * p_stride]) as float64
// panels of `width` vectors, each panel p-major (panel[p * width + r]) and zero-padded past the
// last vector, so the tile loop below reads both operands contiguously.
std::vector<double> pack_panels(const float* x, int64_t rows, int64_t k, int64_t row_stride,
                                int64_t p_stride, int64_t width) {
  const int64_t panels = (rows + width - 1) / width;
  std::vector<double> out(size_t(panels * width * k), 0.0);
  if (k == 0) return out;  // no panel to fill (and out.data() may be null)
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    double* dst = out.data() + (r / width) * width * k + r % width;
    const float* src = x + r * row_stride;
    for (int64_t p = 0; p < k; ++p) dst[p * width] = double(src[p * p_stride]);
  }
  return out;
}

}  // namespace

// Each element is its own float64 sum over p = 0..k-1 in order, exactly as the textbook triple
// loop (float products are exact in float64, so fused or not gives the same bits); the panels
// and the kMr x kNr tile only make it fast enough to verify the largest DNN GEMMs in seconds.
std::vector<double> reference_gemm(const Shape& s, const float* a, const float* b, double alpha,
                                   double beta, const float* c_in) {
  std::vector<double> ref(size_t(s.ldc * s.n * s.batch), 0.0);
  const int64_t a_row = s.transa ? s.lda : 1, a_col = s.transa ? 1 : s.lda;
  const int64_t b_row = s.transb ? s.ldb : 1, b_col = s.transb ? 1 : s.ldb;
  const int64_t m_panels = (s.m + kMr - 1) / kMr, n_panels = (s.n + kNr - 1) / kNr;
  for (int64_t batch = 0; batch < s.batch; ++batch) {
    const auto ap = pack_panels(a + batch * s.stride_a(), s.m, s.k, a_row, a_col, kMr);
    const auto bp = pack_panels(b + batch * s.stride_b(), s.n, s.k, b_col, b_row, kNr);
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t jp = 0; jp < n_panels; ++jp)
      for (int64_t ip = 0; ip < m_panels; ++ip) {
        double acc[kMr][kNr] = {};
        const double* pa = ap.data() + ip * kMr * s.k;
        const double* pb = bp.data() + jp * kNr * s.k;
        for (int64_t p = 0; p < s.k; ++p)
          for (int64_t i = 0; i < kMr; ++i)
            for (int64_t j = 0; j < kNr; ++j) acc[i][j] += pa[p * kMr + i] * pb[p * kNr + j];
        for (int64_t j = 0; j < kNr && jp * kNr + j < s.n; ++j)
          for (int64_t i = 0; i < kMr && ip * kMr + i < s.m; ++i) {
            const size_t at = size_t(batch * s.stride_c() + ip * kMr + i + (jp * kNr + j) * s.ldc);
            ref[at] = alpha * acc[i][j] + (beta != 0 ? beta * double(c_in[at]) : 0.0);
          }
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
