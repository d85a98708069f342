// CPU half of a tuned conv2d library. Included by a generated source after the selector header,
// with the namespace alias ktune_tuned_selector naming the header's namespace (the pattern of
// kernels/gemm/deploy/tuned_cpu.inl). The selector's Features are the conv2d problem and derived
// features (kernels/conv2d/conv2d_features.hpp); its K config strings are decoded once through
// the conv2d space and run by the CPU kernels of the sweep (kernels/conv2d/cpu/, linked from
// ktune_core: unlike the GEMM library, this one links every CPU conv kernel, not only the K
// configs' instantiations). A pick that does not apply to the shape (Winograd on 1×1) falls back
// along the header's safe order, then to a direct config, which runs every shape.
#include <array>
#include <cstring>
#include <vector>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_features.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "kernels/conv2d/deploy/conv2d_validate.hpp"
#include "ktune/conv2d.hpp"

namespace {

namespace sel = ktune_tuned_selector;
namespace conv = ktune::kernels::conv2d;

static_assert(sizeof(sel::Features) ==
                  sizeof(double) * (conv::kProblemFeatures + conv::kDerivedFeatures),
              "the selector was not trained on the conv2d problem + derived features");

const conv::Conv2dFamily& family() {
  static const conv::Conv2dFamily f;
  return f;
}

const std::vector<ktune::Config>& shipped() {
  static const std::vector<ktune::Config> configs = [] {
    std::vector<ktune::Config> out;
    for (const char* text : sel::kConfigs) out.push_back(family().space().parse(text));
    return out;
  }();
  return configs;
}

int choose(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
           int64_t stride, int64_t pad) {
  const auto values = conv::feature_values(n, h, w, c, k, r, s, stride, pad);
  sel::Features f;
  std::memcpy(&f, values.data(), sizeof f);
  const int pick = sel::select(f);
  return pick >= 0 && pick < sel::kNumConfigs ? pick : sel::kBaseline;
}

}  // namespace

namespace ktune {

void conv2d(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
            int64_t stride, int64_t pad, const float* input, const float* filter, float* output) {
  if (!conv::deploy::check_conv2d_arguments("ktune::conv2d", n, h, w, c, k, r, s, stride, pad,
                                            input, filter, output))
    return;
  const conv::Shape shape{n, h, w, c, k, r, s, stride, pad};
  const conv::cpu::Args args{shape, input, filter, output};
  std::vector<int> order = {choose(n, h, w, c, k, r, s, stride, pad)};
  for (int i : sel::kSafeOrder) order.push_back(i);
  for (int i : order) {
    const auto kernel = conv::cpu::kernel_for(family().space(), shipped()[size_t(i)], shape);
    if (!kernel.refusal) return kernel.run(args);
  }
  conv::cpu::run_direct(args, {1, 2, 2, 8});  // applies to every shape
}

const TunedConv2dInfo& tuned_conv2d_info_cpu() {
  static const TunedConv2dInfo info{"cpu", sel::kNumConfigs, sel::kConfigs, sel::kBaseline};
  return info;
}

int tuned_conv2d_choice_cpu(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                            int64_t s, int64_t stride, int64_t pad) {
  return choose(n, h, w, c, k, r, s, stride, pad);
}

bool tuned_conv2d_run_config_cpu(int index, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                 int64_t r, int64_t s, int64_t stride, int64_t pad,
                                 const float* input, const float* filter, float* output) {
  if (index < 0 || index >= sel::kNumConfigs)
    conv::deploy::argument_error("ktune::tuned_conv2d_run_config_cpu",
                                 "index = " + std::to_string(index) +
                                     " is not a shipped config (0.." +
                                     std::to_string(sel::kNumConfigs - 1) + ")");
  if (!conv::deploy::check_conv2d_arguments("ktune::tuned_conv2d_run_config_cpu", n, h, w, c, k, r,
                                            s, stride, pad, input, filter, output))
    return true;
  const conv::Shape shape{n, h, w, c, k, r, s, stride, pad};
  const auto kernel = conv::cpu::kernel_for(family().space(), shipped()[size_t(index)], shape);
  if (kernel.refusal) return false;
  kernel.run(conv::cpu::Args{shape, input, filter, output});
  return true;
}

}  // namespace ktune
