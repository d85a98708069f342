// tuned_conv_bench's CPU part: the deployed CPU tuned conv2d library (ktune::CpuConv2dPlan) beside
// oneDNN at its best.
#include <fmt/format.h>

#include <functional>
#include <limits>
#include <memory>

#include "examples/tuned-conv/conv_measure.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/device.hpp"
#include "ktune/error.hpp"
#include "ktune/host_measure.hpp"

namespace tuned_conv {

namespace {

namespace conv = ktune::kernels::conv2d;
// Rounds of the comparison: every library measured once a round by the sweep's protocol, the
// order rotating (ktune::time_interleaved_on_host; rounded up to whole rotations).
constexpr int kRounds = 3;

struct Buffers {
  std::vector<float> input, filter, output;
};

class CpuMeasure final : public DeviceMeasure {
 public:
  CpuMeasure() : llc_(ktune::last_level_cache_bytes(ktune::query_cpu_device())) {}
  std::string vendor() const override { return "onednn"; }

  // The deployed library as an inference engine runs it: a ktune::CpuConv2dPlan per layer (and
  // per rotated copy of the tensors), built before anything is timed, as oneDNN's weights are
  // reordered once per layer. oneDNN at its best: convolution_auto and, where oneDNN has one for
  // the layer, its Winograd (reorders from / to NHWC counted), the faster by median kept.
  // All are timed by the sweep's own protocol (ktune::verify_then_time_on_host: verified, then
  // back-to-back runs on rotated copies, each from the sweep's cache state), in rotating rounds
  // (ktune::time_interleaved_on_host), so that the bench and the sweep it was trained on time a
  // config alike. Until session 19 the bench timed single runs of the libraries in turn, each
  // right after another library's run, while the sweep timed each back to back; on the quiet
  // 2-core EPYC the two disagreed on ResNet-50's small batch-1 layers (docs/networks.md).
  LayerResult measure(const conv::Shape& s, uint64_t seed,
                      const ktune::TimingPolicy& policy) override {
    LayerResult r;
    const auto& info = ktune::tuned_conv2d_info_cpu();
    std::vector<Buffers> copies{
        {ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), seed),
         ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), seed + 1),
         std::vector<float>(size_t(s.output_elements()))}};
    const auto reference =
        conv::reference_conv2d(s, copies[0].input.data(), copies[0].filter.data());
    const double bytes =
        4.0 * double(s.input_elements() + s.filter_elements() + s.output_elements());
    const ktune::HostRotation rotation = ktune::host_rotation(bytes, llc_);
    for (size_t i = 1; i < rotation.copies; ++i) copies.push_back(copies[0]);
    std::vector<ktune::CpuConv2dPlan> plans;
    for (const Buffers& b : copies)
      plans.emplace_back(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, b.filter.data());
    r.config = plans[0].config() >= 0 ? info.configs[plans[0].config()] : "last resort";
    // `run(copy)` on poisoned output (copy 0), judged against the float64 reference.
    auto candidate = [&](std::function<void(size_t)> run, double bound) {
      ktune::HostCandidate c;
      c.verify = [&, run, bound] {
        std::fill(copies[0].output.begin(), copies[0].output.end(),
                  std::numeric_limits<float>::quiet_NaN());
        run(size_t(0));
        return ktune::judge_error(conv::relative_error(s, copies[0].output.data(), reference),
                                  bound);
      };
      c.run = std::move(run);
      return c;
    };
    // Winograd configs may be picked: judge with the larger of the bounds.
    std::vector<ktune::HostCandidate> all{candidate(
        [&](size_t copy) {
          plans[copy].run(copies[copy].input.data(), copies[copy].output.data());
        },
        conv::error_bound(s, 4))};
    struct Vendor {
      std::unique_ptr<conv::cpu::OnednnConv> conv;
      std::vector<int> weights;
      std::string what;
      bool winograd = false;
    };
    std::vector<Vendor> vendors;
    for (auto algo : {conv::cpu::OnednnAlgo::automatic, conv::cpu::OnednnAlgo::winograd}) {
      if (!conv::cpu::onednn_available()) break;
      Vendor v;
      try {
        v.conv = std::make_unique<conv::cpu::OnednnConv>(s, algo);
      } catch (const ktune::Error&) {
        continue;  // no Winograd for this layer
      }
      for (const Buffers& b : copies) v.weights.push_back(v.conv->add_weights(b.filter.data()));
      v.winograd = algo == conv::cpu::OnednnAlgo::winograd;
      v.what = fmt::format("{}:{}", v.winograd ? "winograd" : "auto", v.conv->implementation());
      vendors.push_back(std::move(v));
    }
    for (Vendor& v : vendors) {
      Vendor* p = &v;
      all.push_back(candidate(
          [&, p](size_t copy) {
            p->conv->run(copies[copy].input.data(), p->weights[copy], copies[copy].output.data());
          },
          conv::error_bound(s, v.winograd ? 4 : 0)));
    }
    const auto outcomes = ktune::time_interleaved_on_host(all, rotation, policy, kRounds);
    const ktune::Outcome& out = outcomes[0];
    r.status = std::string(ktune::to_string(out.status));
    r.message = out.message;
    r.rel_error = out.rel_error;
    if (out.status != ktune::Status::ok) return r;
    r.deployed_ms = out.timing.median_ms;
    for (size_t i = 0; i < vendors.size(); ++i) {
      const ktune::Outcome& o = outcomes[i + 1];
      if (o.status != ktune::Status::ok) continue;  // not verified: not a comparison
      if (r.vendor_ms == 0 || o.timing.median_ms < r.vendor_ms) {
        r.vendor_ms = o.timing.median_ms;
        r.vendor_what = vendors[i].what;
      }
    }
    return r;
  }

 private:
  double llc_;
};

}  // namespace

std::unique_ptr<DeviceMeasure> cpu_measure() { return std::make_unique<CpuMeasure>(); }

}  // namespace tuned_conv
