// `ktune`: every convolution and fully connected layer through a CPU convolution plan
// (kernels/common/cpu/conv_cpu_plan.hpp), built once per layer at prepare time: the filter
// packed for the register tile, the split into thread tasks and the workspaces fixed, bias and
// ReLU (and, through conv2d_add, the residual add) applied as each output tile leaves the
// registers. A fully connected layer is the 1×1 convolution of `batch` 1×1 images of `in`
// channels with the [out][in] weight as its KRSC filter. Pooling and adds run on the plans' threads
// too (nn/cpu/plan_backend.hpp). Nothing is allocated per inference. The threads are OpenMP's team,
// the ones oneDNN and the host layers use (kernels/common/cpu/cpu_task_workers.hpp): with the
// packed GEMM's own helper pool instead (`ktune_pool`), libgomp's workers, spinning ~7.5 ms after
// each of oneDNN's parallel regions, shared a core with the pool's helper at the start of every
// ktune inference that followed a oneDNN one. On a loaded machine `ktune_pool` is the robust one:
// an OpenMP region waits for a descheduled worker, the pool's caller runs the tasks no helper has
// claimed.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "kernels/common/cpu/conv_cpu_plan.hpp"
#include "ktune/error.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/plan_backend.hpp"

namespace ktune::nn::cpu {

namespace {

namespace kc = ktune::kernels::cpu_conv;

// Winograd in fused blocks (each block of 12 tiles through all three phases on one thread, no
// barriers between them) where a call has at least 196 F(4×4) output tiles and fewer than 512
// output channels, the phases-shared plan elsewhere. From the quiet CPU conv sweep of 2026-11-28
// (results/amd-epyc-2c/conv-plan, AMD EPYC Zen 4, 2 cores), best phases-shared time over best
// fused time per 3×3 stride-1 layer: 1.03-2.09 on every layer with 196+ tiles and k < 512 (14
// layers), 0.88-0.99 on the three with 196+ tiles and k = 512, 0.72-1.13 below 196.
// The padded layers on the direct path (the 3×3 stride-2 layers, the stems) have their input
// copied into the plan's padded buffer by the tasks as they need its rows, not by a parallel
// region before them (PlanBlocking::pad_on_demand): at batch 16 the copy, read from memory,
// overlaps the other thread's tiles. conv_plan_bench, quiet 2-core EPYC (Zen 4), 10 rounds:
// ResNet-50's layer2.0.conv2 at batch 16 20.2 -> 18.6 ms (oneDNN 17.7), its five such shapes
// with VGG16's first layer 99.3 -> 94.8 ms; at batch 1 5.82 -> 5.83 (within the noise).
kc::PlanBlocking ktune_blocking() {
  kc::PlanBlocking bl;
  bl.winograd_fused_tiles = 12;
  bl.winograd_fused_min_call_tiles = 196;
  bl.winograd_fused_max_k = 511;
  bl.pad_on_demand = true;
  return bl;
}

class KtuneBackend final : public PlanBackend {
 public:
  explicit KtuneBackend(kc::TaskWorkers workers) : PlanBackend(workers) {}
  std::string name() const override {
    return workers_ == kc::TaskWorkers::openmp ? "ktune" : "ktune_pool";
  }

 private:
  struct Layer {
    std::unique_ptr<kc::ConvPlan> plan;
    std::vector<float> bias;
  };

  void add_layer(int layer, const kc::Shape& s, const float* filter, const float* bias) override {
    layers_[layer] = {std::make_unique<kc::ConvPlan>(s, filter, 0, ktune_blocking()),
                      std::vector<float>(bias, bias + s.k)};
  }

  void run(int layer, const float* in, float* out, const float* residual, bool relu) override {
    const auto it = layers_.find(layer);
    if (it == layers_.end()) throw Error(fmt::format("ktune: layer {} was not prepared", layer));
    const kc::ScopedTaskWorkers workers(workers_);
    it->second.plan->run(in, out, {it->second.bias.data(), residual, relu});
  }

  std::map<int, Layer> layers_;
};

}  // namespace

void register_ktune_backend() {
  register_backend("ktune",
                   "ktune's CPU conv plans (filter packed once, fused bias/residual/ReLU) for conv "
                   "and fc",
                   [] { return std::make_unique<KtuneBackend>(kc::TaskWorkers::openmp); });
  register_backend("ktune_pool",
                   "`ktune` with the tasks on the packed GEMM's helper pool instead of OpenMP's "
                   "team (its former threads: spinning beside oneDNN's OpenMP workers)",
                   [] { return std::make_unique<KtuneBackend>(kc::TaskWorkers::pool); });
}

}  // namespace ktune::nn::cpu
