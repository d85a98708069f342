#pragma once
// A CPU backend that runs each conv and fc layer through a plan built at prepare time (`ktune`,
// `ktune_pool`, `ktune_bf16`), its tasks on OpenMP's team or the packed GEMM's helper pool
// (kernels/common/cpu/cpu_task_workers.hpp says why the team is the default): a fully connected
// layer is the 1×1 convolution of `batch` 1×1 images of `in` channels with the [out][in] weight as
// its KRSC filter; the residual add is fused (conv2d_add); pooling and adds run on the plans'
// threads, since with two sets of threads each set's idle threads spin on the cores the other
// needs.
#include <omp.h>

#include <algorithm>

#include "kernels/common/cpu/conv_cpu_tile.hpp"
#include "kernels/common/cpu/cpu_task_workers.hpp"
#include "nn/cpu/host_backend.hpp"

namespace ktune::nn::cpu {

class PlanBackend : public HostBackend {
 public:
  explicit PlanBackend(kernels::cpu_conv::TaskWorkers workers) : workers_(workers) {}

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    add_layer(layer, {d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad}, filter, bias);
  }
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    add_layer(layer, {d.batch, 1, 1, d.in, d.out, 1, 1, 1, 0}, weight, bias);
  }
  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    run(layer, in, out, nullptr, d.relu);
  }
  bool conv2d_add(int layer, const ConvDesc&, const float* in, const float* residual, float* out,
                  bool relu) override {
    run(layer, in, out, residual, relu);
    return true;
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    run(layer, x, y, nullptr, d.relu);
  }

 protected:
  // The layer's plan for shape s (filter KRSC and bias: read only during the call).
  virtual void add_layer(int layer, const kernels::cpu_conv::Shape& s, const float* filter,
                         const float* bias) = 0;
  // out = relu?(conv(in) + bias (+ residual)) on the layer's plan.
  virtual void run(int layer, const float* in, float* out, const float* residual, bool relu) = 0;

  void parallel_for(int64_t n, RangeFn run, const void* body) override {
    const int64_t parts = std::min<int64_t>(n, 2 * threads_);
    auto part = [&](int64_t i) { run(body, n * i / parts, n * (i + 1) / parts); };
    const kernels::cpu_conv::ScopedTaskWorkers workers(workers_);
    kernels::cpu_conv::run_tasks(parts, threads_, part);
  }

  int threads_ = std::max(omp_get_max_threads(), 1);
  kernels::cpu_conv::TaskWorkers workers_;
};

}  // namespace ktune::nn::cpu
