// The conv2d family's CPU backend: the cpu_* kinds and the oneDNN baseline, each verified
// against the float64 reference on NaN-poisoned output before it is timed (host_measure).
// Kinds that do not apply to a problem (Winograd on 1×1) are `refused`, with the reason.
#include <fmt/format.h>

#include <limits>
#include <optional>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_kinds.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn.hpp"
#include "ktune/error.hpp"
#include "ktune/host_backend.hpp"
#include "ktune/host_measure.hpp"

namespace ktune::kernels::conv2d {

namespace {

// One set of tensors; several are rotated while timing when a problem fits in the last-level
// cache, so timings do not measure a cache-resident rerun (host_rotation).
struct Buffers {
  std::vector<float> input, filter, output;
};

class CpuSession final : public ProblemSession {
 public:
  CpuSession(const Family& family, const Problem& problem, double llc_bytes)
      : family_(family), shape_(shape_of(problem)) {
    const uint64_t seed = gemm::seed_of(problem.key());
    Buffers first{gemm::random_matrix(size_t(shape_.input_elements()), seed),
                  gemm::random_matrix(size_t(shape_.filter_elements()), seed + 1),
                  std::vector<float>(size_t(shape_.output_elements()))};
    reference_ = reference_conv2d(shape_, first.input.data(), first.filter.data());
    const double bytes =
        4.0 * double(first.input.size() + first.filter.size() + first.output.size());
    rotation_ = host_rotation(bytes, llc_bytes);
    buffers_.push_back(std::move(first));
    for (size_t i = 1; i < rotation_.copies; ++i) buffers_.push_back(buffers_.front());
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    if (const auto why = fp32_only()) return refused_outcome(*why);
    const cpu::Kernel kernel = cpu::kernel_for(family_.space(), config, shape_);
    if (kernel.refusal) return refused_outcome(*kernel.refusal);
    // A prepared kind packs each filter copy once, before anything is verified or timed (as
    // oneDNN's weights are reordered once in run_vendor).
    if (kernel.prepare)
      for (Buffers& b : buffers_) kernel.prepare(args_for(b));
    return measure(kernel.run, policy, kernel.winograd_m);
  }

  std::vector<std::string> vendors() const override {
    if (cpu::onednn_available()) return {"onednn", "onednn_winograd"};
    return {};
  }

  // oneDNN at its best: convolution_auto ("onednn") and its Winograd ("onednn_winograd",
  // refused where oneDNN has none); a report keeps the faster of the two per problem.
  Outcome run_vendor(const std::string& vendor, const TimingPolicy& policy) override {
    if ((vendor != "onednn" && vendor != "onednn_winograd") || !cpu::onednn_available())
      throw Error(fmt::format("vendor '{}' is not available on the cpu backend", vendor));
    if (const auto why = fp32_only()) return refused_outcome(*why);
    const bool winograd = vendor == "onednn_winograd";
    std::unique_ptr<cpu::OnednnConv> conv;
    try {
      conv = std::make_unique<cpu::OnednnConv>(
          shape_, winograd ? cpu::OnednnAlgo::winograd : cpu::OnednnAlgo::automatic);
    } catch (const Error& e) {
      return refused_outcome(e.what());
    }
    std::vector<int> weights;  // one reordered filter per buffer copy, before any timing
    for (const Buffers& b : buffers_) weights.push_back(conv->add_weights(b.filter.data()));
    return measure(
        [&](const cpu::Args& a) {
          size_t copy = 0;
          while (buffers_[copy].input.data() != a.input) ++copy;
          conv->run(a.input, weights[copy], a.output);
        },
        policy, winograd ? 4 : 0);
  }

 private:
  // The CPU kernels and this oneDNN baseline compute FP32 data only: a bf16 / fp16 problem is
  // refused rather than run at a precision it does not ask for.
  std::optional<std::string> fp32_only() const {
    if (shape_.precision == gemm::Precision::fp32) return std::nullopt;
    return fmt::format("the conv2d CPU kernels and oneDNN baseline are FP32 only ({} problem)",
                       gemm::precision_name(shape_.precision));
  }

  cpu::Args args_for(Buffers& b) const {
    return {shape_, b.input.data(), b.filter.data(), b.output.data()};
  }

  template <typename Kernel>
  Outcome measure(Kernel&& kernel, const TimingPolicy& policy, int winograd_m = 0) {
    const double bound = error_bound(shape_, winograd_m);
    return verify_then_time_on_host(
        [&] {
          // Verify first, on output poisoned with NaN: an unwritten element fails the check.
          Buffers& first = buffers_.front();
          std::fill(first.output.begin(), first.output.end(),
                    std::numeric_limits<float>::quiet_NaN());
          kernel(args_for(first));
          return judge_error(relative_error(shape_, first.output.data(), reference_), bound);
        },
        [&](size_t copy) { kernel(args_for(buffers_[copy])); }, rotation_, policy);
  }

  const Family& family_;
  Shape shape_;
  std::vector<double> reference_;
  std::vector<Buffers> buffers_;
  HostRotation rotation_;
};

}  // namespace

void register_cpu_backend() {
  register_host_backend("conv2d", host_sessions<CpuSession>(),
                        [](const Family& family, const Config& config) {
                          return is_cpu_kind(family.space().kind_name(config));
                        });
}

}  // namespace ktune::kernels::conv2d
