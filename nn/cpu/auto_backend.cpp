// `auto`: each convolution and fully connected layer on whichever of the `ktune` and `onednn`
// backends runs it faster on this machine, chosen once per layer at prepare time by timing both on
// the layer's shape with the sweep's repetition rule (ktune/timing_loop.hpp) and random data.
// Switching between the candidates costs what no per-layer timing sees (caches; and, before the
// conv plans ran on OpenMP's team, each one's idle threads spinning on the cores the other needed),
// so the engine then times the whole network per layer, all on ktune and all on oneDNN
// (Backend::variants) and keeps the fastest. A conv is timed twice: alone, and followed by the
// residual add it may carry (ktune fuses the add into the conv's epilogue, oneDNN's conv is
// followed by the host add), because the engine calls conv2d_add for the convs that end a residual
// block and the winner can differ. Pooling, adds and softmax run on the candidate whose threads the
// variant uses. All backends here work on plain host memory, so the candidates read and write the
// buffers this backend allocates.
#include <fmt/format.h>

#include <algorithm>
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
  AutoBackend() : ktune_(make_backend("ktune")), onednn_(make_backend("onednn")) {}

  std::string name() const override { return "auto"; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    ktune_->prepare_conv(layer, d, filter, bias);
    onednn_->prepare_conv(layer, d, filter, bias);
    const size_t in_floats = size_t(d.n * d.h * d.w * d.c);
    const size_t out_floats = size_t(d.n * d.p() * d.q() * d.k);
    const Scratch in(in_floats, 1), out(out_floats, 2), residual(out_floats, 3);
    Choice& c = choices_[layer];
    c.plain_ktune = median_ms([&] { ktune_->conv2d(layer, d, in.get(), out.get()); }) <=
                    median_ms([&] { onednn_->conv2d(layer, d, in.get(), out.get()); });
    c.residual_ktune = median_ms([&] {
                         ktune_->conv2d_add(layer, d, in.get(), residual.get(), out.get(), true);
                       }) <= median_ms([&] {
                         onednn_->conv2d(layer, d, in.get(), out.get());
                         add(out.get(), residual.get(), out.get(), out_floats, true);
                       });
  }

  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    ktune_->prepare_fc(layer, d, weight, bias);
    onednn_->prepare_fc(layer, d, weight, bias);
    const Scratch x(size_t(d.batch * d.in), 1), y(size_t(d.batch * d.out), 2);
    choices_[layer].plain_ktune = median_ms([&] { ktune_->fc(layer, d, x.get(), y.get()); }) <=
                                  median_ms([&] { onednn_->fc(layer, d, x.get(), y.get()); });
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    (ran(layer, false) ? *ktune_ : *onednn_).conv2d(layer, d, in, out);
  }
  bool conv2d_add(int layer, const ConvDesc& d, const float* in, const float* residual, float* out,
                  bool relu) override {
    if (ran(layer, true)) return ktune_->conv2d_add(layer, d, in, residual, out, relu);
    onednn_->conv2d(layer, d, in, out);
    add(out, residual, out, size_t(d.n * d.p() * d.q() * d.k), relu);
    return true;
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    (ran(layer, false) ? *ktune_ : *onednn_).fc(layer, d, x, y);
  }

  std::string choices() const override {
    int ktune = 0, residual = 0;
    for (const auto& [layer, c] : choices_) {
      ktune += c.plain_ktune;
      residual += c.residual_ktune;
    }
    return fmt::format(
        "{} of {} layers on ktune's kernels alone ({} on oneDNN); {} of them on ktune's when "
        "a residual add follows",
        ktune, choices_.size(), choices_.size() - size_t(ktune), residual);
  }
  // 0: each layer on its faster candidate; 1, 2: every layer on one candidate, pooling and adds
  // included, so that each is that backend exactly.
  int variants() const override { return 3; }
  std::string variant_name(int variant) const override {
    return variant == 0   ? "each layer on its faster backend"
           : variant == 1 ? "ktune alone"
                          : "onednn alone";
  }
  void use_variant(int variant) override { variant_ = variant; }

  // What ran the layer's last call ("" before the first).
  std::string layer_choice(int layer) const override {
    const auto it = choices_.find(layer);
    if (it == choices_.end() || it->second.last == Choice::Last::none) return {};
    return it->second.last == Choice::Last::ktune ? "ktune" : "onednn";
  }

 private:
  // Which backend runs the layer: alone, and when its output feeds a residual add (convs only).
  struct Choice {
    bool plain_ktune = true, residual_ktune = true;
    enum class Last { none, ktune, onednn } last = Last::none;
  };

  // The layers between convs run where the variant's threads are: on ktune's pool when ktune
  // runs everything, else on OpenMP's (oneDNN's threads).
  Backend& between() override { return variant_ == 1 ? *ktune_ : *onednn_; }

  // Whether ktune's kernels run this call of the layer (with a residual add or not); records it.
  bool ran(int layer, bool with_residual) {
    const auto it = choices_.find(layer);
    if (it == choices_.end()) throw Error(fmt::format("auto: layer {} was not prepared", layer));
    Choice& c = it->second;
    const bool ktune =
        variant_ == 0 ? (with_residual ? c.residual_ktune : c.plain_ktune) : variant_ == 1;
    c.last = ktune ? Choice::Last::ktune : Choice::Last::onednn;
    return ktune;
  }

  std::unique_ptr<Backend> ktune_, onednn_;
  std::map<int, Choice> choices_;
  int variant_ = 0;
};

}  // namespace

void register_auto_backend() {
  register_backend("auto",
                   "per layer the faster of `ktune` and `onednn`, timed on the layer's shape at "
                   "set-up",
                   [] { return std::make_unique<AutoBackend>(); });
}

}  // namespace ktune::nn::cpu
