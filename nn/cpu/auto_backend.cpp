// `auto`: each convolution and fully connected layer on whichever of its candidate backends
// (kFp32Candidates: `ktune`, `onednn`, `onednn_winograd`; `auto_bf16`: `ktune_bf16`,
// `onednn_bf16`, the same rule in bf16) runs it fastest on this machine, chosen
// first per layer at prepare time by timing each on the layer's shape with the sweep's repetition
// rule (ktune/timing_loop.hpp) and random data. Switching between the candidates costs what no
// per-layer timing sees (caches; and, before the conv plans ran on OpenMP's team, each one's idle
// threads spinning on the cores the others needed), so the engine then times the whole network per
// layer and all on each candidate (Backend::variants) in interleaved rounds. Each layer's time
// in every forward (the marks around it) goes to that layer's own VariantPicker
// (variant_picker.hpp) over its candidates, which names the candidate each forward of the
// per-layer variant runs it on: its current, or now and then a re-timing of a contender. So a
// layer's pick follows its times in the network (the context the network runs it in, where the
// prepare-time timing had it alone on scratch data) and stays fresh. Picked once from the set-up
// rounds' few times (each candidate's median in forwards of that candidate alone), a wrong pick
// stayed: VGG16 b16 bf16 ran features.2 on `onednn_bf16` (145 ms in the benchmark, against
// `ktune_bf16`'s 119) and `auto_bf16` was 1.019x `ktune_bf16` alone
// (results/amd-epyc-2c/networks-bf16-auto-s14). The variant is picked per inference by a
// VariantPicker too, from the times of the inferences themselves: the set-up rounds' choice alone
// could not follow a machine whose state changed after set-up (docs/networks.md). A conv is timed
// twice: alone, and followed by the residual add it may carry (ktune fuses the add into the conv's
// epilogue, the oneDNN backends' convs are followed by their host add), because the engine calls
// conv2d_add for the convs that end a residual block and the winner can differ. Pooling, adds and
// softmax run on the candidate whose threads the variant uses. All backends here work on plain host
// memory, so the candidates read and write the buffers this backend allocates.
#include <fmt/format.h>

#include <algorithm>
#include <array>
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
#include "nn/cpu/variant_picker.hpp"
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
const std::vector<std::string> kFp32Candidates{"ktune", "onednn", "onednn_winograd"};
const std::vector<std::string> kBf16Candidates{"ktune_bf16", "onednn_bf16"};
constexpr size_t kMaxCandidates = 3;

template <typename Call>
double median_ms(Call&& call) {
  const auto runs = run_adaptive(
      [&] {
        const double t0 = timing_clock_ms();
        call();
        return timing_clock_ms() - t0;
      },
      kPolicy);
  return median_of_samples(runs.samples_ms);
}

class AutoBackend final : public ForwardsBetweenLayers<HostBackend> {
 public:
  AutoBackend(std::string name, const std::vector<std::string>& candidates)
      : name_(std::move(name)), names_(candidates), picker_(1 + int(candidates.size())) {
    if (names_.empty() || names_.size() > kMaxCandidates)
      throw Error(fmt::format("{}: {} candidates (1 to {})", name_, names_.size(), kMaxCandidates));
    for (const auto& c : names_) candidates_.push_back(make_backend(c));
    inferences_.assign(size_t(variants()), 0);
  }

  std::string name() const override { return name_; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    for (auto& c : candidates_) c->prepare_conv(layer, d, filter, bias);
    const size_t in_floats = size_t(d.n * d.h * d.w * d.c);
    const size_t out_floats = size_t(d.n * d.p() * d.q() * d.k);
    const Scratch in(in_floats, 1), out(out_floats, 2), residual(out_floats, 3);
    Choice& choice = choice_of(layer);
    choice.prepared[0] = fastest([&](Backend& c) { c.conv2d(layer, d, in.get(), out.get()); });
    choice.prepared[1] = fastest(
        [&](Backend& c) { conv2d_add_on(c, layer, d, in.get(), residual.get(), out.get(), true); });
    choice.picked = choice.prepared;
    majority_ = most_picked();
  }

  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    for (auto& c : candidates_) c->prepare_fc(layer, d, weight, bias);
    const Scratch x(size_t(d.batch * d.in), 1), y(size_t(d.batch * d.out), 2);
    Choice& choice = choice_of(layer);
    choice.prepared[0] = choice.picked[0] =
        fastest([&](Backend& c) { c.fc(layer, d, x.get(), y.get()); });
    majority_ = most_picked();
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    runs(layer, false).conv2d(layer, d, in, out);
  }
  bool conv2d_add(int layer, const ConvDesc& d, const float* in, const float* residual, float* out,
                  bool relu) override {
    // A conv with its own ReLU cannot be split into a candidate's conv and add (the ReLU would
    // come before the add): declined, so the caller runs conv2d and add. The engine fuses only
    // convs without one.
    if (d.relu) return false;
    conv2d_add_on(runs(layer, true), layer, d, in, residual, out, relu);
    return true;
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    runs(layer, false).fc(layer, d, x, y);
  }

  std::string choices() const override {
    std::vector<int> plain(candidates_.size()), residual(candidates_.size());
    for (const auto& [layer, c] : choices_) {
      ++plain[size_t(c.picked[0])];
      ++residual[size_t(c.picked[1])];
    }
    std::string alone, fused;
    for (size_t i = 0; i < candidates_.size(); ++i) {
      alone += fmt::format("{}{} on {}", i ? ", " : "", plain[i], names_[i]);
      fused += fmt::format("{}{} on {}", i ? ", " : "", residual[i], names_[i]);
    }
    return fmt::format("{} layers: {}; when a residual add follows: {}", choices_.size(), alone,
                       fused);
  }
  // 0: each layer on its fastest candidate; 1 + i: every layer on candidate i, pooling and adds
  // included, so that each is that backend exactly.
  int variants() const override { return 1 + int(candidates_.size()); }
  std::string variant_name(int variant) const override {
    if (variant < 0 || variant >= variants())
      throw Error(fmt::format("{}: no variant {}", name_, variant));
    return variant == 0 ? "each layer on its fastest backend"
                        : names_[size_t(variant - 1)] + " alone";
  }
  // Runs the variant until the next forward begins (the engine's set-up rounds); the forwards
  // after that are picked from their own times (begin_forward).
  void use_variant(int variant) override {
    if (variant < 0 || variant >= variants())
      throw Error(fmt::format("{}: no variant {}", name_, variant));
    variant_ = variant;
    pinned_ = true;
  }
  std::string variant_use() const override {
    std::string use;
    for (int v = 0; v < variants(); ++v)
      use += fmt::format("{}{} {}", v ? ", " : "", inferences_[size_t(v)], variant_name(v));
    return fmt::format("inferences since set-up, by variant: {}", use);
  }

  // The engine marks 0 before a forward's first layer, i + 1 after layer i and the last mark after
  // the last layer: where a forward begins and ends, and each layer's time in the network.
  void reserve_marks(int n) override {
    HostBackend::reserve_marks(n);
    last_mark_ = n - 1;
  }
  void mark(int i) override {
    if (i == 0) begin_forward();
    HostBackend::mark(i);
    if (i > 0) record_layer(i - 1);
    if (i == last_mark_) end_forward();
  }

  // What ran the layer's last call ("" before the first).
  std::string layer_choice(int layer) const override {
    const auto it = choices_.find(layer);
    if (it == choices_.end() || it->second.last < 0) return {};
    return names_[size_t(it->second.last)];
  }

 private:
  // Which candidate (index into names_) runs the layer, by kind of call ([0] alone, [1] when its
  // output feeds a residual add: convs only); and which ran its last call (-1: none yet).
  struct Choice {
    explicit Choice(int candidates)
        : pickers{VariantPicker(candidates), VariantPicker(candidates)} {}
    std::array<int, 2> prepared{}, picked{};  // set-up's layer-alone pick; the pickers' current
    std::array<int, 2> planned{-1, -1};       // this forward's candidate (-1: picked[kind])
    int last = -1;
    bool last_residual = false, pending = false;  // the last call's kind; not yet recorded
    bool ran[2] = {false, false};                 // by kind: called in some forward
    // By kind, the layer's times in the network on each candidate (every forward's) and the
    // rule that picks its candidate from them, with its re-timings.
    std::array<VariantPicker, 2> pickers;
  };
  Choice& choice_of(int layer) {
    return choices_.try_emplace(layer, int(candidates_.size())).first->second;
  }

  // Here, before the forward's first mark, so that the pickers' work lands in no layer's time.
  void begin_forward() {
    const bool picked = !pinned_;
    if (pinned_) {
      pinned_ = false;
    } else {
      variant_ = picker_.next(variant_);
      ++inferences_[size_t(variant_)];
    }
    timed_ = variant_;
    // Each layer of a per-layer forward that the variant's picker runs as its current runs the
    // candidate its own picker names: its current, or a re-timing of another. Set-up's pinned
    // forwards and the variant picker's re-timings of the per-layer variant run each layer's
    // current: a re-timing whose layers were re-timed too would time the variant slower than it is.
    const bool layers_pick = picked && variant_ == 0 && picker_.current(0) == 0;
    for (auto& [layer, c] : choices_)
      for (int kind = 0; kind < 2; ++kind)
        c.planned[size_t(kind)] = layers_pick && c.ran[kind]
                                      ? c.pickers[size_t(kind)].next(c.prepared[size_t(kind)])
                                      : -1;
  }
  // A layer's time in the network, whatever the variant: on the candidate that ran it.
  void record_layer(int layer) {
    const auto it = choices_.find(layer);
    if (it == choices_.end() || !it->second.pending) return;
    Choice& c = it->second;
    c.pending = false;
    c.pickers[size_t(c.last_residual)].record(c.last, elapsed_ms(layer, layer + 1));
  }
  // Each layer's pick as its picker now has it (after the last mark: in no layer's time).
  void end_forward() {
    picker_.record(timed_, elapsed_ms(0, last_mark_));
    for (auto& [layer, c] : choices_)
      for (int kind = 0; kind < 2; ++kind)
        c.picked[size_t(kind)] = c.pickers[size_t(kind)].best(c.prepared[size_t(kind)]);
    majority_ = most_picked();
  }

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
    for (const auto& [layer, c] : choices_) ++count[size_t(c.picked[0])];
    return int(std::max_element(count.begin(), count.end()) - count.begin());
  }

  // The candidate that runs this call of the layer (with a residual add or not); records it.
  Backend& runs(int layer, bool with_residual) {
    const auto it = choices_.find(layer);
    if (it == choices_.end())
      throw Error(fmt::format("{}: layer {} was not prepared", name_, layer));
    Choice& c = it->second;
    const size_t kind = with_residual;
    c.last = variant_ > 0 ? variant_ - 1 : c.planned[kind] >= 0 ? c.planned[kind] : c.picked[kind];
    c.last_residual = with_residual;
    c.ran[kind] = c.pending = true;
    return *candidates_[size_t(c.last)];
  }

  std::string name_;
  std::vector<std::string> names_;                    // the candidates' names
  std::vector<std::unique_ptr<Backend>> candidates_;  // as names_
  std::map<int, Choice> choices_;
  int majority_ = 0;  // most_picked(), kept current by prepare and repick_from_network
  int variant_ = 0;
  VariantPicker picker_;
  std::vector<int64_t> inferences_;  // by variant: forwards it ran after set-up
  bool pinned_ = false;              // use_variant() named the next forward's variant
  int timed_ = 0;                    // the variant of the forward in progress
  int last_mark_ = -1;
};

}  // namespace

void register_auto_backend() {
  register_backend("auto",
                   "per layer the fastest of `ktune`, `onednn` and `onednn_winograd`, timed on "
                   "the layer's shape at set-up and in the network; or one of them alone where "
                   "that is faster, picked per inference from the recent inferences",
                   [] { return std::make_unique<AutoBackend>("auto", kFp32Candidates); });
  register_backend("auto_bf16",
                   "`auto` over `ktune_bf16` and `onednn_bf16` (AVX512_BF16 CPUs only)",
                   [] { return std::make_unique<AutoBackend>("auto_bf16", kBf16Candidates); });
}

}  // namespace ktune::nn::cpu
