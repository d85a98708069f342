// CUDA half of a tuned conv2d library (ktune_add_tuned_library ... FAMILY conv2d BACKENDS cuda),
// compiled by nvcc. Included by the generated source after the selector header, with the
// namespace alias ktune_tuned_selector naming the header's namespace. Each shipped config is
// decoded at compile time (conv2d_cuda_config.hpp) into instantiations of the kernels the sweep
// measured (conv2d_*.cuh, gemm_tiled.cuh) and launched with the sweep's launch code
// (conv2d_cuda_launch.hpp). A call is stateless: Winograd configs transform the filter in every
// call, so a selector may only ship ft=each configs (train it on a dataset without ft=pre rows).
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

// Only the shipped kernels: not the sweep's float64 reference kernel of conv2d_im2col.cuh.
#define KTUNE_CONV2D_NO_REFERENCE
#include "kernels/conv2d/conv2d_features.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_config.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_launch.hpp"
#include "kernels/conv2d/cuda/conv2d_direct.cuh"
#include "kernels/conv2d/cuda/conv2d_im2col.cuh"
#include "kernels/conv2d/cuda/conv2d_winograd.cuh"
#include "kernels/conv2d/deploy/conv2d_validate.hpp"
#include "kernels/gemm/cuda/gemm_tiled.cuh"
#include "ktune/conv2d.hpp"

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
  static_assert(g.kind != kc::CudaKind::winograd || g.filter_each_run,
                "a stateless ktune::conv2d cannot ship ft=pre Winograd configs");
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

template <size_t I>
Launch run_config(const kc::ConvDims& d, const float* x, const float* w, float* y,
                  cudaStream_t stream) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(sel::kConfigs[I]);
  if (!kc::refusal(g, d).empty()) return Launch::refused;
  float* workspace = nullptr;
  const size_t floats = kc::workspace_floats(g, d);
  if (floats > 0) {
    const cudaError_t error = cudaMallocFromPoolAsync(
        reinterpret_cast<void**>(&workspace), floats * sizeof(float), workspace_pool(), stream);
    if (error != cudaSuccess) cuda_failure("cudaMallocFromPoolAsync(conv2d workspace)", error);
  }
  const kc::ConvLaunch launch =
      kc::launch_conv(g, kernels_of<I>(d), d, x, w, y, workspace, false, stream);
  if (workspace) {
    const cudaError_t error = cudaFreeAsync(workspace, stream);
    if (error != cudaSuccess) cuda_failure("cudaFreeAsync(conv2d workspace)", error);
  }
  if (launch.error != cudaSuccess) cuda_failure(launch.message, launch.error);
  return launch.refused ? Launch::refused : Launch::ok;
}

template <size_t... I>
constexpr std::array<LaunchFn, sizeof...(I)> make_launchers(std::index_sequence<I...>) {
  return {{&run_config<I>...}};
}
constexpr auto kLaunchers = make_launchers(std::make_index_sequence<size_t(sel::kNumConfigs)>{});

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
  // The selector's pick first; if it refuses the problem, the shipped configs in the order of
  // how widely they ran in the sweep.
  const int pick = choose(n, h, w, c, k, r, s, stride, pad);
  if (kLaunchers[size_t(pick)](d, input, filter, output, st) == Launch::ok) return;
  for (int index : sel::kSafeOrder) {
    if (index == pick) continue;
    if (kLaunchers[size_t(index)](d, input, filter, output, st) == Launch::ok) return;
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
  return kLaunchers[size_t(index)](d, input, filter, output,
                                   reinterpret_cast<::cudaStream_t>(stream)) == Launch::ok;
}

}  // namespace ktune
