// `ktune_bf16`: every convolution and fully connected layer in bf16 through a Bf16ConvPlan
// (nn/cpu/conv_bf16_plan.hpp), except the large 3×3 stride-1 layers (winograd_pays below), which
// run Winograd F(4×4) in FP32 on the bf16-rounded operands (nn/cpu/winograd_bf16_plan.hpp: the
// same bf16 contract, a quarter of the multiplies). The GEMM plans: weights rounded to bf16 and
// packed once at prepare time, the FP32 activations rounded to bf16 as each call packs its patches,
// FP32 accumulation (vdpbf16ps), bias / residual / ReLU fused in FP32 as each tile leaves the
// registers. Activations stay FP32 between layers (pooling and adds as the FP32 backends run them,
// on the plans' pool: PlanBackend). Needs AVX512_BF16 (cpuid at construction): refused with a
// one-line error elsewhere.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "kernels/common/cpu/cpu_bf16_support.hpp"
#include "ktune/error.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/bf16_backends.hpp"
#include "nn/cpu/plan_backend.hpp"
#if defined(__AVX512F__)
#include "nn/cpu/conv_bf16_plan.hpp"
#include "nn/cpu/winograd_bf16_plan.hpp"
#endif

namespace ktune::nn::cpu {

std::string bf16_missing() {
  switch (kernels::cpu_isa::avx512_bf16_support()) {
    case kernels::cpu_isa::Bf16Support::ok:
      return "";
    case kernels::cpu_isa::Bf16Support::cpu_without_avx512_bf16:
      return "this CPU does not report AVX512_BF16 (vdpbf16ps)";
    case kernels::cpu_isa::Bf16Support::build_without_avx512:
      break;
  }
  return "this build's kernels target a CPU without AVX-512";
}

#if defined(__AVX512F__)
namespace {

// The 3×3 stride-1 layers that run Winograd in FP32 on bf16 operands (Bf16WinogradPlan) rather
// than the bf16 implicit GEMM: those over 16+ input channels with at least 32 F(4×4) tiles per
// call, or 16 with c·k >= 2^18. Fewer tiles read the transformed filter (36·c·k FP32 values, 8×
// the bf16 filter's bytes) for too little arithmetic. Steering run of 2026-11-28 (AMD EPYC Zen 4,
// 2 threads, load average ~2.5: not quiet; ktune_infer, the variants taking turns in one
// process), per-layer medians of FP32 Winograd on bf16 operands over the bf16 GEMM, ResNet-50
// and VGG16 at batch 1 (in-sample: the rule was drawn from these layers): 0.57-0.89 on every
// layer it picks (VGG16 features.24-28, 16 tiles of 512 × 512: 0.89), 1.11-1.16 on ResNet-50
// layer3's 16-tile 256 × 256 maps. ResNet-50 layer4's 7×7 maps at batch 1 (4 F(4×4) tiles, so
// F(2×2)) were not timed there; the quiet FP32 runs of session 12 had `ktune`'s F(2×2) at
// 0.82-0.83 ms (networks-cpu-s12) against ktune_bf16's GEMM at 0.70-0.74 (networks-bf16-s12;
// both in git history).
// At batch 16 the quiet FP32 run agrees: FP32 `ktune` Winograd at 0.54-0.74× ktune_bf16's GEMM
// on every 3×3 stride-1 layer.
bool winograd_pays(const Bf16ConvPlan::Shape& s) {
  const int64_t tiles = s.n * ((s.p() + 3) / 4) * ((s.q() + 3) / 4);
  return Bf16WinogradPlan::applies(s) &&
         (tiles >= 32 || (tiles >= 16 && s.c * s.k >= (int64_t(1) << 18)));
}

class KtuneBf16Backend final : public PlanBackend {
 public:
  // On OpenMP's team like `ktune` (the threads onednn_bf16 and the host layers use).
  KtuneBf16Backend() : PlanBackend(kernels::cpu_conv::TaskWorkers::openmp) {
    if (const std::string missing = bf16_missing(); !missing.empty())
      throw Error("ktune_bf16: " + missing);
  }
  std::string name() const override { return "ktune_bf16"; }

  // The layer's path, for the per-layer tables: "winograd_f4_fp32" (or f2; "_fused" where each
  // block runs its phases on one thread) or "gemm_bf16".
  std::string layer_choice(int layer) const override {
    const auto it = layers_.find(layer);
    if (it == layers_.end()) return {};
    const Bf16WinogradPlan* w = it->second.winograd.get();
    if (!w) return "gemm_bf16";
    return std::string(w->m() == 4 ? "winograd_f4_fp32" : "winograd_f2_fp32") +
           (w->fused() ? "_fused" : "");
  }

 private:
  struct Layer {
    std::unique_ptr<Bf16ConvPlan> plan;          // the bf16 implicit GEMM, or
    std::unique_ptr<Bf16WinogradPlan> winograd;  // FP32 Winograd on bf16 operands
    std::vector<float> bias;
  };

  void add_layer(int layer, const Bf16ConvPlan::Shape& s, const float* filter,
                 const float* bias) override {
    Layer l;
    if (winograd_pays(s))
      l.winograd = std::make_unique<Bf16WinogradPlan>(s, filter, threads_);
    else
      l.plan = std::make_unique<Bf16ConvPlan>(s, filter, threads_);
    l.bias.assign(bias, bias + s.k);
    layers_[layer] = std::move(l);
  }

  void run(int layer, const float* in, float* out, const float* residual, bool relu) override {
    const auto it = layers_.find(layer);
    if (it == layers_.end())
      throw Error(fmt::format("ktune_bf16: layer {} was not prepared", layer));
    const kernels::cpu_conv::ScopedTaskWorkers workers(workers_);
    const Layer& l = it->second;
    if (l.winograd)
      l.winograd->run(in, out, {l.bias.data(), residual, relu});
    else
      l.plan->run(in, out, {l.bias.data(), residual, relu});
  }

  std::map<int, Layer> layers_;
};

}  // namespace
#endif

void register_ktune_bf16_backend() {
  register_backend("ktune_bf16",
                   "ktune's bf16 conv plans (AVX512_BF16: bf16 weights and activations, FP32 "
                   "accumulation, fused bias/residual/ReLU) for conv and fc",
                   []() -> std::unique_ptr<Backend> {
#if defined(__AVX512F__)
                     return std::make_unique<KtuneBf16Backend>();
#else
                     throw Error("ktune_bf16: " + bf16_missing());
#endif
                   });
}

}  // namespace ktune::nn::cpu
