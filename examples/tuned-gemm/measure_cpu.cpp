// CPU side of the deployed-library benchmark: ktune::gemm (host pointers) against OpenBLAS.
#include <cblas.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/gemm/gemm_reference.hpp"
#include "ktune/gemm.hpp"
#include "ktune/host_measure.hpp"

namespace tuned_gemm {
namespace {

using ktune::kernels::gemm::Shape;

ktune::Trans trans(bool t) { return t ? ktune::Trans::yes : ktune::Trans::no; }

// Inputs and output of `copies` independent instances, so that timed runs can rotate through
// them when one instance fits in the last-level cache.
struct Buffers {
  std::vector<std::vector<float>> a, b, c;
};

}  // namespace

ShapeResult measure_cpu(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy) {
  const auto config =
      ktune::tuned_gemm_choice_cpu(trans(s.transa), trans(s.transb), s.m, s.n, s.k, s.batch);
  const std::string config_name = ktune::tuned_gemm_info_cpu().configs[config];
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
  auto run_ktune = [&](size_t i) {
    ktune::gemm_strided_batched(trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f,
                                buf.a[i].data(), s.lda, s.stride_a(),
                                buf.b[i].data(), s.ldb, s.stride_b(), 0.0f,
                                buf.c[i].data(), s.ldc, s.stride_c(), s.batch);
  };
  auto run_openblas = [&](size_t i) {
    for (int64_t e = 0; e < s.batch; ++e)
      cblas_sgemm(CblasColMajor, s.transa ? CblasTrans : CblasNoTrans,
                  s.transb ? CblasTrans : CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0f,
                  buf.a[i].data() + e * s.stride_a(), int(s.lda),
                  buf.b[i].data() + e * s.stride_b(), int(s.ldb), 0.0f,
                  buf.c[i].data() + e * s.stride_c(), int(s.ldc));
  };
  // Both libraries verified on poisoned output against the float64 reference, then timed.
  const auto ref = ktune::kernels::gemm::reference_gemm(s, buf.a[0].data(), buf.b[0].data(), 1.0,
                                                        0.0, nullptr);
  auto verified = [&](const std::function<void(size_t)>& fn) {
    return [&, fn] {
      std::fill(buf.c[0].begin(), buf.c[0].end(), std::numeric_limits<float>::quiet_NaN());
      fn(0);
      ktune::RunVerdict v;
      v.rel_error = ktune::kernels::gemm::relative_error(s, buf.c[0].data(), ref);
      v.ok = v.rel_error <= ktune::kernels::gemm::error_bound(s.k);
      if (!v.ok) v.message = "relative error above the bound";
      return v;
    };
  };
  const ktune::Outcome deployed =
      ktune::verify_then_time_on_host(verified(run_ktune), run_ktune, size_t(copies), policy);
  const ktune::Outcome vendor =
      ktune::verify_then_time_on_host(verified(run_openblas), run_openblas, size_t(copies), policy);
  return shape_result(config_name, deployed, vendor);
}

}  // namespace tuned_gemm
