#pragma once
// Tune and remember in the GEMM libraries (deploy/tuned_cpu.inl, tuned_cuda.inl,
// tuned_cuda_tc.inl): a problem's in-memory shape and its cache key, which is the GEMM family's
// problem key as the sweep writes it (precision and c16 only where they are not FP32), so that
// `ktune import --remembered` rows join the sweep's datasets (a first call's candidates:
// remember::candidate_order, ktune/remember.hpp).
// C++17, no ktune library.
#include <cstdint>
#include <string>

#include "ktune/remember.hpp"

namespace ktune::kernels::gemm::deploy {

// precision: 0 FP32 (ktune::gemm), 1 tf32, 2 bf16, 3 fp16 (ktune::gemm_ex); c16: C in the
// inputs' 16-bit type.
struct RememberKey {
  bool transa = false, transb = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int precision = 0;
  bool c16 = false;

  ktune::remember::Shape shape() const {
    ktune::remember::Shape s;
    for (int64_t v :
         {int64_t(transa), int64_t(transb), m, n, k, batch, int64_t(precision), int64_t(c16)})
      s.values[s.count++] = v;
    return s;
  }
  std::string problem() const {
    std::string key = "transa=" + std::to_string(int(transa)) +
                      ";transb=" + std::to_string(int(transb)) + ";m=" + std::to_string(m) +
                      ";n=" + std::to_string(n) + ";k=" + std::to_string(k) +
                      ";batch=" + std::to_string(batch);
    if (precision != 0) key += ";precision=" + std::to_string(precision);
    if (c16) key += ";c16=1";
    return key;
  }
};

// Elements from C's first to its last, batch entries included: what a first call's scratch C
// holds (column-major C, leading dimension ldc, batch stride stride_c).
inline int64_t c_span_elements(int64_t m, int64_t n, int64_t batch, int64_t ldc, int64_t stride_c) {
  return (batch - 1) * stride_c + (n - 1) * ldc + m;
}

}  // namespace ktune::kernels::gemm::deploy
