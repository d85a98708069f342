// CPU half of a tuned conv2d library (ktune_add_tuned_library ... FAMILY conv2d BACKENDS cpu).
// Included by the generated source after the selector header, with the namespace alias
// ktune_tuned_selector naming the header's namespace (the pattern of
// kernels/gemm/deploy/tuned_cpu.inl). Each shipped config is parsed at compile time
// (conv2d_cpu_config.hpp) into the template arguments of the kernels the sweep measured
// (conv2d_cpu_direct.hpp, conv2d_cpu_gemm.hpp, conv2d_cpu_winograd.hpp over the GEMM family's
// gemm_cpu_packed.hpp), so the library holds exactly the K configs' kernels and needs nothing of
// ktune but these headers. The selector's Features are the conv2d problem and derived features
// (conv2d_features.hpp). A pick that does not apply to the shape (Winograd on 1x1) falls back
// along the header's safe order; when no shipped config runs every shape (direct, im2col and
// cpu_plan's GEMM do), one direct kernel (rows 1, cols 2, vk 2, vc 8) is added for that case.
// A cpu_plan config (conv2d_cpu_plan.hpp) builds its plan in every ktune::conv2d call (the filter
// packed or transformed each time: stateless); ktune::CpuConv2dPlan builds it once per layer,
// which is what the sweep measured for that kind (the other kinds were measured stateless, and
// a plan of theirs keeps a copy of the filter and runs them as conv2d does).
// A oneDNN candidate ("vendor=onednn", "vendor=onednn_winograd": deploy/vendor_onednn_cpu.hpp,
// linked by deploy/vendors.cmake) is the sweep's vendor call: a plan makes its primitive and
// reorders the filter once; conv2d keeps a primitive per thread and shape and reorders the
// filter in every call. Where oneDNN refuses a shape the safe order serves it.
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_packed.hpp"
#include "kernels/conv2d/conv2d_features.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_config.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_direct.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_gemm.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_plan.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_winograd.hpp"
#include "kernels/conv2d/deploy/conv2d_validate.hpp"
#include "kernels/conv2d/deploy/vendor_onednn_cpu.hpp"
#include "ktune/conv2d.hpp"

namespace {

namespace sel = ktune_tuned_selector;
namespace conv = ktune::kernels::conv2d;
namespace cpu = ktune::kernels::conv2d::cpu;
namespace vendor = ktune::kernels::conv2d::deploy;
using RunFn = bool (*)(const cpu::Args&);

static_assert(sizeof(sel::Features) ==
                  sizeof(double) * (conv::kProblemFeatures + conv::kDerivedFeatures),
              "the selector was not trained on the conv2d problem + derived features");

// The packed GEMM of shipped config I. Every GEMM of the GEMM-based kinds is filterᵀ · patches
// (transa, not transb): one instantiation.
template <size_t I>
void shipped_gemm(const ktune::kernels::gemm::cpu::Args& ga) {
  constexpr cpu::CpuConvConfig g = cpu::parse_cpu_conv_config(sel::kConfigs[I]);
  ktune::kernels::gemm::cpu::gemm_packed<g.mr, g.nr, true, false>(ga, g.kc, 96, 3840);
}

// Whether shipped config I's kind applies to the shape.
template <size_t I>
bool applies(const conv::Shape& s) {
  constexpr auto v = vendor::parse_cpu_conv_vendor(sel::kConfigs[I]);
  if constexpr (v != vendor::CpuConvVendor::none) {
#ifndef KTUNE_HAVE_ONEDNN
    static_assert(v == vendor::CpuConvVendor::none,
                  "the selector ships a oneDNN call (vendor=onednn*) but oneDNN was not found "
                  "(Debian libdnnl-dev)");
#endif
    return vendor::vendor_may_apply(v, s);
  } else {
    constexpr cpu::CpuConvConfig g = cpu::parse_cpu_conv_config(sel::kConfigs[I]);
    static_assert(g.valid, "a config of the selector header is not a CPU conv2d config");
    if constexpr (g.kind == cpu::CpuKind::gemm1x1)
      return s.r == 1 && s.s == 1 && s.stride == 1 && s.pad == 0;
    if constexpr (g.kind == cpu::CpuKind::winograd) return s.winograd_applies();
    if constexpr (cpu::is_plan_kind(g.kind)) return cpu::plan_refusal(g, s) == nullptr;
    return true;
  }
}

// A plan's oneDNN call (a vendor candidate's pick). Without oneDNN, where applies() refuses to
// compile a shipped vendor, a stand-in type that is never made (one outside this file's anonymous
// namespace, as CpuConv2dPlan::State holds it).
#ifdef KTUNE_HAVE_ONEDNN
using PreparedVendor = vendor::OnednnPrepared;
#else
using PreparedVendor = cpu::PreparedPlan;
#endif

// Shipped config I's prepared plan of a layer (the cpu_plan* kinds), or null
// (the other kinds).
template <size_t I>
std::unique_ptr<cpu::PreparedPlan> prepare_config(const conv::Shape& s, const float* filter) {
  if constexpr (vendor::parse_cpu_conv_vendor(sel::kConfigs[I]) == vendor::CpuConvVendor::none) {
    constexpr cpu::CpuConvConfig g = cpu::parse_cpu_conv_config(sel::kConfigs[I]);
    if constexpr (cpu::is_plan_kind(g.kind))
      return std::make_unique<cpu::PreparedPlan>(s, filter, g);
  }
  return nullptr;
}

// Shipped config I's prepared oneDNN call (a vendor candidate), or null (a kernel config, or
// oneDNN refused the shape).
template <size_t I>
std::unique_ptr<PreparedVendor> prepare_vendor(const conv::Shape& s, const float* filter) {
  constexpr auto v = vendor::parse_cpu_conv_vendor(sel::kConfigs[I]);
#ifdef KTUNE_HAVE_ONEDNN
  if constexpr (v != vendor::CpuConvVendor::none) {
    try {
      return std::make_unique<PreparedVendor>(s, vendor::onednn_algo(v), filter);
    } catch (const dnnl::error&) {
      return nullptr;
    }
  }
#endif
  (void)s, (void)filter, (void)v;
  return nullptr;
}

// Runs kernel config I (not a vendor candidate) on a shape its kind applies to.
template <size_t I>
bool run_kernel_config(const cpu::Args& a) {
  constexpr cpu::CpuConvConfig g = cpu::parse_cpu_conv_config(sel::kConfigs[I]);
  const conv::Shape& s = a.shape;
  if constexpr (cpu::is_plan_kind(g.kind)) {
    prepare_config<I>(s, a.filter)->run(a.input, a.output);
  } else if constexpr (g.kind == cpu::CpuKind::direct) {
    cpu::direct_detail::conv<g.cols, g.vk, g.vc / cpu::simd::kLanes>(a, g.rows);
  } else if constexpr (g.kind == cpu::CpuKind::im2col) {
    cpu::gemm_detail::im2col_conv(a, g.rows, shipped_gemm<I>);
  } else if constexpr (g.kind == cpu::CpuKind::gemm1x1) {
    cpu::gemm_detail::gemm1x1_conv(a, shipped_gemm<I>);
  } else {
    cpu::winograd_detail::run<g.m>(a, g.tiles, nullptr, shipped_gemm<I>);
  }
  return true;
}

// Runs shipped config I; false (nothing written) when it does not apply to the shape.
template <size_t I>
bool run_config(const cpu::Args& a) {
  const conv::Shape& s = a.shape;
  if (!applies<I>(s)) return false;
  constexpr auto v = vendor::parse_cpu_conv_vendor(sel::kConfigs[I]);
  if constexpr (v != vendor::CpuConvVendor::none) {
#ifdef KTUNE_HAVE_ONEDNN
    return vendor::onednn_conv_stateless(s, vendor::onednn_algo(v), a.input, a.filter, a.output);
#else
    return false;  // not reached: applies() refuses to compile a shipped vendor without oneDNN
#endif
  } else {
    return run_kernel_config<I>(a);
  }
}

template <size_t... I>
constexpr std::array<RunFn, sizeof...(I)> make_runners(std::index_sequence<I...>) {
  return {{&run_config<I>...}};
}
constexpr auto kRunners = make_runners(std::make_index_sequence<size_t(sel::kNumConfigs)>{});

// What a CpuConv2dPlan needs of each shipped config.
struct PlanFns {
  bool (*applies)(const conv::Shape&);
  std::unique_ptr<cpu::PreparedPlan> (*prepare)(const conv::Shape&, const float*);
  std::unique_ptr<PreparedVendor> (*prepare_vendor)(const conv::Shape&, const float*);
  bool is_vendor;
};
template <size_t... I>
constexpr std::array<PlanFns, sizeof...(I)> make_plan_fns(std::index_sequence<I...>) {
  return {
      {PlanFns{&applies<I>, &prepare_config<I>, &prepare_vendor<I>,
               vendor::parse_cpu_conv_vendor(sel::kConfigs[I]) != vendor::CpuConvVendor::none}...}};
}
constexpr auto kPlanFns = make_plan_fns(std::make_index_sequence<size_t(sel::kNumConfigs)>{});

// Direct, im2col and cpu_plan GEMM configs run every shape (a oneDNN call may refuse one).
constexpr bool ships_a_universal_config() {
  for (const char* text : sel::kConfigs) {
    const cpu::CpuConvConfig g = cpu::parse_cpu_conv_config(text);
    if (g.valid && (g.kind == cpu::CpuKind::direct || g.kind == cpu::CpuKind::im2col ||
                    (g.kind == cpu::CpuKind::plan && g.m == 0)))
      return true;
  }
  return false;
}

// One direct kernel (rows 1, cols 2, vk 2, vc 8), compiled only when no shipped config runs
// every shape.
template <bool kNeeded>
void last_resort(const cpu::Args& args) {
  if constexpr (kNeeded) cpu::direct_detail::conv<2, 2, 1>(args, 1);
}

int choose(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
           int64_t stride, int64_t pad) {
  const auto values = conv::feature_values(n, h, w, c, k, r, s, stride, pad);
  sel::Features f;
  std::memcpy(&f, values.data(), sizeof f);
  const int pick = sel::select(f);
  return pick >= 0 && pick < sel::kNumConfigs ? pick : sel::kBaseline;
}

void check_index(const char* function, int index) {
  if (index < 0 || index >= sel::kNumConfigs)
    conv::deploy::argument_error(function, "index = " + std::to_string(index) +
                                               " is not a shipped config (0.." +
                                               std::to_string(sel::kNumConfigs - 1) + ")");
}

}  // namespace

namespace ktune {

void conv2d(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
            int64_t stride, int64_t pad, const float* input, const float* filter, float* output) {
  if (!conv::deploy::check_conv2d_arguments("ktune::conv2d", n, h, w, c, k, r, s, stride, pad,
                                            input, filter, output))
    return;
  const cpu::Args args{{n, h, w, c, k, r, s, stride, pad}, input, filter, output};
  const int pick = choose(n, h, w, c, k, r, s, stride, pad);
  if (kRunners[size_t(pick)](args)) return;
  for (int index : sel::kSafeOrder)
    if (index != pick && kRunners[size_t(index)](args)) return;
  last_resort<!ships_a_universal_config()>(args);
}

struct CpuConv2dPlan::State {
  conv::Shape shape;
  int index = -1;                           // -1: n == 0 or no shipped config applies
  std::unique_ptr<cpu::PreparedPlan> plan;  // a cpu_plan* pick
  std::unique_ptr<PreparedVendor> vendor;   // a oneDNN pick
  std::vector<float> filter;                // otherwise: the plan's copy of the filter
};

CpuConv2dPlan::CpuConv2dPlan(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                             int64_t s, int64_t stride, int64_t pad, const float* filter)
    : state_(new State) {
  state_->shape = {n, h, w, c, k, r, s, stride, pad};
  try {
    // The input and output come with run(), which checks them: a placeholder stands for them.
    static const float placeholder = 0;
    if (!conv::deploy::check_conv2d_arguments("ktune::CpuConv2dPlan", n, h, w, c, k, r, s, stride,
                                              pad, &placeholder, filter, &placeholder))
      return;
    const conv::Shape& shape = state_->shape;
    // The pick, else the first of the safe order that takes the shape (oneDNN may refuse it).
    const auto take = [&](int index) {
      const PlanFns& fns = kPlanFns[size_t(index)];
      if (!fns.applies(shape)) return false;
      if (fns.is_vendor && !(state_->vendor = fns.prepare_vendor(shape, filter))) return false;
      if (!fns.is_vendor) state_->plan = fns.prepare(shape, filter);
      state_->index = index;
      return true;
    };
    const int pick = choose(n, h, w, c, k, r, s, stride, pad);
    if (!take(pick))
      for (int index : sel::kSafeOrder)
        if (index != pick && take(index)) break;
    if (!state_->plan && !state_->vendor)
      state_->filter.assign(filter, filter + shape.filter_elements());
  } catch (...) {
    delete state_;
    throw;
  }
}

CpuConv2dPlan::~CpuConv2dPlan() { delete state_; }

CpuConv2dPlan::CpuConv2dPlan(CpuConv2dPlan&& other) noexcept : state_(other.state_) {
  other.state_ = nullptr;
}

CpuConv2dPlan& CpuConv2dPlan::operator=(CpuConv2dPlan&& other) noexcept {
  if (this != &other) {
    delete state_;
    state_ = other.state_;
    other.state_ = nullptr;
  }
  return *this;
}

void CpuConv2dPlan::run(const float* input, float* output) {
  if (state_ == nullptr) throw Conv2dError("ktune::CpuConv2dPlan::run: the plan was moved from");
  const conv::Shape& s = state_->shape;
  if (input == nullptr) conv::deploy::argument_error("ktune::CpuConv2dPlan::run", "input is null");
  if (output == nullptr)
    conv::deploy::argument_error("ktune::CpuConv2dPlan::run", "output is null");
  if (s.n == 0) return;
  if (state_->plan) return state_->plan->run(input, output);
  if (state_->vendor) return state_->vendor->run(input, output);
  if (state_->index < 0)  // no shipped config applies: conv2d's last resort
    return conv2d(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, input, state_->filter.data(),
                  output);
  kRunners[size_t(state_->index)](cpu::Args{s, input, state_->filter.data(), output});
}

int CpuConv2dPlan::config() const { return state_ ? state_->index : -1; }

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
  check_index("ktune::tuned_conv2d_run_config_cpu", index);
  if (!conv::deploy::check_conv2d_arguments("ktune::tuned_conv2d_run_config_cpu", n, h, w, c, k, r,
                                            s, stride, pad, input, filter, output))
    return true;
  return kRunners[size_t(index)](
      cpu::Args{{n, h, w, c, k, r, s, stride, pad}, input, filter, output});
}

}  // namespace ktune
