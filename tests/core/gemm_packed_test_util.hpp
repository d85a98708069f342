#pragma once
// The packed kinds' test problems (test_gemm_cpu_packed.cpp, test_gemm_cpu_packedz*.cpp): inputs,
// float64 reference, NaN-poisoned or random C with guard regions, and the check of one run.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels/common/cpu/gemm_cpu_packed_dispatch.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"

namespace ktune::packed_test {

using kernels::gemm::PackedParams;

inline PackedParams with_blocks(PackedParams tile, int kc, int mc, int nc) {
  tile.kc = kc;
  tile.mc = mc;
  tile.nc = nc;
  return tile;
}

inline std::string name_of(const PackedParams& p) {
  return "mr=" + std::to_string(p.mr) + " nr=" + std::to_string(p.nr) +
         " kc=" + std::to_string(p.kc) + " mc=" + std::to_string(p.mc) +
         " nc=" + std::to_string(p.nc) + " pa=" + std::to_string(p.pa) +
         " pb=" + std::to_string(p.pb);
}

constexpr int64_t kGuard = 37;  // floats after the last batch entry that must stay untouched

// One GEMM problem with its inputs, its float64 reference and the initial C (random where
// beta != 0, NaN in the logical elements where beta == 0; random in the padding rows between
// m and ldc and in the guard after the last entry, which the kernel must not write).
struct Case {
  kernels::gemm::Shape s;
  float alpha = 1, beta = 0;
  std::vector<float> a, b, c0;
  std::vector<double> ref;
  mutable std::vector<uint16_t> a16, b16;  // bf16 bits of a and b, made by check_bf16
  mutable std::vector<double> ref16;       // the reference of the bf16-rounded inputs

  Case(bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch = 1, int64_t pad = 0,
       float alpha_ = 1, float beta_ = 0, uint64_t seed = 7)
      : alpha(alpha_), beta(beta_) {
    s.transa = ta;
    s.transb = tb;
    s.m = m;
    s.n = n;
    s.k = k;
    s.batch = batch;
    s.lda = (ta ? k : m) + pad;
    s.ldb = (tb ? n : k) + pad;
    s.ldc = m + pad;
    a = kernels::gemm::random_matrix(size_t(s.stride_a() * batch + kGuard), seed);
    b = kernels::gemm::random_matrix(size_t(s.stride_b() * batch + kGuard), seed + 1);
    c0 = kernels::gemm::random_matrix(size_t(s.stride_c() * batch + kGuard), seed + 2);
    ref = kernels::gemm::reference_gemm(s, a.data(), b.data(), alpha, beta, c0.data());
    if (beta == 0)
      for (int64_t e = 0; e < batch; ++e)
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i)
            c0[size_t(e * s.stride_c() + i + j * s.ldc)] = std::numeric_limits<float>::quiet_NaN();
  }

  kernels::gemm::cpu::Args args(float* c) const {
    return {s.transa, s.transb,     s.m,      s.n,   s.k,          s.batch,
            alpha,    beta,         a.data(), s.lda, s.stride_a(), b.data(),
            s.ldb,    s.stride_b(), c,        s.ldc, s.stride_c()};
  }

  bool logical(size_t at) const {
    const int64_t off = int64_t(at);
    if (off >= s.stride_c() * s.batch) return false;
    return off % s.stride_c() % s.ldc < s.m;
  }

  // The same call on the bf16 bits of a and b (to_input_bits), for the bf16 kernels.
  kernels::gemm::cpu::Bf16Args bf16_args(float* c) const {
    return {s.transa, s.transb,     s.m,        s.n,   s.k,          s.batch,
            alpha,    beta,         a16.data(), s.lda, s.stride_a(), b16.data(),
            s.ldb,    s.stride_b(), c,          s.ldc, s.stride_c()};
  }

  // Runs the kernel (run_packed, or run_packedz for that kind) on a fresh copy of C and checks
  // the error bound and that nothing outside the logical m×n×batch elements changed (bitwise,
  // so NaN poison compares too).
  using Run = void (*)(const kernels::gemm::cpu::Args&, const PackedParams&);
  void check(const PackedParams& p, Run run = &kernels::gemm::cpu::run_packed) const {
    check_with(p, ref, [&](float* c) { run(args(c), p); });
  }

  // The bf16 kernels against the float64 product of the bf16-rounded inputs: with the inputs
  // exact, only FP32 accumulation remains, so the FP32 bound applies (much tighter than the bf16
  // one, which admits the rounding of the inputs as well).
  using RunBf16 = void (*)(const kernels::gemm::cpu::Bf16Args&, const PackedParams&);
  void check_bf16(const PackedParams& p, RunBf16 run) const {
    if (a16.empty()) {
      a16 = kernels::gemm::to_input_bits(a, kernels::gemm::Precision::bf16);
      b16 = kernels::gemm::to_input_bits(b, kernels::gemm::Precision::bf16);
      std::vector<float> ra = a, rb = b;
      for (float& x : ra) x = kernels::gemm::round_input(x, kernels::gemm::Precision::bf16);
      for (float& x : rb) x = kernels::gemm::round_input(x, kernels::gemm::Precision::bf16);
      ref16 = kernels::gemm::reference_gemm(s, ra.data(), rb.data(), alpha, beta, c0.data());
    }
    check_with(p, ref16, [&](float* c) { run(bf16_args(c), p); });
  }

  template <class RunOnC>
  void check_with(const PackedParams& p, const std::vector<double>& reference,
                  RunOnC&& run_on_c) const {
    std::vector<float> c = c0;
    const auto a_before = a, b_before = b;
    run_on_c(c.data());
    const std::string what = name_of(p) + " ta=" + std::to_string(s.transa) +
                             " tb=" + std::to_string(s.transb) + " m=" + std::to_string(s.m) +
                             " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
                             " batch=" + std::to_string(s.batch);
    EXPECT_LE(kernels::gemm::relative_error(s, c.data(), reference),
              kernels::gemm::error_bound(s.k))
        << what;
    size_t touched = 0;
    for (size_t at = 0; at < c.size(); ++at)
      if (!logical(at) && std::memcmp(&c[at], &c0[at], sizeof(float)) != 0) ++touched;
    EXPECT_EQ(touched, 0u) << what << ": elements outside C were written";
    EXPECT_EQ(a, a_before) << what;
    EXPECT_EQ(b, b_before) << what;
  }
};

// Runs body(ta, tb) for the four transpose pairs under 1, 2 and 3 threads (whole batch entries
// per thread, entries cut into row or column parts; 1 alone without OpenMP), then restores the
// thread count.
template <class Body>
void for_transposes_and_thread_counts(Body&& body) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  const int thread_counts[] = {1, 2, 3};
#else
  const int thread_counts[] = {1};
#endif
  for ([[maybe_unused]] int threads : thread_counts) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) body(ta == 1, tb == 1);
  }
#ifdef _OPENMP
  omp_set_num_threads(saved);
#endif
}

}  // namespace ktune::packed_test
