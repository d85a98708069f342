// A config of the conv2d space decoded into the CPU kernel call it stands for, shared by the
// sweep's backend and the deployed library.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_config.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_plan.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cpu {

namespace {

GemmParams gemm_params(const Space& space, const Config& c) {
  const std::string& mt = space.value(c, "mt");  // "16x6"
  const size_t x = mt.find('x');
  GemmParams g;
  g.mr = std::stoi(mt.substr(0, x));
  g.nr = std::stoi(mt.substr(x + 1));
  g.kc = space.has_param(c, "kc") ? space.int_value(c, "kc") : 256;
  return g;
}

}  // namespace

Kernel kernel_for(const Space& space, const Config& config, const Shape& shape) {
  const std::string& kind = space.kind_name(config);
  Kernel k;
  if (kind == "cpu_direct") {
    const DirectParams p{space.int_value(config, "rows"), space.int_value(config, "cols"),
                         space.int_value(config, "vk"), space.int_value(config, "vc")};
    k.run = [p](const Args& a) { run_direct(a, p); };
    return k;
  }
  if (const CpuConvConfig g = parse_cpu_conv_config(space.to_string(config));
      g.valid && is_plan_kind(g.kind)) {
    if (const char* why = plan_refusal(g, shape)) k.refusal = why;
    k.winograd_m = plan_winograd_m(shape, g.m);  // the algorithm run, whose bound applies
    // One plan per filter buffer (the sweep rotates copies of the tensors).
    auto plans = std::make_shared<std::map<const float*, std::unique_ptr<PreparedPlan>>>();
    k.prepare = [plans, g](const Args& a) {
      (*plans)[a.filter] = std::make_unique<PreparedPlan>(a.shape, a.filter, g);
    };
    k.run = [plans](const Args& a) {
      const auto it = plans->find(a.filter);
      if (it == plans->end()) throw Error("cpu_plan: run on a filter that was not prepared");
      it->second->run(a.input, a.output);
    };
    return k;
  }
  const GemmParams g = gemm_params(space, config);
  if (kind == "cpu_im2col") {
    const int rows = space.int_value(config, "rows");
    k.run = [g, rows](const Args& a) { run_im2col(a, g, rows); };
  } else if (kind == "cpu_gemm1x1") {
    k.refusal = gemm1x1_refusal(shape);
    k.run = [g](const Args& a) { run_gemm1x1(a, g); };
  } else if (kind == "cpu_winograd") {
    k.refusal = winograd_refusal(shape);
    k.winograd_m = space.int_value(config, "m");
    const int m = k.winograd_m, tiles = space.int_value(config, "tiles");
    k.run = [m, g, tiles](const Args& a) { run_winograd(a, m, g, tiles); };
  } else {
    throw Error(fmt::format("conv2d kind '{}' has no CPU kernel", kind));
  }
  return k;
}

}  // namespace ktune::kernels::conv2d::cpu
