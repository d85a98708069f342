// CPU side of the deployed-library benchmark: ktune::gemm (host pointers) against every CPU
// vendor library of the build (OpenBLAS, oneDNN: kernels/gemm/cpu/gemm_cpu_vendors.hpp, the
// sweep's vendor code), all on the same inputs and buffers.
#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <thread>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"
#include "ktune/error.hpp"
#include "ktune/gemm.hpp"
#include "ktune/host_measure.hpp"

namespace tuned_gemm {
namespace {

using ktune::kernels::gemm::Shape;
namespace cpu = ktune::kernels::gemm::cpu;

ktune::Trans trans(bool t) { return t ? ktune::Trans::yes : ktune::Trans::no; }

// Inputs and output of `copies` independent instances, so that timed runs can rotate through
// them when one instance fits in the last-level cache.
struct Buffers {
  std::vector<std::vector<float>> a, b, c;
};

cpu::Args args_of(const Shape& s, Buffers& buf, size_t i) {
  return {s.transa, s.transb,     s.m,
          s.n,      s.k,          s.batch,
          1.0f,     0.0f,         buf.a[i].data(),
          s.lda,    s.stride_a(), buf.b[i].data(),
          s.ldb,    s.stride_b(), buf.c[i].data(),
          s.ldc,    s.stride_c()};
}

}  // namespace

ShapeResult measure_cpu(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy,
                        double gap_ms) {
  const auto vendors = cpu::vendor_names();
  if (vendors.empty())
    throw ktune::Error("this build has no CPU vendor library (OpenBLAS or oneDNN) to compare with");
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
  // Every library verified on poisoned output against the float64 reference, then timed with
  // the same policy and rotation, one library after the other, each after the same idle gap.
  const auto ref =
      ktune::kernels::gemm::reference_gemm(s, buf.a[0].data(), buf.b[0].data(), 1.0, 0.0, nullptr);
  auto measure = [&](const std::function<void(size_t)>& run) {
    auto verify = [&] {
      std::fill(buf.c[0].begin(), buf.c[0].end(), std::numeric_limits<float>::quiet_NaN());
      run(0);
      return ktune::judge_error(ktune::kernels::gemm::relative_error(s, buf.c[0].data(), ref),
                                ktune::kernels::gemm::error_bound(s.k));
    };
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(gap_ms));
    return ktune::verify_then_time_on_host(verify, run, size_t(copies), policy);
  };
  const ktune::Outcome deployed = measure([&](size_t i) {
    ktune::gemm_strided_batched(trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f,
                                buf.a[i].data(), s.lda, s.stride_a(), buf.b[i].data(), s.ldb,
                                s.stride_b(), 0.0f, buf.c[i].data(), s.ldc, s.stride_c(), s.batch);
  });
  std::vector<VendorResult> results;
  for (const auto& name : vendors) {
    std::unique_ptr<cpu::VendorGemm> gemm;
    ktune::Outcome o;
    try {
      gemm = cpu::make_vendor_gemm(name, s);  // oneDNN's primitive: built here, not timed
      o = measure([&](size_t i) { gemm->run(args_of(s, buf, i)); });
    } catch (const ktune::Error& e) {
      o.status = ktune::Status::failed;
      o.message = e.what();
    }
    results.push_back(vendor_result(name, o, gemm ? gemm->implementation() : ""));
  }
  return shape_result(config_name, deployed, std::move(results));
}

}  // namespace tuned_gemm
