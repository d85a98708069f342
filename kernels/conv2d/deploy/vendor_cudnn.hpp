#pragma once
// The vendor candidate "vendor=cudnn" of a tensor-core conv2d selector (tuned_cuda_tc.inl): cuDNN
// on the caller's 16-bit NHWC input and KRSC filter (cuDNN's NHWC filter format), tensor-core math,
// FP32 accumulation, 16-bit NHWC output. The algorithm is cuDNN's fastest of its legacy Find
// (cudnnFindConvolutionForwardAlgorithmEx, run once per device and layer on the first call's
// tensors, workspace up to kCudnnMaxWorkspace), kept with the layer's descriptors. The sweep's
// `cudnn` row timed cuDNN at its best over both layouts and its backend engines too; the deployed
// call keeps the caller's NHWC (a layout change would cost two transposes per call).
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ktune::kernels::conv2d::deploy {

inline constexpr size_t kCudnnMaxWorkspace = size_t(64) << 20;  // Find's budget, kept by the pool

[[noreturn]] inline void cudnn_failure(const std::string& call, cudnnStatus_t status) {
  throw std::runtime_error("ktune::conv2d_ex: " + call + ": " + cudnnGetErrorString(status));
}
inline void cudnn_check(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS) cudnn_failure(call, status);
}

// One layer's descriptors and algorithm on one device.
struct CudnnLayer {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace = 0;
  bool found = false;  // false: no algorithm ran the layer
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

using CudnnKey = std::tuple<int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t>;  // device, data type, n h w c k r s stride pad

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

// Runs y16 = conv(x, w) with cuDNN on `stream`; `workspace_of(bytes)` gives stream-ordered
// scratch memory (the caller releases it after the call). False when cuDNN found no algorithm.
// The first call of a layer runs cuDNN's Find on these tensors (synchronously; y16 is then
// overwritten by the call).
template <typename Workspace>
bool run_cudnn(int device, cudnnDataType_t type, int64_t n, int64_t h, int64_t w, int64_t c,
               int64_t k, int64_t r, int64_t s, int64_t stride, int64_t pad, const void* x,
               const void* filter, void* y16, cudaStream_t stream, Workspace&& workspace_of) {
  static std::mutex mutex;
  static std::map<CudnnKey, std::unique_ptr<CudnnLayer>> layers;
  std::lock_guard lock(mutex);  // one handle per device: its stream is set per call
  const cudnnHandle_t handle = cudnn_handle(device);
  cudnn_check(cudnnSetStream(handle, stream), "cudnnSetStream");
  const CudnnKey key{device, int(type), n, h, w, c, k, r, s, stride, pad};
  auto it = layers.find(key);
  if (it == layers.end()) {
    auto layer = std::make_unique<CudnnLayer>();
    cudnn_check(cudnnCreateTensorDescriptor(&layer->x), "cudnnCreateTensorDescriptor");
    cudnn_check(cudnnCreateTensorDescriptor(&layer->y), "cudnnCreateTensorDescriptor");
    cudnn_check(cudnnCreateFilterDescriptor(&layer->w), "cudnnCreateFilterDescriptor");
    cudnn_check(cudnnCreateConvolutionDescriptor(&layer->conv), "cudnnCreateConvolutionDescriptor");
    cudnn_check(
        cudnnSetConvolution2dDescriptor(layer->conv, int(pad), int(pad), int(stride), int(stride),
                                        1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolution2dDescriptor");
    cudnn_check(cudnnSetConvolutionMathType(layer->conv, CUDNN_TENSOR_OP_MATH),
                "cudnnSetConvolutionMathType");
    cudnn_check(cudnnSetTensor4dDescriptor(layer->x, CUDNN_TENSOR_NHWC, type, int(n), int(c),
                                           int(h), int(w)),
                "cudnnSetTensor4dDescriptor(x)");
    cudnn_check(cudnnSetFilter4dDescriptor(layer->w, type, CUDNN_TENSOR_NHWC, int(k), int(c),
                                           int(r), int(s)),
                "cudnnSetFilter4dDescriptor(w)");
    const int p = int((h + 2 * pad - r) / stride + 1), q = int((w + 2 * pad - s) / stride + 1);
    cudnn_check(cudnnSetTensor4dDescriptor(layer->y, CUDNN_TENSOR_NHWC, type, int(n), int(k), p, q),
                "cudnnSetTensor4dDescriptor(y)");
    void* scratch = workspace_of(kCudnnMaxWorkspace);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    cudnn_check(cudnnFindConvolutionForwardAlgorithmEx(
                    handle, layer->x, x, layer->w, filter, layer->conv, layer->y, y16,
                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, scratch, kCudnnMaxWorkspace),
                "cudnnFindConvolutionForwardAlgorithmEx");
    for (int i = 0; i < returned; ++i) {  // sorted fastest first
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      layer->algo = perf[i].algo;
      layer->workspace = perf[i].memory;
      layer->found = true;
      break;
    }
    it = layers.emplace(key, std::move(layer)).first;
  }
  const CudnnLayer& layer = *it->second;
  if (!layer.found) return false;
  const float one = 1.0f, zero = 0.0f;
  void* scratch = layer.workspace ? workspace_of(layer.workspace) : nullptr;
  cudnn_check(cudnnConvolutionForward(handle, &one, layer.x, x, layer.w, filter, layer.conv,
                                      layer.algo, scratch, layer.workspace, &zero, layer.y, y16),
              "cudnnConvolutionForward");
  return true;
}

}  // namespace ktune::kernels::conv2d::deploy
