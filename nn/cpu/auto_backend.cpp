// `auto`: each convolution and fully connected layer on whichever of its candidate backends
// (kCandidates: `ktune`, `onednn`, `onednn_winograd`) runs it fastest on this machine, chosen
// once per layer at prepare time by timing each on the layer's shape with the sweep's repetition
// rule (ktune/timing_loop.hpp) and random data. Switching between the candidates costs what no
// per-layer timing sees (caches; and, before the conv plans ran on OpenMP's team, each one's idle
// threads spinning on the cores the others needed), so the engine then times the whole network per
// layer and all on each candidate (Backend::variants) and keeps the fastest. A conv is timed twice:
// alone, and followed by the residual add it may carry (ktune fuses the add into the conv's
// epilogue, the oneDNN backends' convs are followed by their host add), because the engine calls
// conv2d_add for the convs that end a residual block and the winner can differ. Pooling, adds and
// softmax run on the candidate whose threads the variant uses. All backends here work on plain host
// memory, so the candidates read and write the buffers this backend allocates.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/nn/network.hpp"
#include "ktune/nn/registry.hpp"
#include "ktune/timing_loop.hpp"
#include "nn/cpu/host_backend.hpp"
#include "nn/cpu/reference.hpp"
#include "nn/forward_between.hpp"

namespace ktune::nn::cpu {

namespace {

// Scratch buffers of one timing, 64-byte aligned like HostBackend::alloc (the candidates' kernels
// may rely on it), filled with random values so no kernel meets only zeros.
class Scratch {
 public:
  explicit Scratch(size_t floats, unsigned seed)
      : data_(static_cast<float*>(
            std::aligned_alloc(64, (std::max<size_t>(floats, 1) * 4 + 63) / 64 * 64))) {
    if (!data_) throw Error(fmt::format("auto: out of memory for {} scratch floats", floats));
    const auto values = random_normal(floats, seed);
    std::copy(values.begin(), values.end(), data_.get());
  }
  float* get() const { return data_.get(); }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
};

// The repetition rule of a sweep measurement, with a shorter budget: a network has ~50 layers,
// each timed four times at prepare.
constexpr TimingPolicy kPolicy{
    .warmups = 1, .min_reps = 3, .max_reps = 15, .budget_ms = 15, .timeout_ms = 60000};

// The candidate backends, in the order ties go (ktune first: its own kernels when no slower).
constexpr std::array<const char*, 3> kCandidates{"ktune", "onednn", "onednn_winograd"};

template <typename Call>
double median_ms(Call&& call) {
  const auto runs = run_adaptive(
      [&] {
        const auto t0 = std::chrono::steady_clock::now();
        call();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count();
      },
      kPolicy);
  return median_of_samples(runs.samples_ms);
}

class AutoBackend final : public ForwardsBetweenLayers<HostBackend> {
 public:
  AutoBackend() {
    for (const char* name : kCandidates) candidates_.push_back(make_backend(name));
  }

  std::string name() const override { return "auto"; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    for (auto& c : candidates_) c->prepare_conv(layer, d, filter, bias);
    const size_t in_floats = size_t(d.n * d.h * d.w * d.c);
    const size_t out_floats = size_t(d.n * d.p() * d.q() * d.k);
    const Scratch in(in_floats, 1), out(out_floats, 2), residual(out_floats, 3);
    Choice& choice = choices_[layer];
    choice.plain = fastest([&](Backend& c) { c.conv2d(layer, d, in.get(), out.get()); });
    choice.residual = fastest(
        [&](Backend& c) { conv2d_add_on(c, layer, d, in.get(), residual.get(), out.get(), true); });
    majority_ = most_picked();
  }

  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    for (auto& c : candidates_) c->prepare_fc(layer, d, weight, bias);
    const Scratch x(size_t(d.batch * d.in), 1), y(size_t(d.batch * d.out), 2);
    choices_[layer].plain = fastest([&](Backend& c) { c.fc(layer, d, x.get(), y.get()); });
    majority_ = most_picked();
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    runs(layer, false).conv2d(layer, d, in, out);
  }
  bool conv2d_add(int layer, const ConvDesc& d, const float* in, const float* residual, float* out,
                  bool relu) override {
    conv2d_add_on(runs(layer, true), layer, d, in, residual, out, relu);
    return true;
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    runs(layer, false).fc(layer, d, x, y);
  }

  std::string choices() const override {
    std::vector<int> plain(candidates_.size()), residual(candidates_.size());
    for (const auto& [layer, c] : choices_) {
      ++plain[size_t(c.plain)];
      ++residual[size_t(c.residual)];
    }
    std::string alone, fused;
    for (size_t i = 0; i < candidates_.size(); ++i) {
      alone += fmt::format("{}{} on {}", i ? ", " : "", plain[i], kCandidates[i]);
      fused += fmt::format("{}{} on {}", i ? ", " : "", residual[i], kCandidates[i]);
    }
    return fmt::format("{} layers: {}; when a residual add follows: {}", choices_.size(), alone,
                       fused);
  }
  // 0: each layer on its fastest candidate; 1 + i: every layer on candidate i, pooling and adds
  // included, so that each is that backend exactly.
  int variants() const override { return 1 + int(candidates_.size()); }
  std::string variant_name(int variant) const override {
    if (variant < 0 || variant >= variants())
      throw Error(fmt::format("auto: no variant {}", variant));
    return variant == 0 ? "each layer on its fastest backend"
                        : std::string(kCandidates[size_t(variant - 1)]) + " alone";
  }
  void use_variant(int variant) override {
    if (variant < 0 || variant >= variants())
      throw Error(fmt::format("auto: no variant {}", variant));
    variant_ = variant;
  }

  // What ran the layer's last call ("" before the first).
  std::string layer_choice(int layer) const override {
    const auto it = choices_.find(layer);
    if (it == choices_.end() || it->second.last < 0) return {};
    return kCandidates[size_t(it->second.last)];
  }

 private:
  // Which candidate (index into kCandidates) runs the layer: alone, and when its output feeds a
  // residual add (convs only); and which ran its last call (-1: none yet).
  struct Choice {
    int plain = 0, residual = 0, last = -1;
  };

  // The candidate whose call(backend) has the smallest median (ties to the earlier candidate).
  template <typename Call>
  int fastest(Call&& call) {
    int best = 0;
    double best_ms = 0;
    for (size_t i = 0; i < candidates_.size(); ++i) {
      const double ms = median_ms([&] { call(*candidates_[i]); });
      if (i == 0 || ms < best_ms) best = int(i), best_ms = ms;
    }
    return best;
  }

  // The conv and the residual add on one candidate: fused where it fuses them (ktune), else its
  // conv followed by its own add, as that backend alone runs them.
  static void conv2d_add_on(Backend& c, int layer, const ConvDesc& d, const float* in,
                            const float* residual, float* out, bool relu) {
    if (c.conv2d_add(layer, d, in, residual, out, relu)) return;
    c.conv2d(layer, d, in, out);
    c.add(out, residual, out, size_t(d.n * d.p() * d.q() * d.k), relu);
  }

  // The layers between convs run where the variant's threads are: on the candidate that runs
  // everything, else on the one that runs most conv and fc layers (each pool's idle threads spin
  // on the cores the others need, so the between layers follow the majority).
  Backend& between() override {
    return *candidates_[size_t(variant_ > 0 ? variant_ - 1 : majority_)];
  }
  // The candidate picked for most layers (alone; ties to the earlier one).
  int most_picked() const {
    std::vector<int> count(candidates_.size());
    for (const auto& [layer, c] : choices_) ++count[size_t(c.plain)];
    return int(std::max_element(count.begin(), count.end()) - count.begin());
  }

  // The candidate that runs this call of the layer (with a residual add or not); records it.
  Backend& runs(int layer, bool with_residual) {
    const auto it = choices_.find(layer);
    if (it == choices_.end()) throw Error(fmt::format("auto: layer {} was not prepared", layer));
    Choice& c = it->second;
    c.last = variant_ > 0 ? variant_ - 1 : with_residual ? c.residual : c.plain;
    return *candidates_[size_t(c.last)];
  }

  std::vector<std::unique_ptr<Backend>> candidates_;  // as kCandidates
  std::map<int, Choice> choices_;
  int majority_ = 0;  // most_picked(), kept current by prepare
  int variant_ = 0;
};

}  // namespace

void register_auto_backend() {
  register_backend("auto",
                   "per layer the fastest of `ktune`, `onednn` and `onednn_winograd`, timed on "
                   "the layer's shape at set-up; or one of them alone where that is faster",
                   [] { return std::make_unique<AutoBackend>(); });
}

}  // namespace ktune::nn::cpu
