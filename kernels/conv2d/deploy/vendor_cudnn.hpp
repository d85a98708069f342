#pragma once
// The vendor candidate "vendor=cudnn" of a tensor-core conv2d selector (tuned_cuda_tc.inl): cuDNN
// on the caller's 16-bit NHWC input and KRSC filter (cuDNN's NHWC filter format), tensor-core math,
// FP32 accumulation. The first call per device, layer and pointer alignment searches, on that
// call's tensors and synchronously, what the sweep's `cudnn` row searched in NHWC with 16-bit
// output: cuDNN's legacy Find (cudnnFindConvolutionForwardAlgorithmEx) and the backend API's
// engine configs (kernels/conv2d/cuda/conv2d_cudnn_engine_search.hpp, the family's own search),
// and keeps the faster; for an FP32 output then the backend engines that write it directly, kept
// when no slower than that 16-bit best alone (the 16-bit output costs a widening pass on top; a
// limited search, kCudnnFp32OutputConfigsPerMode). A 16-bit output (conv2d_ex's
// Conv2dOutput::bf16 / fp16) is the engines' own: the kept choice writes the caller's output, no
// scratch, no widening. Each search with workspaces up to kCudnnMaxWorkspace; later calls only run
// the kept choice. The row also tried NCHW; the deployed call keeps the caller's NHWC (a layout
// change would cost two transposes per call). KTUNE_CONV2D_CUDNN_LOG=1 prints each layer's search
// to stderr.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_engine_search.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_precision.hpp"

namespace ktune::kernels::conv2d::deploy {

// The searches' workspace budget (the pool keeps the winner's workspace between calls).
inline constexpr size_t kCudnnMaxWorkspace = size_t(64) << 20;
// Variant packs kept per layer for the engine plan (one per buffer set met, oldest replaced):
// rotating callers reuse them, and a pack is host work better kept out of steady-state calls.
inline constexpr size_t kCudnnPacksPerLayer = 8;
// The FP32-output search times at most this many engine configs per heuristic mode and none
// compiled at run time (the first call of a layer stays short: the rows it was trained on have no
// such engine to match, so this one is ktune's extra and kept cheap).
inline constexpr int kCudnnFp32OutputConfigsPerMode = 8;

[[noreturn]] inline void cudnn_failure(const std::string& call, cudnnStatus_t status) {
  throw std::runtime_error("ktune::conv2d_ex: " + call + ": " + cudnnGetErrorString(status));
}
inline void cudnn_check(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS) cudnn_failure(call, status);
}
inline void cudnn_cuda_check(cudaError_t error, const char* call) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string("ktune::conv2d_ex: ") + call + ": " +
                             cudaGetErrorString(error));
}

// One layer's descriptors and algorithm on one device.
struct CudnnLayer {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace = 0;
  bool found = false;  // false: no algorithm ran the layer
  // The engine plan when one beat the legacy Find's best (else null), and its packs.
  std::unique_ptr<ktune::kernels::conv2d::cuda::CudnnEngineSearch> engines;
  bool fp32_output = false;  // the kept engine writes the FP32 output itself
  struct Pack {
    const void *x, *w;
    void *y, *workspace;
    ktune::kernels::conv2d::cuda::CudnnDescriptor desc;
  };
  std::vector<Pack> packs;
  size_t next_pack = 0;  // the ring's slot the next new pack takes
  CudnnLayer() = default;
  CudnnLayer(const CudnnLayer&) = delete;
  CudnnLayer& operator=(const CudnnLayer&) = delete;
  ~CudnnLayer() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
};

// device, precision, n h w c k r s stride pad, pointer alignment (an engine plan assumes it),
// 16-bit output (1) or FP32 (0)
using CudnnKey = std::tuple<int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t, int64_t, int>;

// The largest power of two up to 16 bytes that every pointer keeps (at least an element's 2).
inline int64_t cudnn_alignment(const void* x, const void* w, const void* y) {
  int64_t alignment = 16;
  for (const void* p : {x, w, y})
    while (alignment > 2 && reinterpret_cast<uintptr_t>(p) % uintptr_t(alignment) != 0)
      alignment /= 2;
  return alignment;
}

// The pack of these buffers for the layer's engine plan: a kept one, or a new one in the ring.
inline cudnnBackendDescriptor_t cudnn_pack(CudnnLayer& layer, const void* x, const void* w, void* y,
                                           void* workspace) {
  for (const CudnnLayer::Pack& p : layer.packs)
    if (p.x == x && p.w == w && p.y == y && p.workspace == workspace) return p.desc.get();
  CudnnLayer::Pack pack{x, w, y, workspace, layer.engines->make_pack(x, w, y, workspace)};
  if (layer.packs.size() < kCudnnPacksPerLayer) {
    layer.packs.push_back(std::move(pack));
    return layer.packs.back().desc.get();
  }
  const size_t slot = layer.next_pack;
  layer.next_pack = (slot + 1) % kCudnnPacksPerLayer;
  layer.packs[slot] = std::move(pack);
  return layer.packs[slot].desc.get();
}

// The handle of the current device (created on first use, kept for the process).
inline cudnnHandle_t cudnn_handle(int device) {
  static std::mutex mutex;
  static std::map<int, cudnnHandle_t> handles;
  std::lock_guard lock(mutex);
  if (const auto it = handles.find(device); it != handles.end()) return it->second;
  cudnnHandle_t handle = nullptr;
  cudnn_check(cudnnCreate(&handle), "cudnnCreate");
  handles.emplace(device, handle);
  return handle;
}

// The legacy Find's fastest algorithm on the layer's descriptors (layer.found false when none
// ran); returns its milliseconds. y16 is overwritten. search_scratch_of: memory for this search
// alone.
template <typename Transient>
float cudnn_legacy_find(cudnnHandle_t handle, CudnnLayer& layer, const void* x, const void* filter,
                        void* y16, Transient&& search_scratch_of) {
  void* scratch = search_scratch_of(kCudnnMaxWorkspace);
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  cudnn_check(cudnnFindConvolutionForwardAlgorithmEx(
                  handle, layer.x, x, layer.w, filter, layer.conv, layer.y, y16,
                  CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, scratch, kCudnnMaxWorkspace),
              "cudnnFindConvolutionForwardAlgorithmEx");
  for (int i = 0; i < returned; ++i) {  // sorted fastest first
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    layer.algo = perf[i].algo;
    layer.workspace = perf[i].memory;
    layer.found = true;
    return perf[i].time;
  }
  return -1;
}

// What a cuDNN call wrote: nothing (no algorithm ran the layer), the 16-bit scratch output the
// caller widens, the FP32 output itself, or the caller's 16-bit output itself.
enum class CudnnWrote { nothing, narrow, fp32, output16 };

// An engine search of the layer (FP32 output or the precision's); null when none ran or cuDNN
// failed (a search skips what does not run; `failure` says why). ms: the kept plan's time.
inline std::unique_ptr<ktune::kernels::conv2d::cuda::CudnnEngineSearch> cudnn_engine_search(
    cudnnHandle_t handle, ktune::kernels::conv2d::cuda::CudnnPrecision precision,
    const ktune::kernels::conv2d::Shape& shape, int64_t alignment, bool fp32_output, const void* x,
    const void* filter, void* y, int configs_per_mode, float& ms, std::string& failure) {
  namespace kcu = ktune::kernels::conv2d::cuda;
  ms = -1;
  try {
    const kcu::CudnnSearchChecks checks{&cudnn_check, &cudnn_cuda_check};
    auto engines = std::make_unique<kcu::CudnnEngineSearch>(handle, shape, false, precision,
                                                            alignment, checks, fp32_output);
    ms = engines->find(x, filter, y, kCudnnMaxWorkspace, configs_per_mode);
    if (ms >= 0) return engines;
    failure = "none ran";
  } catch (const std::runtime_error& e) {
    failure = e.what();
  }
  return nullptr;
}

// The layer's descriptors, then the searches (the file's comment says which is kept); y32 null:
// the output is y16's 16 bits (no FP32-output search).
template <typename Transient>
std::unique_ptr<CudnnLayer> cudnn_search(cudnnHandle_t handle,
                                         ktune::kernels::conv2d::cuda::CudnnPrecision precision,
                                         const ktune::kernels::conv2d::Shape& shape,
                                         int64_t alignment, const void* x, const void* filter,
                                         void* y16, float* y32, Transient&& search_scratch_of) {
  namespace kcu = ktune::kernels::conv2d::cuda;
  const cudnnDataType_t type = kcu::cudnn_data_type(precision);
  const int n = int(shape.n), c = int(shape.c), k = int(shape.k);
  auto layer = std::make_unique<CudnnLayer>();
  cudnn_check(cudnnCreateTensorDescriptor(&layer->x), "cudnnCreateTensorDescriptor");
  cudnn_check(cudnnCreateTensorDescriptor(&layer->y), "cudnnCreateTensorDescriptor");
  cudnn_check(cudnnCreateFilterDescriptor(&layer->w), "cudnnCreateFilterDescriptor");
  cudnn_check(cudnnCreateConvolutionDescriptor(&layer->conv), "cudnnCreateConvolutionDescriptor");
  cudnn_check(cudnnSetConvolution2dDescriptor(layer->conv, int(shape.pad), int(shape.pad),
                                              int(shape.stride), int(shape.stride), 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  cudnn_check(cudnnSetConvolutionMathType(layer->conv, CUDNN_TENSOR_OP_MATH),
              "cudnnSetConvolutionMathType");
  cudnn_check(cudnnSetTensor4dDescriptor(layer->x, CUDNN_TENSOR_NHWC, type, n, c, int(shape.h),
                                         int(shape.w)),
              "cudnnSetTensor4dDescriptor(x)");
  cudnn_check(cudnnSetFilter4dDescriptor(layer->w, type, CUDNN_TENSOR_NHWC, k, c, int(shape.r),
                                         int(shape.s)),
              "cudnnSetFilter4dDescriptor(w)");
  cudnn_check(cudnnSetTensor4dDescriptor(layer->y, CUDNN_TENSOR_NHWC, type, n, k, int(shape.p()),
                                         int(shape.q())),
              "cudnnSetTensor4dDescriptor(y)");
  // Each search skips what cuDNN refuses (a pointer's alignment, say): the layer then falls to
  // the selector's fallback order when none ran.
  float legacy_ms = -1;
  std::string legacy_failure, narrow_failure, wide_failure;
  try {
    legacy_ms = cudnn_legacy_find(handle, *layer, x, filter, y16, search_scratch_of);
  } catch (const std::runtime_error& e) {
    legacy_failure = e.what();
  }
  float best = layer->found ? legacy_ms : -1, narrow_ms = -1, wide_ms = -1;
  auto keep = [&](std::unique_ptr<kcu::CudnnEngineSearch> engines, bool fp32, float ms) {
    layer->engines = std::move(engines);
    layer->workspace = layer->engines->workspace_bytes();
    layer->fp32_output = fp32;
    layer->found = true;
    best = ms;
  };
  auto narrow = cudnn_engine_search(handle, precision, shape, alignment, false, x, filter, y16, 0,
                                    narrow_ms, narrow_failure);
  if (narrow && (best < 0 || narrow_ms < best)) keep(std::move(narrow), false, narrow_ms);
  if (y32) {
    auto wide = cudnn_engine_search(handle, precision, shape, alignment, true, x, filter, y32,
                                    kCudnnFp32OutputConfigsPerMode, wide_ms, wide_failure);
    if (wide && (best < 0 || wide_ms <= best)) keep(std::move(wide), true, wide_ms);
  } else {
    wide_failure = "(16-bit output: not searched)";
  }
  if (const char* log = std::getenv("KTUNE_CONV2D_CUDNN_LOG"); log && *log && *log != '0') {
    const std::string kept =
        layer->engines ? std::string(layer->fp32_output ? "fp32-output " : "16-bit-output ") +
                             "engine=" + std::to_string(layer->engines->engine()) +
                             " config=" + layer->engines->config()
        : layer->found ? "legacy algo=" + std::to_string(int(layer->algo))
                       : std::string("none");
    std::fprintf(
        stderr,
        "ktune::conv2d_ex cudnn n=%d %lldx%lld c=%d k=%d %lldx%lld/%lld pad=%lld "
        "align=%lld output=%s: legacy %.4f ms%s%s; engines %.4f ms%s%s; fp32-output engines "
        "%.4f ms%s%s; kept %s (workspace %zu B)\n",
        n, (long long)shape.h, (long long)shape.w, c, k, (long long)shape.r, (long long)shape.s,
        (long long)shape.stride, (long long)shape.pad, (long long)alignment,
        y32 ? "fp32" : "the data's type", legacy_ms, legacy_failure.empty() ? "" : " ",
        legacy_failure.c_str(), narrow_ms, narrow_failure.empty() ? "" : " ",
        narrow_failure.c_str(), wide_ms, wide_failure.empty() ? "" : " ", wide_failure.c_str(),
        kept.c_str(), layer->workspace);
  }
  return layer;
}

// Runs conv(x, w) with cuDNN on `stream` into y: with output16, y is the caller's output in the
// data's type (16 bits; FP32 for tf32 data) and the engine writes it (CudnnWrote::output16); else
// y is FP32 from 16-bit data, written directly or through 16-bit scratch it sets *y16 to
// (y16_bytes, from workspace_of) for the caller to widen.
// `workspace_of(bytes)` gives stream-ordered scratch memory, 256-byte aligned (the caller
// releases it after the call; each ask a buffer of its own, which a caller may keep between
// calls); `search_scratch_of(bytes)` the same for the search alone. The first call of a layer
// searches on these tensors (synchronously; the output is then overwritten by the call).
template <typename Workspace, typename Transient>
CudnnWrote run_cudnn(int device, ktune::kernels::conv2d::cuda::CudnnPrecision precision,
                     const ktune::kernels::conv2d::Shape& shape, const void* x, const void* filter,
                     void* y, bool output16, size_t y16_bytes, void** y16, cudaStream_t stream,
                     Workspace&& workspace_of, Transient&& search_scratch_of) {
  static std::mutex mutex;
  static std::map<CudnnKey, std::unique_ptr<CudnnLayer>> layers;
  std::lock_guard lock(mutex);  // one handle per device: its stream is set per call
  const cudnnHandle_t handle = cudnn_handle(device);
  cudnn_check(cudnnSetStream(handle, stream), "cudnnSetStream");
  const int64_t alignment = cudnn_alignment(x, filter, y);  // scratch: 256-byte aligned
  const CudnnKey key{device,    int(precision), shape.n,         shape.h, shape.w,
                     shape.c,   shape.k,        shape.r,         shape.s, shape.stride,
                     shape.pad, alignment,      output16 ? 1 : 0};
  auto it = layers.find(key);
  if (it == layers.end()) {
    void* search_out = y;  // a 16-bit output: the search writes it (the call overwrites it)
    float* y32 = nullptr;
    if (!output16) {
      *y16 = workspace_of(y16_bytes);
      search_out = *y16;
      y32 = static_cast<float*>(y);
    }
    it = layers
             .emplace(key, cudnn_search(handle, precision, shape, alignment, x, filter, search_out,
                                        y32, search_scratch_of))
             .first;
  }
  CudnnLayer& layer = *it->second;
  if (!layer.found) return CudnnWrote::nothing;
  void* scratch = layer.workspace ? workspace_of(layer.workspace) : nullptr;
  void* target = y;
  if (!output16 && !layer.fp32_output) {
    if (!*y16) *y16 = workspace_of(y16_bytes);
    target = *y16;
  }
  if (layer.engines) {
    cudnn_check(layer.engines->execute(cudnn_pack(layer, x, filter, target, scratch)),
                "cudnnBackendExecute");
  } else {
    const float one = 1.0f, zero = 0.0f;
    cudnn_check(
        cudnnConvolutionForward(handle, &one, layer.x, x, layer.w, filter, layer.conv, layer.algo,
                                scratch, layer.workspace, &zero, layer.y, target),
        "cudnnConvolutionForward");
  }
  return output16            ? CudnnWrote::output16
         : layer.fp32_output ? CudnnWrote::fp32
                             : CudnnWrote::narrow;
}

}  // namespace ktune::kernels::conv2d::deploy
