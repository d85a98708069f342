// tuned_conv_bench's CPU part: the deployed ktune::conv2d (CPU tuned library) beside oneDNN.
#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <memory>

#include "examples/tuned-conv/conv_measure.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/device.hpp"
#include "ktune/host_measure.hpp"

namespace tuned_conv {

namespace {

namespace conv = ktune::kernels::conv2d;
constexpr int kRounds = 15;  // alternating deployed / vendor timing rounds

struct Buffers {
  std::vector<float> input, filter, output;
};

class CpuMeasure final : public DeviceMeasure {
 public:
  CpuMeasure() : llc_(ktune::last_level_cache_bytes(ktune::query_cpu_device())) {}
  std::string vendor() const override { return "onednn"; }

  LayerResult measure(const conv::Shape& s, uint64_t seed,
                      const ktune::TimingPolicy& policy) override {
    LayerResult r;
    const auto& info = ktune::tuned_conv2d_info_cpu();
    r.config = info.configs[ktune::tuned_conv2d_choice_cpu(s.n, s.h, s.w, s.c, s.k, s.r, s.s,
                                                           s.stride, s.pad)];
    std::vector<Buffers> copies{
        {ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), seed),
         ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), seed + 1),
         std::vector<float>(size_t(s.output_elements()))}};
    const auto reference =
        conv::reference_conv2d(s, copies[0].input.data(), copies[0].filter.data());
    const double bytes =
        4.0 * double(s.input_elements() + s.filter_elements() + s.output_elements());
    for (int i = 1; i < ktune::rotation_copies(bytes, llc_); ++i) copies.push_back(copies[0]);
    auto deployed = [&](Buffers& b) {
      ktune::conv2d(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, b.input.data(),
                    b.filter.data(), b.output.data());
    };
    // Winograd configs may be picked: judge with the larger of the bounds.
    const double bound = conv::error_bound(s, 4);
    const ktune::Outcome out = ktune::verify_then_time_on_host(
        [&] {
          std::fill(copies[0].output.begin(), copies[0].output.end(),
                    std::numeric_limits<float>::quiet_NaN());
          deployed(copies[0]);
          ktune::RunVerdict v;
          v.rel_error = conv::relative_error(s, copies[0].output.data(), reference);
          v.ok = v.rel_error <= bound;
          if (!v.ok)
            v.message = fmt::format("relative error {:.3g} over {:.3g}", v.rel_error, bound);
          return v;
        },
        [&](size_t copy) { deployed(copies[copy]); }, copies.size(), policy);
    r.status = std::string(ktune::to_string(out.status));
    r.message = out.message;
    r.rel_error = out.rel_error;
    if (out.status != ktune::Status::ok) return r;
    r.deployed_ms = out.timing.median_ms;
    if (!conv::cpu::onednn_available()) return r;
    conv::cpu::OnednnConv onednn(s);
    std::vector<int> weights;
    for (const Buffers& b : copies) weights.push_back(onednn.add_weights(b.filter.data()));
    const ktune::Outcome vendor = ktune::verify_then_time_on_host(
        [&] {
          std::fill(copies[0].output.begin(), copies[0].output.end(),
                    std::numeric_limits<float>::quiet_NaN());
          onednn.run(copies[0].input.data(), weights[0], copies[0].output.data());
          ktune::RunVerdict v;
          v.rel_error = conv::relative_error(s, copies[0].output.data(), reference);
          v.ok = v.rel_error <= conv::error_bound(s);
          return v;
        },
        [&](size_t copy) {
          onednn.run(copies[copy].input.data(), weights[copy], copies[copy].output.data());
        },
        copies.size(), policy);
    if (vendor.status != ktune::Status::ok) return r;
    r.vendor_ms = vendor.timing.median_ms;
    // Both verified: time them again alternately, one run each per round, so that on a shared,
    // loaded machine both see the same load; the medians of these rounds are reported.
    std::vector<double> deployed_ms, vendor_ms;
    size_t copy = 0;
    auto timed = [](auto&& run) {
      const auto start = std::chrono::steady_clock::now();
      run();
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
    };
    for (int round = 0; round < kRounds; ++round, copy = (copy + 1) % copies.size()) {
      deployed_ms.push_back(timed([&] { deployed(copies[copy]); }));
      vendor_ms.push_back(timed([&] {
        onednn.run(copies[copy].input.data(), weights[copy], copies[copy].output.data());
      }));
    }
    r.deployed_ms = ktune::summarize(deployed_ms).median_ms;
    r.vendor_ms = ktune::summarize(vendor_ms).median_ms;
    return r;
  }

 private:
  double llc_;
};

}  // namespace

std::unique_ptr<DeviceMeasure> cpu_measure() { return std::make_unique<CpuMeasure>(); }

}  // namespace tuned_conv
