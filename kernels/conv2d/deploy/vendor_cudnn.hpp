#pragma once
// The vendor candidate "vendor=cudnn" of a tensor-core conv2d selector (tuned_cuda_tc.inl): cuDNN
// on the caller's 16-bit NHWC input and KRSC filter (cuDNN's NHWC filter format), tensor-core math,
// FP32 accumulation, 16-bit NHWC output. The first call per device, layer and pointer alignment
// searches, on that call's tensors and synchronously, what the sweep's `cudnn` row searched in
// NHWC: cuDNN's legacy Find (cudnnFindConvolutionForwardAlgorithmEx) and the backend API's engine
// configs (kernels/conv2d/cuda/conv2d_cudnn_engine_search.hpp, the family's own search), each
// with workspaces up to kCudnnMaxWorkspace, and keeps the faster of the two bests with the
// layer's descriptors; later calls only run it. The row also tried NCHW; the deployed call keeps
// the caller's NHWC (a layout change would cost two transposes per call).
// KTUNE_CONV2D_CUDNN_LOG=1 in the environment prints each layer's search result to stderr.
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
  // The engine search's plan when it beat the legacy Find's best (else null), and its packs.
  std::unique_ptr<ktune::kernels::conv2d::cuda::CudnnEngineSearch> engines;
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

// device, precision, n h w c k r s stride pad, pointer alignment (an engine plan assumes it)
using CudnnKey = std::tuple<int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t, int64_t>;

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
// ran); returns its milliseconds. y16 is overwritten.
template <typename Workspace>
float cudnn_legacy_find(cudnnHandle_t handle, CudnnLayer& layer, const void* x, const void* filter,
                        void* y16, Workspace&& workspace_of) {
  void* scratch = workspace_of(kCudnnMaxWorkspace);
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

// The layer's descriptors, then both searches; the engine plan is kept when it beat the legacy
// best. A failed engine search leaves the legacy choice (a search skips what does not run).
template <typename Workspace>
std::unique_ptr<CudnnLayer> cudnn_search(cudnnHandle_t handle,
                                         ktune::kernels::conv2d::cuda::CudnnPrecision precision,
                                         const ktune::kernels::conv2d::Shape& shape,
                                         int64_t alignment, const void* x, const void* filter,
                                         void* y16, Workspace&& workspace_of) {
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
  const float legacy_ms = cudnn_legacy_find(handle, *layer, x, filter, y16, workspace_of);
  float engine_ms = -1;
  std::string engine_failure;
  try {
    const kcu::CudnnSearchChecks checks{&cudnn_check, &cudnn_cuda_check};
    auto engines = std::make_unique<kcu::CudnnEngineSearch>(handle, shape, false, precision,
                                                            alignment, checks);
    engine_ms = engines->find(x, filter, y16, kCudnnMaxWorkspace);
    if (engine_ms >= 0 && (!layer->found || engine_ms < legacy_ms)) {
      layer->engines = std::move(engines);
      layer->workspace = layer->engines->workspace_bytes();
      layer->found = true;
    }
  } catch (const std::runtime_error& e) {
    engine_failure = e.what();
  }
  if (const char* log = std::getenv("KTUNE_CONV2D_CUDNN_LOG"); log && *log && *log != '0') {
    const std::string engine = engine_ms >= 0           ? ""
                               : engine_failure.empty() ? "(none ran)"
                                                        : "(failed: " + engine_failure + ")";
    std::fprintf(stderr,
                 "ktune::conv2d_ex cudnn n=%d %lldx%lld c=%d k=%d %lldx%lld/%lld pad=%lld "
                 "align=%lld: legacy %s%d %.4f ms; engines %.4f ms %s; kept %s (workspace %zu B)\n",
                 n, (long long)shape.h, (long long)shape.w, c, k, (long long)shape.r,
                 (long long)shape.s, (long long)shape.stride, (long long)shape.pad,
                 (long long)alignment, "algo=", int(layer->algo), legacy_ms, engine_ms,
                 engine.c_str(),
                 layer->engines ? ("engine=" + std::to_string(layer->engines->engine()) +
                                   " config=" + layer->engines->config())
                                      .c_str()
                 : layer->found ? "legacy"
                                : "none",
                 layer->workspace);
  }
  return layer;
}

// Runs y16 = conv(x, w) with cuDNN on `stream`; `workspace_of(bytes)` gives stream-ordered
// scratch memory (the caller releases it after the call). False when cuDNN found no algorithm.
// The first call of a layer searches on these tensors (synchronously; y16 is then overwritten
// by the call).
template <typename Workspace>
bool run_cudnn(int device, ktune::kernels::conv2d::cuda::CudnnPrecision precision, int64_t n,
               int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride,
               int64_t pad, const void* x, const void* filter, void* y16, cudaStream_t stream,
               Workspace&& workspace_of) {
  static std::mutex mutex;
  static std::map<CudnnKey, std::unique_ptr<CudnnLayer>> layers;
  std::lock_guard lock(mutex);  // one handle per device: its stream is set per call
  const cudnnHandle_t handle = cudnn_handle(device);
  cudnn_check(cudnnSetStream(handle, stream), "cudnnSetStream");
  const int64_t alignment = cudnn_alignment(x, filter, y16);
  const CudnnKey key{device, int(precision), n, h, w, c, k, r, s, stride, pad, alignment};
  auto it = layers.find(key);
  if (it == layers.end()) {
    ktune::kernels::conv2d::Shape shape;
    shape.n = n, shape.h = h, shape.w = w, shape.c = c, shape.k = k, shape.r = r, shape.s = s;
    shape.stride = stride, shape.pad = pad;
    it = layers
             .emplace(key, cudnn_search(handle, precision, shape, alignment, x, filter, y16,
                                        workspace_of))
             .first;
  }
  CudnnLayer& layer = *it->second;
  if (!layer.found) return false;
  void* scratch = layer.workspace ? workspace_of(layer.workspace) : nullptr;
  if (layer.engines) {
    cudnn_check(layer.engines->execute(cudnn_pack(layer, x, filter, y16, scratch)),
                "cudnnBackendExecute");
    return true;
  }
  const float one = 1.0f, zero = 0.0f;
  cudnn_check(cudnnConvolutionForward(handle, &one, layer.x, x, layer.w, filter, layer.conv,
                                      layer.algo, scratch, layer.workspace, &zero, layer.y, y16),
              "cudnnConvolutionForward");
  return true;
}

}  // namespace ktune::kernels::conv2d::deploy
