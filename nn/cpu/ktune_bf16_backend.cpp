// `ktune_bf16`: every convolution and fully connected layer in bf16 through a Bf16ConvPlan
// (nn/cpu/conv_bf16_plan.hpp): weights rounded to bf16 and packed once at prepare time, the FP32
// activations rounded to bf16 as each call packs its patches, FP32 accumulation (vdpbf16ps),
// bias / residual / ReLU fused in FP32 as each tile leaves the registers. Activations stay FP32
// between layers (pooling and adds as the FP32 backends run them, on the plans' pool:
// PlanBackend).
// Needs AVX512_BF16 (cpuid at construction): refused with a one-line error elsewhere.
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

class KtuneBf16Backend final : public PlanBackend {
 public:
  // On OpenMP's team like `ktune` (the threads onednn_bf16 and the host layers use).
  KtuneBf16Backend() : PlanBackend(kernels::cpu_conv::TaskWorkers::openmp) {
    if (const std::string missing = bf16_missing(); !missing.empty())
      throw Error("ktune_bf16: " + missing);
  }
  std::string name() const override { return "ktune_bf16"; }

 private:
  struct Layer {
    std::unique_ptr<Bf16ConvPlan> plan;
    std::vector<float> bias;
  };

  void add_layer(int layer, const Bf16ConvPlan::Shape& s, const float* filter,
                 const float* bias) override {
    layers_[layer] = {std::make_unique<Bf16ConvPlan>(s, filter, threads_),
                      std::vector<float>(bias, bias + s.k)};
  }

  void run(int layer, const float* in, float* out, const float* residual, bool relu) override {
    const auto it = layers_.find(layer);
    if (it == layers_.end())
      throw Error(fmt::format("ktune_bf16: layer {} was not prepared", layer));
    const kernels::cpu_conv::ScopedTaskWorkers workers(workers_);
    it->second.plan->run(in, out, {it->second.bias.data(), residual, relu});
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
