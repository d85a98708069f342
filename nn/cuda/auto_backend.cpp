// `auto-cuda`, `auto-cuda-tf32`, `auto-cuda-bf16` (result rows `auto`, `auto-tf32`,
// `auto-bf16`): the whole network on whichever CUDA backend of the precision runs it fastest on
// this GPU — ktune's own kernels, cuDNN, cuBLAS, and in bf16 ktune-cuda-bf16's per-layer mix of
// gemm_ex and cuDNN besides gemm_ex alone (nn/cuda/register.cpp lists them). Each candidate
// prepares every layer; the engine then times one forward pass of each (Backend::variants) and
// keeps the fastest: each pass recorded once as a CUDA graph and replayed, as a served network
// runs, in interleaved rounds (Engine::choose_variant). Whole networks rather than a per-layer
// mix: each candidate has its own stream and library handles, and mixing them per layer would
// need a cross-stream wait between layers that run on different ones.
//
// The candidates share the activation buffers this backend allocates (device memory, readable
// from any stream); every call goes to the candidate in use, and switching candidates waits for
// the old one's stream, so an upload on one is complete before another reads it.
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "ktune/error.hpp"
#include "nn/cuda/cuda_backend.hpp"
#include "nn/cuda/register.hpp"
#include "nn/forward_between.hpp"

namespace ktune::nn::cuda {

namespace {

class AutoBackend final : public ForwardsBetweenLayers<CudaBackend> {
 public:
  AutoBackend(Precision precision, std::vector<std::unique_ptr<Backend>> candidates)
      : ForwardsBetweenLayers<CudaBackend>(precision) {
    for (auto& b : candidates) {
      auto* cuda = dynamic_cast<CudaBackend*>(b.get());
      if (!cuda || cuda->precision() != precision)
        throw Error(fmt::format("{}: candidate {} is not a CUDA backend in {}", name(), b->name(),
                                precision_name(precision)));
      candidates_.emplace_back(cuda);
      b.release();
    }
    if (candidates_.empty()) throw Error(name() + ": no candidate backends");
    timed_as_.assign(candidates_.size(), Timed::not_yet);
  }

  std::string name() const override {
    return precision() == Precision::fp32 ? "auto-cuda"
                                          : std::string("auto-cuda-") + precision_name(precision());
  }

  float* alloc(size_t floats) override {
    float* p = CudaBackend::alloc(floats);
    for (auto& c : candidates_) c->reserve_staging(floats);
    return p;
  }
  void upload(float* dst, const float* host, size_t floats) override {
    now().upload(dst, host, floats);
  }
  void download(float* host, const float* src, size_t floats) override {
    now().download(host, src, floats);
  }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    for (auto& c : candidates_) c->prepare_conv(layer, d, filter, bias);
  }
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    for (auto& c : candidates_) c->prepare_fc(layer, d, weight, bias);
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    now().conv2d(layer, d, in, out);
  }
  bool conv2d_add(int layer, const ConvDesc& d, const float* in, const float* residual, float* out,
                  bool relu) override {
    return now().conv2d_add(layer, d, in, residual, out, relu);
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    now().fc(layer, d, x, y);
  }
  void synchronize() override { now().synchronize(); }

  void reserve_marks(int n) override {
    for (auto& c : candidates_) c->reserve_marks(n);
  }
  void mark(int i) override { now().mark(i); }
  double elapsed_ms(int i, int j) override { return now().elapsed_ms(i, j); }

  int variants() const override { return int(candidates_.size()); }
  std::string variant_name(int variant) const override {
    return candidates_.at(size_t(variant))->name();
  }
  void use_variant(int variant) override {
    if (variant < 0 || variant >= variants())
      throw Error(fmt::format("{}: no variant {}", name(), variant));
    if (variant == active_) return;
    now().synchronize();  // what the old stream still does (an upload) precedes the new one
    active_ = variant;
  }
  // The pass recorded once per candidate (after one eager pass: libraries set up lazily) and
  // replayed; a candidate whose pass cannot be recorded is timed eagerly.
  double time_forward(const std::function<void()>& forward, int last_mark) override {
    CudaBackend& c = now();
    Timed& how = timed_as_[size_t(active_)];
    if (how == Timed::not_yet) {
      forward();
      c.synchronize();
      how = Timed::graph;
      try {
        c.begin_capture();
        try {
          forward();
        } catch (...) {
          c.end_capture();
          throw;
        }
        c.end_capture();
      } catch (const std::exception&) {
        how = Timed::eager;
      }
    }
    if (how == Timed::graph)
      c.replay();
    else
      forward();
    c.synchronize();
    return c.elapsed_ms(0, last_mark);
  }

  void begin_capture() override { now().begin_capture(); }
  void end_capture() override { now().end_capture(); }
  void replay() override { now().replay(); }
  bool captured() const override { return candidates_[size_t(active_)]->captured(); }
  void set_epilogue(bool on) override {
    for (auto& c : candidates_) c->set_epilogue(on);
  }
  // The candidate in use and what it chose for the layer.
  std::string layer_note(int layer) const override {
    const CudaBackend& c = *candidates_[size_t(active_)];
    const std::string note = c.layer_note(layer);
    return note.empty() ? c.name() : c.name() + ": " + note;
  }

 private:
  enum class Timed { not_yet, graph, eager };
  CudaBackend& now() { return *candidates_[size_t(active_)]; }
  Backend& between() override { return now(); }

  std::vector<std::unique_ptr<CudaBackend>> candidates_;
  std::vector<Timed> timed_as_;  // by candidate: how time_forward runs its pass
  int active_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_auto_backend(Precision precision,
                                           std::vector<std::unique_ptr<Backend>> candidates) {
  return std::make_unique<AutoBackend>(precision, std::move(candidates));
}

}  // namespace ktune::nn::cuda
