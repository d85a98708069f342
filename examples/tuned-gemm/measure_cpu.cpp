// CPU side of the deployed-library benchmark: ktune::gemm (host pointers) against OpenBLAS.
#include <cblas.h>

#include <chrono>
#include <limits>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/gemm/gemm_reference.hpp"
#include "ktune/gemm.hpp"
#include "ktune/host_measure.hpp"

namespace tuned_gemm {
namespace {

using ktune::kernels::gemm::Shape;

ktune::Trans trans(bool t) { return t ? ktune::Trans::yes : ktune::Trans::no; }

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Inputs and output of `copies` independent instances, so that timed runs can rotate through
// them when one instance fits in the last-level cache.
struct Buffers {
  std::vector<std::vector<float>> a, b, c;
};

}  // namespace

ShapeResult measure_cpu(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy) {
  ShapeResult r;
  const auto config =
      ktune::tuned_gemm_choice_cpu(trans(s.transa), trans(s.transb), s.m, s.n, s.k, s.batch);
  r.config = ktune::tuned_gemm_info_cpu().configs[config];
  const size_t size_a = size_t(s.stride_a() * s.batch), size_b = size_t(s.stride_b() * s.batch);
  const size_t size_c = size_t(s.stride_c() * s.batch);
  const double bytes = 4.0 * double(size_a + size_b + size_c);
  // The sweep's rotation rule, so deployed and swept timings see the cache alike.
  static const double llc_bytes = ktune::last_level_cache_bytes(ktune::query_cpu_device());
  const int copies = ktune::rotation_copies(bytes, llc_bytes);
  Buffers buf;
  for (int i = 0; i < copies; ++i) {
    buf.a.push_back(ktune::kernels::gemm::random_matrix(size_a, seed));
    buf.b.push_back(ktune::kernels::gemm::random_matrix(size_b, seed + 1));
    buf.c.emplace_back(size_c, std::numeric_limits<float>::quiet_NaN());
  }
  auto run_ktune = [&](int i) {
    ktune::gemm_strided_batched(trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f,
                                buf.a[size_t(i)].data(), s.lda, s.stride_a(),
                                buf.b[size_t(i)].data(), s.ldb, s.stride_b(), 0.0f,
                                buf.c[size_t(i)].data(), s.ldc, s.stride_c(), s.batch);
  };
  auto run_openblas = [&](int i) {
    for (int64_t e = 0; e < s.batch; ++e)
      cblas_sgemm(CblasColMajor, s.transa ? CblasTrans : CblasNoTrans,
                  s.transb ? CblasTrans : CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0f,
                  buf.a[size_t(i)].data() + e * s.stride_a(), int(s.lda),
                  buf.b[size_t(i)].data() + e * s.stride_b(), int(s.ldb), 0.0f,
                  buf.c[size_t(i)].data() + e * s.stride_c(), int(s.ldc));
  };
  try {
    run_ktune(0);
    const auto ref = ktune::kernels::gemm::reference_gemm(s, buf.a[0].data(), buf.b[0].data(), 1.0,
                                                          0.0, nullptr);
    r.rel_error = ktune::kernels::gemm::relative_error(s, buf.c[0].data(), ref);
    if (!(r.rel_error <= ktune::kernels::gemm::error_bound(s.k))) {
      r.status = "wrong";
      r.message = "relative error above the bound";
      return r;
    }
    int next = 0;
    auto timed = [&](auto&& fn) {
      return [&, fn] {
        next = (next + 1) % copies;
        const auto start = std::chrono::steady_clock::now();
        fn(next);
        return elapsed_ms(start);
      };
    };
    r.deployed_ms = ktune::time_adaptive(timed(run_ktune), policy).median_ms;
    r.vendor_ms = ktune::time_adaptive(timed(run_openblas), policy).median_ms;
    r.status = "ok";
  } catch (const std::exception& e) {
    r.status = "failed";
    r.message = e.what();
  }
  return r;
}

}  // namespace tuned_gemm
