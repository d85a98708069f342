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
#include "ktune/timing_loop.hpp"

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

// One library of the comparison: its run on copy i, and what came of its rounds.
struct Contender {
  std::string name;  // "deployed" or the vendor's name
  std::function<void(size_t)> run;
  ktune::Outcome first;  // the verified first round (or why it failed)
  std::vector<double> round_ms;
};

}  // namespace

ShapeResult measure_cpu(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy,
                        const CpuProtocol& protocol) {
  const auto vendors = cpu::vendor_names();
  if (vendors.empty())
    throw ktune::Error("this build has no CPU vendor library (OpenBLAS or oneDNN) to compare with");
  if (protocol.rounds < 1) throw ktune::Error("tuned_gemm_bench: rounds must be at least 1");
  const auto config =
      ktune::tuned_gemm_choice_cpu(trans(s.transa), trans(s.transb), s.m, s.n, s.k, s.batch);
  const std::string config_name = ktune::tuned_gemm_info_cpu().configs[config];
  const size_t size_a = size_t(s.stride_a() * s.batch), size_b = size_t(s.stride_b() * s.batch);
  const size_t size_c = size_t(s.stride_c() * s.batch);
  const double bytes = 4.0 * double(size_a + size_b + size_c);
  // The sweep's rotation rule, so deployed and swept timings see the cache alike.
  static const double llc_bytes = ktune::last_level_cache_bytes(ktune::query_cpu_device());
  const ktune::HostRotation rotation = ktune::host_rotation(bytes, llc_bytes);
  Buffers buf;
  for (size_t i = 0; i < rotation.copies; ++i) {
    buf.a.push_back(ktune::kernels::gemm::random_matrix(size_a, seed));
    buf.b.push_back(ktune::kernels::gemm::random_matrix(size_b, seed + 1));
    buf.c.emplace_back(size_c, std::numeric_limits<float>::quiet_NaN());
  }
  const auto ref =
      ktune::kernels::gemm::reference_gemm(s, buf.a[0].data(), buf.b[0].data(), 1.0, 0.0, nullptr);
  std::vector<Contender> all(1);
  all[0].name = "deployed";
  all[0].run = [&](size_t i) {
    ktune::gemm_strided_batched(trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f,
                                buf.a[i].data(), s.lda, s.stride_a(), buf.b[i].data(), s.ldb,
                                s.stride_b(), 0.0f, buf.c[i].data(), s.ldc, s.stride_c(), s.batch);
  };
  std::vector<std::unique_ptr<cpu::VendorGemm>> gemms;
  std::vector<std::string> kernels;
  for (const auto& name : vendors) {
    Contender c;
    c.name = name;
    try {
      gemms.push_back(cpu::make_vendor_gemm(name, s));  // oneDNN's primitive: built here
      c.run = [&, gemm = gemms.back().get()](size_t i) { gemm->run(args_of(s, buf, i)); };
    } catch (const ktune::Error& e) {
      gemms.push_back(nullptr);
      c.first.status = ktune::Status::failed;
      c.first.message = e.what();
    }
    kernels.push_back(gemms.back() ? gemms.back()->implementation() : "");
    all.push_back(std::move(c));
  }
  // Rounds: every library verified once on poisoned output against the float64 reference (in
  // its first round), then timed with the same policy and rotation, each after the same idle
  // gap; round r starts with library r (mod their count), so that over as many rounds as
  // libraries each runs once in every position (after each of the others). A library's time is
  // the median of its round medians: one slow round (a descheduled thread of this VM) moves it
  // little, and an order effect hits every library alike.
  auto settle = [&] {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(protocol.gap_ms));
  };
  std::vector<RoundTime> rounds;
  for (int round = 0; round < protocol.rounds; ++round) {
    for (size_t pos = 0; pos < all.size(); ++pos) {
      Contender& c = all[(size_t(round) + pos) % all.size()];
      if (!c.run || (round > 0 && c.first.status != ktune::Status::ok)) continue;
      settle();
      ktune::Outcome o;
      if (round == 0) {
        auto verify = [&] {
          std::fill(buf.c[0].begin(), buf.c[0].end(), std::numeric_limits<float>::quiet_NaN());
          c.run(0);
          return ktune::judge_error(ktune::kernels::gemm::relative_error(s, buf.c[0].data(), ref),
                                    ktune::kernels::gemm::error_bound(s.k));
        };
        o = c.first = ktune::verify_then_time_on_host(verify, c.run, rotation, policy);
      } else {  // verified in round 0: timed only
        o = ktune::verify_then_time_on_host(
            [] {
              return ktune::RunVerdict{true, 0, ""};
            },
            c.run, rotation, policy);
        if (o.status != ktune::Status::ok) c.first = o;  // a later timeout or failure counts
      }
      if (o.status == ktune::Status::ok) c.round_ms.push_back(o.timing.median_ms);
      rounds.push_back(
          {c.name, round, int(pos), o.status == ktune::Status::ok ? o.timing.median_ms : 0});
    }
  }
  for (Contender& c : all)
    if (c.first.status == ktune::Status::ok)
      c.first.timing.median_ms = ktune::median_of_samples(c.round_ms);
  std::vector<VendorResult> results;
  for (size_t v = 0; v < vendors.size(); ++v)
    results.push_back(vendor_result(vendors[v], all[v + 1].first, kernels[v]));
  ShapeResult r = shape_result(config_name, all[0].first, std::move(results));
  r.rounds = std::move(rounds);
  return r;
}

}  // namespace tuned_gemm
