// CUDA half of a tuned conv2d library (ktune_add_tuned_library ... FAMILY conv2d BACKENDS cuda),
// compiled by nvcc. Included by the generated source after the selector header, with the
// namespace alias ktune_tuned_selector naming the header's namespace. Each shipped config is
// decoded at compile time (conv2d_cuda_config.hpp) into instantiations of the kernels the sweep
// measured (conv2d_*.cuh, gemm_tiled.cuh) and launched with the sweep's launch code
// (conv2d_cuda_launch.hpp). ktune::conv2d is stateless: Winograd configs transform the filter in
// every call (ft=pre configs too), so its selector is best trained without the ft=pre rows;
// ktune::Conv2dPlan picks once per layer and keeps the filter transform, which is what the ft=pre
// rows measured. Tune and remember (docs/deploy.md): with it on, an unsure layer's (or every
// layer's, KTUNE_REMEMBER_SHAPES=all) first call times the top few candidates on the caller's
// stream into a scratch output and keeps the winner (served(), tc_served() for conv2d_ex).
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

// Only the shipped kernels: not the sweep's float64 reference kernel of conv2d_im2col.cuh.
#define KTUNE_CONV2D_NO_REFERENCE
#include "kernels/common/cuda/call_workspace.hpp"
#include "kernels/common/cuda/gemm_tiled.cuh"
#include "kernels/conv2d/conv2d_features.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_config.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_launch.hpp"
#include "kernels/conv2d/cuda/conv2d_direct.cuh"
#include "kernels/conv2d/cuda/conv2d_im2col.cuh"
#include "kernels/conv2d/cuda/conv2d_winograd.cuh"
#include "kernels/conv2d/deploy/conv2d_validate.hpp"
#include "kernels/conv2d/deploy/remember_conv2d.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/cuda/remember_cuda.hpp"
#include "ktune/remember.hpp"

namespace {

namespace sel = ktune_tuned_selector;
namespace kc = ktune::kernels::conv2d::cuda;

enum class Launch { ok, refused };
using LaunchFn = Launch (*)(const kc::ConvDims&, const float*, const float*, float*, cudaStream_t);

[[noreturn]] void cuda_failure(const std::string& what, cudaError_t error) {
  throw std::runtime_error("ktune::conv2d: " + what + ": " + cudaGetErrorName(error) + ": " +
                           cudaGetErrorString(error));
}

// Workspaces (im2col patch matrix, Winograd U/V/M) come from a memory pool of this library's own
// per device that keeps its memory, so stream-ordered allocation costs no trip to the driver
// after the first call.
cudaMemPool_t workspace_pool() {
  int device = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess) cuda_failure("cudaGetDevice", error);
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  std::lock_guard lock(mutex);
  if (const auto it = pools.find(device); it != pools.end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  if ((error = cudaMemPoolCreate(&pool, &props)) != cudaSuccess)
    cuda_failure("cudaMemPoolCreate(conv2d workspace)", error);
  uint64_t keep_everything = UINT64_MAX;
  if ((error = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything)) !=
      cudaSuccess)
    cuda_failure("cudaMemPoolSetAttribute(conv2d workspace)", error);
  pools.emplace(device, pool);
  return pool;
}

template <typename Kernel>
const void* fn(Kernel* kernel) {
  return reinterpret_cast<const void*>(kernel);
}

// The kernels of config g for this problem (the im2col vector width follows c).
template <size_t I>
kc::ConvKernels kernels_of(const kc::ConvDims& d) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(sel::kConfigs[I]);
  static_assert(g.valid, "a config of the selector header is not a CUDA conv2d config");
  // The library is FP32 (float x, w): the 16-bit tensor-core kinds are swept, not shipped yet.
  static_assert(g.kind != kc::CudaKind::igemm_mma, "cuda_igemm_mma is not in the tuned library");
  static_assert(g.kind != kc::CudaKind::igemm_wgmma,
                "cuda_igemm_wgmma is not in the tuned library");
  kc::ConvKernels k;
  // Block sizes never exceed the kernels' __launch_bounds__, so their limit is never the binding
  // one: 1024 lets launch_conv's own checks decide.
  k.main_max_threads = 1024;
  k.gemm_max_threads = 1024;
  if constexpr (g.kind == kc::CudaKind::direct) {
    k.main = fn(&ktune_conv2d_direct<g.tp, g.tq, g.vk, g.vc, g.smem, g.wg>);
  } else if constexpr (g.kind == kc::CudaKind::winograd) {
    k.filter = fn(&ktune_conv2d_wino_filter<g.m, g.tv>);
    k.input = fn(&ktune_conv2d_wino_input<g.m, g.tv>);
    k.output = fn(&ktune_conv2d_wino_output<g.m, g.tv>);
    k.gemm = fn(&ktune_gemm_tiled<g.bm, g.bn, g.bk, g.tm, g.tn, 4, 1, 0, 0>);
  } else {
    if constexpr (g.kind == kc::CudaKind::im2col)
      k.main = d.c % 4 == 0 ? fn(&ktune_conv2d_im2col<4>) : fn(&ktune_conv2d_im2col<1>);
    k.gemm = fn(&ktune_gemm_tiled<g.bm, g.bn, g.bk, g.tm, g.tn, 4, 1, 1, 0>);
  }
  return k;
}

cudaMemPool_t workspace_pool_of(int) { return workspace_pool(); }  // of the current device

// Stream-ordered memory of one call from the library's pool (nullptr for 0 floats), released
// after the work enqueued on the stream before release(): for the first call of a cuDNN layer,
// whose search takes a large workspace once.
float* acquire(size_t floats, cudaStream_t stream) {
  if (floats == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t error =
      cudaMallocFromPoolAsync(&p, floats * sizeof(float), workspace_pool(), stream);
  if (error != cudaSuccess) cuda_failure("cudaMallocFromPoolAsync(conv2d workspace)", error);
  return static_cast<float*>(p);
}
void release(float* workspace, cudaStream_t stream) {
  if (!workspace) return;
  const cudaError_t error = cudaFreeAsync(workspace, stream);
  if (error != cudaSuccess) cuda_failure("cudaFreeAsync(conv2d workspace)", error);
}

// The workspaces of one call (im2col patches, Winograd U / V / M; conv2d_ex's scratch and
// cuDNN's workspace): kept per thread, device, stream and slot between calls and only grown
// (kernels/common/cuda/call_workspace.hpp), so that a steady-state call allocates and frees
// nothing; per call on a stream being captured into a graph. A pool allocation and free per
// call cost about 1.7 us a call (the deployed cuDNN calls ran at 0.97x cuDNN's own,
// results/h200/conv-deployed-bf16-h200). Slot 0 is the kernels' workspace (run_config,
// run_prepared); CallScratch takes slots 1, 2, ... for what a call holds around them.
namespace kw = ktune::kernels::cuda_workspace;
inline constexpr int kKernelSlot = 0;
inline kw::WorkspacePool library_pool() { return kw::WorkspacePool{nullptr, &workspace_pool_of}; }

Launch outcome(const kc::ConvLaunch& launch) {
  if (launch.error != cudaSuccess) cuda_failure(launch.message, launch.error);
  return launch.refused ? Launch::refused : Launch::ok;
}

// Stateless: every run transforms or reads the caller's filter (ft=pre configs run like ft=each).
template <size_t I>
Launch run_config(const kc::ConvDims& d, const float* x, const float* w, float* y,
                  cudaStream_t stream) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(sel::kConfigs[I]);
  if (!kc::refusal(g, d).empty()) return Launch::refused;
  kw::CallWorkspace workspace(kc::workspace_floats(g, d) * sizeof(float), stream, library_pool());
  const kc::ConvLaunch launch = kc::launch_conv(
      g, kernels_of<I>(d), d, x, w, y, static_cast<float*>(workspace.data()), false, stream);
  workspace.release();
  return outcome(launch);
}

// Plans (ktune::Conv2dPlan): the filter floats a plan keeps for config I (Winograd: the filter
// transform; otherwise a copy of the filter), how it makes them, and a run from them.
template <size_t I>
size_t kept_floats(const kc::ConvDims& d) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(sel::kConfigs[I]);
  if constexpr (g.kind == kc::CudaKind::winograd) return kc::wino_filter_floats(g, d);
  return size_t(d.k * d.r * d.s * d.c);
}

template <size_t I>
void prepare_config(const kc::ConvDims& d, const float* w, float* kept, cudaStream_t stream) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(sel::kConfigs[I]);
  if constexpr (g.kind == kc::CudaKind::winograd) {
    outcome(kc::launch_wino_filter(g, kernels_of<I>(d), d, w, kept, stream));
  } else {
    const cudaError_t error = cudaMemcpyAsync(kept, w, kept_floats<I>(d) * sizeof(float),
                                              cudaMemcpyDeviceToDevice, stream);
    if (error != cudaSuccess) cuda_failure("cudaMemcpyAsync(plan filter)", error);
  }
}

template <size_t I>
Launch run_prepared(const kc::ConvDims& d, const float* x, const float* kept, float* y,
                    cudaStream_t stream) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(sel::kConfigs[I]);
  if constexpr (g.kind == kc::CudaKind::winograd) {
    const long long tiles = d.n * kc::wino_th(g, d) * kc::wino_tw(g, d);
    const size_t v_floats = size_t(kc::wino_points(g) * tiles * d.c);
    kw::CallWorkspace workspace(
        (v_floats + size_t(kc::wino_points(g) * tiles * d.k)) * sizeof(float), stream,
        library_pool());
    float* v = static_cast<float*>(workspace.data());
    const kc::ConvLaunch launch =
        kc::launch_wino_main(g, kernels_of<I>(d), d, x, kept, v, v + v_floats, y, stream);
    workspace.release();
    return outcome(launch);
  } else {
    return run_config<I>(d, x, kept, y, stream);
  }
}

struct ConfigFns {
  LaunchFn run;
  size_t (*kept_floats)(const kc::ConvDims&);
  void (*prepare)(const kc::ConvDims&, const float*, float*, cudaStream_t);
  LaunchFn run_prepared;
};

template <size_t... I>
constexpr std::array<ConfigFns, sizeof...(I)> make_configs(std::index_sequence<I...>) {
  return {{{&run_config<I>, &kept_floats<I>, &prepare_config<I>, &run_prepared<I>}...}};
}
constexpr auto kConfigFns = make_configs(std::make_index_sequence<size_t(sel::kNumConfigs)>{});

bool applies(int index, const kc::ConvDims& d) {
  return kc::refusal(kc::parse_cuda_conv_config(sel::kConfigs[index]), d).empty();
}

int choose(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
           int64_t stride, int64_t pad) {
  const auto v = ktune::kernels::conv2d::feature_values(n, h, w, c, k, r, s, stride, pad);
  sel::Features f{};
  static_assert(sizeof(f) == sizeof(v), "the selector's features are not the conv2d family's");
  double* slots = reinterpret_cast<double*>(&f);
  for (size_t i = 0; i < v.size(); ++i) slots[i] = v[i];
  const int pick = sel::select(f);
  return pick >= 0 && pick < sel::kNumConfigs ? pick : sel::kBaseline;
}

// The FP32 library as the tune-and-remember cache keys it (KTUNE_TUNED_VERSION: the selector's
// hash, set by ktune_add_tuned_library), and its kUnsure (-1: the header states none).
#ifndef KTUNE_TUNED_VERSION
#define KTUNE_TUNED_VERSION "unversioned"
#endif
const ktune::remember::Library kRememberLibrary{"conv2d", "cuda", KTUNE_TUNED_VERSION,
                                                sel::kNumConfigs, sel::kConfigs};
#if defined(KTUNE_TUNED_HAS_UNSURE)
constexpr int kUnsureFp32 = sel::kUnsure;
#else
constexpr int kUnsureFp32 = -1;
#endif

// NHWC output elements of a layer.
long long output_count(const kc::ConvDims& d) { return d.n * d.p() * d.q() * d.k; }

// A layer's tune-and-remember key as ktune::conv2d has it (conv2d_ex adds its precision, output
// type and epilogue).
ktune::kernels::conv2d::deploy::RememberKey remember_key(const kc::ConvDims& d) {
  ktune::kernels::conv2d::deploy::RememberKey key;
  key.n = d.n, key.h = d.h, key.w = d.w, key.c = d.c, key.k = d.k, key.r = d.r, key.s = d.s;
  key.stride = d.stride, key.pad = d.pad;
  return key;
}

// The config ktune::conv2d serves: the selector's pick, or with tune and remember on the
// remembered one; a first call times the pick, then the shipped safe order, on the caller's
// input and filter into a scratch output on the caller's stream (the caller's output is written
// afterwards, once, by the config served).
int served(int pick, const kc::ConvDims& d, const float* x, const float* w, float* y,
           cudaStream_t stream) {
  const ktune::kernels::conv2d::deploy::RememberKey key = remember_key(d);
  return ktune::remember::cuda::served_config(
      kRememberLibrary, pick, kUnsureFp32 >= 0 && pick == kUnsureFp32, sel::kSafeOrder, -1,
      key.shape(), [&] { return key.problem(); }, stream, y,
      size_t(output_count(d)) * sizeof(float), false,
      [&](int config, void* scratch) {
        return kConfigFns[size_t(config)].run(d, x, w, static_cast<float*>(scratch), stream) ==
               Launch::ok;
      });
}

}  // namespace

namespace ktune {

void conv2d(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
            int64_t stride, int64_t pad, const float* input, const float* filter, float* output,
            cudaStream_t stream) {
  if (!kernels::conv2d::deploy::check_conv2d_arguments("ktune::conv2d", n, h, w, c, k, r, s, stride,
                                                       pad, input, filter, output))
    return;
  const kc::ConvDims d{n, h, w, c, k, r, s, stride, pad};
  auto* st = reinterpret_cast<::cudaStream_t>(stream);
  // The selector's pick (or the remembered answer) first; if it refuses the problem, the shipped
  // configs in the order of how widely they ran in the sweep.
  const int pick = served(choose(n, h, w, c, k, r, s, stride, pad), d, input, filter, output, st);
  if (kConfigFns[size_t(pick)].run(d, input, filter, output, st) == Launch::ok) return;
  for (int index : sel::kSafeOrder) {
    if (index == pick) continue;
    if (kConfigFns[size_t(index)].run(d, input, filter, output, st) == Launch::ok) return;
  }
  throw std::runtime_error(
      "ktune::conv2d: every shipped config refused the problem (r = " + std::to_string(r) +
      ", s = " + std::to_string(s) + ", stride = " + std::to_string(stride) + ")");
}

const TunedConv2dInfo& tuned_conv2d_info_cuda() {
  static const TunedConv2dInfo info{"cuda", sel::kNumConfigs, sel::kConfigs, sel::kBaseline};
  return info;
}

int tuned_conv2d_choice_cuda(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                             int64_t s, int64_t stride, int64_t pad) {
  return choose(n, h, w, c, k, r, s, stride, pad);
}

bool tuned_conv2d_run_config_cuda(int index, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                  int64_t r, int64_t s, int64_t stride, int64_t pad,
                                  const float* input, const float* filter, float* output,
                                  cudaStream_t stream) {
  if (index < 0 || index >= sel::kNumConfigs)
    kernels::conv2d::deploy::argument_error("ktune::tuned_conv2d_run_config_cuda",
                                            "index = " + std::to_string(index) +
                                                " is not a shipped config (0.." +
                                                std::to_string(sel::kNumConfigs - 1) + ")");
  if (!kernels::conv2d::deploy::check_conv2d_arguments("ktune::tuned_conv2d_run_config_cuda", n, h,
                                                       w, c, k, r, s, stride, pad, input, filter,
                                                       output))
    return true;
  const kc::ConvDims d{n, h, w, c, k, r, s, stride, pad};
  return kConfigFns[size_t(index)].run(d, input, filter, output,
                                       reinterpret_cast<::cudaStream_t>(stream)) == Launch::ok;
}

}  // namespace ktune

namespace ktune {

struct Conv2dPlan::State {
  kc::ConvDims d;
  int index = -1;         // -1: n == 0, nothing to do
  float* kept = nullptr;  // the plan's filter copy or transform (cudaMalloc)
};

Conv2dPlan::Conv2dPlan(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                       int64_t stride, int64_t pad, const float* filter, cudaStream_t stream)
    : state_(new State{{n, h, w, c, k, r, s, stride, pad}}) {
  try {
    // The input and output come with run(), which checks them: a placeholder stands for them.
    static const float placeholder = 0;
    if (!kernels::conv2d::deploy::check_conv2d_arguments("ktune::Conv2dPlan", n, h, w, c, k, r, s,
                                                         stride, pad, &placeholder, filter,
                                                         &placeholder))
      return;
    const kc::ConvDims& d = state_->d;
    int index = choose(n, h, w, c, k, r, s, stride, pad);
    for (int i = 0; !applies(index, d) && i < sel::kNumConfigs; ++i) index = sel::kSafeOrder[i];
    if (!applies(index, d))
      throw std::runtime_error("ktune::Conv2dPlan: every shipped config refused the problem");
    const size_t floats = kConfigFns[size_t(index)].kept_floats(d);
    cudaError_t error = cudaMalloc(reinterpret_cast<void**>(&state_->kept), floats * sizeof(float));
    if (error != cudaSuccess) cuda_failure("cudaMalloc(plan filter)", error);
    kConfigFns[size_t(index)].prepare(d, filter, state_->kept,
                                      reinterpret_cast<::cudaStream_t>(stream));
    state_->index = index;
  } catch (...) {
    if (state_->kept) cudaFree(state_->kept);
    delete state_;
    throw;
  }
}

Conv2dPlan::~Conv2dPlan() {
  if (state_ && state_->kept) cudaFree(state_->kept);  // waits for the work using it
  delete state_;
}

Conv2dPlan::Conv2dPlan(Conv2dPlan&& other) noexcept : state_(other.state_) {
  other.state_ = nullptr;
}

Conv2dPlan& Conv2dPlan::operator=(Conv2dPlan&& other) noexcept {
  std::swap(state_, other.state_);  // other releases what this plan held
  return *this;
}

void Conv2dPlan::run(const float* input, float* output, cudaStream_t stream) const {
  if (!state_) throw Conv2dError("ktune::Conv2dPlan::run: the plan was moved from");
  if (state_->index < 0) return;  // n == 0
  if (input == nullptr) throw Conv2dError("ktune::Conv2dPlan::run: input is a null pointer");
  if (output == nullptr) throw Conv2dError("ktune::Conv2dPlan::run: output is a null pointer");
  if (kConfigFns[size_t(state_->index)].run_prepared(state_->d, input, state_->kept, output,
                                                     reinterpret_cast<::cudaStream_t>(stream)) !=
      Launch::ok)
    throw std::runtime_error("ktune::Conv2dPlan::run: the planned config refused the problem");
}

int Conv2dPlan::config() const { return state_ && state_->index >= 0 ? state_->index : -1; }

}  // namespace ktune

// ktune::conv2d_ex (bf16 on the tensor cores, with its own selector).
#include "kernels/conv2d/deploy/tuned_cuda_tc.inl"
