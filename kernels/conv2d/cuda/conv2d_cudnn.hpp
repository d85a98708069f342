#pragma once
// The cuDNN baseline of the conv2d family ("cudnn") and the network engine's cuDNN convolutions:
// one forward convolution in a precision (conv2d_cudnn_precision.hpp: fp32 FMA math, tf32 / bf16
// / fp16 on tensor cores, FLOAT compute everywhere) at the fastest algorithm cuDNN offers for
// the layer, in the faster of its NHWC and NCHW layouts where the caller allows both.
//
// How the algorithm is found: the convolution descriptor's math type is CUDNN_FMA_MATH in fp32
// (no TF32 or other tensor-core math), CUDNN_DEFAULT_MATH in tf32 (TF32 permitted on FP32 data,
// as PyTorch's allow_tf32 sets it) and CUDNN_TENSOR_OP_MATH in bf16 / fp16; for each layout
// tried, every forward algorithm's workspace size is queried
// (cudnnGetConvolutionForwardWorkspaceSize), a workspace of the largest supported size (capped
// at kMaxFindWorkspace) is allocated, and cudnnFindConvolutionForwardAlgorithmEx times all
// CUDNN_CONVOLUTION_FWD_ALGO_COUNT algorithms on the problem's own data. The fastest result with
// status SUCCESS (in fp32: and math type CUDNN_FMA_MATH) over all layouts is kept, run with the
// math type it was timed with, and a workspace of exactly its size allocated once: like an
// inference engine, runs reuse it and its allocation is not timed. Each timed run is one
// cudnnConvolutionForward (alpha 1, beta 0).
//
// Layouts: the family's data is NHWC activations and KRSC filters. cuDNN's NCHW kernels (FFMA
// implicit GEMM, Winograd, FFT) are often faster than its NHWC ones, and a user holding NCHW data
// would run them, so CudnnLayouts::nhwc_or_nchw also tries NCHW input / KCRS filter / NCHW
// output: the inputs are transposed into staged copies (cudnnTransformTensor) outside any timing,
// the timed run reads and writes only the staged copies, and deliver() transposes the output back
// to NHWC for verification. The network engine (nn/cuda) keeps NHWC only: its activations are
// NHWC and a transpose per layer would be part of its time.
//
// APIs: the legacy Find does not reach every engine cuDNN 9 has (the FP32 xmma implicit-GEMM
// kernels that its frontend and PyTorch find, often the fastest FP32 kernels on the H100; in
// bf16 the legacy Find kept non-tensor-core kernels on 19 of ResNet-50's 53 layers on the
// H200), so CudnnApis::legacy_and_engines also times the backend API's engine configs of the
// precision per layout (conv2d_cudnn_engines.hpp) and keeps the fastest of everything.
//
// Buffers are untyped: x, w and y hold the precision's data type (2-byte bf16 / fp16, else
// float).
#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/cuda/cudnn_layout.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_precision.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/cuda/owned_handle.hpp"

namespace ktune::kernels::conv2d::cuda {

// Destroys a cuDNN handle unless the CUDA context is already unusable.
void destroy_cudnn(cudnnHandle_t handle);

// Owns a cuDNN handle bound to a stream.
class CudnnHandle : public ktune::cuda::OwnedHandle<cudnnHandle_t, &destroy_cudnn> {
 public:
  explicit CudnnHandle(cudaStream_t stream);
};

// The layouts find() may choose from (nchw alone: for tests of the staged path).
enum class CudnnLayouts { nhwc, nchw, nhwc_or_nchw };
// The APIs whose algorithms find() times: the legacy Find (cudnnFindConvolutionForwardAlgorithmEx),
// the backend API's engines (conv2d_cudnn_engines.hpp), or both (engines alone: for tests).
enum class CudnnApis { legacy, engines, legacy_and_engines };

class CudnnEngines;

class CudnnConv {
 public:
  static constexpr size_t kMaxFindWorkspace = size_t(4) << 30;

  CudnnConv(cudnnHandle_t handle, const Shape& shape, CudnnLayouts layouts = CudnnLayouts::nhwc,
            CudnnApis apis = CudnnApis::legacy, CudnnPrecision precision = CudnnPrecision::fp32);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // A network's load searches every layer: time at most `per_mode` engine configs of each
  // heuristic mode (its first, cuDNN's predicted fastest) and no engine compiled at run time.
  // PyTorch's benchmark mode times 10 in all (torch.backends.cudnn.benchmark_limit). Default:
  // every config. Call before find().
  void limit_engine_search(int per_mode) { engine_configs_per_mode_ = per_mode; }
  // Finds the fastest accepted algorithm and layout on these NHWC / KRSC buffers (y is
  // overwritten) and allocates its workspace. Throws CudaError when cuDNN fails or offers none.
  void find(const void* x, const void* w, void* y);
  // Prepares rotation copy `copy` (0, 1, ...) outside any timing; find() prepares copy 0 with
  // its buffers. Call before run() with that copy. NCHW: transposes the inputs into NCHW / KCRS
  // staged copies; an engine: binds the buffers to the plan; else nothing.
  void stage(int copy, const void* x, const void* w, void* y);
  // One asynchronous forward convolution on the handle's stream; find() first. NHWC reads x and
  // w and writes y; NCHW reads and writes staged copy `copy`.
  cudnnStatus_t run(const void* x, const void* w, void* y, int copy = 0) const;
  // NCHW only: poisons staged copy 0's output (NaN) / transposes it into the NHWC y.
  void poison() const;
  void deliver(void* y) const;
  // "cudnn bf16 algo=IMPLICIT_PRECOMP_GEMM math=TENSOR_OP layout=NHWC 0.0210 ms workspace=0 B"
  // (an engine: "engine=N config=A#3" in place of algo and math): the kept choice and its time
  // in the search.
  std::string description() const;
  float found_ms() const { return found_ms_; }
  CudnnPrecision precision() const { return precision_; }
  // Winograd and FFT algorithms round like a transform method: verify with Winograd's bound.
  bool transform_algorithm() const;

 private:
  using Layout = ktune::kernels::cudnn::LayoutDescriptors;
  struct Found {
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    cudnnMathType_t math = CUDNN_FMA_MATH;
    float ms = -1;  // < 0: none
    size_t memory = 0;
  };
  void make_layout(Layout& layout, cudnnTensorFormat_t format);
  void find_engines(const void* x, const void* w, void* y, Found& best);
  Found find_in(const Layout& layout, const void* x, const void* w, void* y) const;
  void* staged(int copy, size_t offset) const;
  void stage_nchw(int copy, const void* x, const void* w);
  void release();  // destroys the descriptors (constructor failures too)
  cudnnHandle_t handle_;
  Shape shape_;
  CudnnLayouts layouts_;
  CudnnApis apis_;
  Layout nhwc_, nchw_;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  CudnnPrecision precision_;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math_ = CUDNN_FMA_MATH;
  float found_ms_ = -1;
  int engine_configs_per_mode_ = 0;  // 0: all
  bool found_ = false, use_nchw_ = false;
  ktune::cuda::DeviceBuffer<char> workspace_;
  std::vector<ktune::cuda::DeviceBuffer<char>> staged_;  // per copy: x, then w, then y
  std::unique_ptr<CudnnEngines> engines_;                // the kept engine, if one won
};

// "CUDNN_STATUS_BAD_PARAM" -> a CudaError naming `call` when status is not SUCCESS.
void check_cudnn(cudnnStatus_t status, const std::string& call);

// cuDNN's name of a forward algorithm without its prefix ("IMPLICIT_PRECOMP_GEMM").
const char* cudnn_algo_name(cudnnConvolutionFwdAlgo_t algo);
// "FMA", "TENSOR_OP", "TENSOR_OP_ALLOW_CONVERSION" or "DEFAULT".
const char* cudnn_math_name(cudnnMathType_t math);
// Winograd or FFT: the algorithm rounds like a transform method, not like a dot product.
bool cudnn_transform_algorithm(cudnnConvolutionFwdAlgo_t algo);
// The legacy Find (cudnnFindConvolutionForwardAlgorithmEx) on these descriptors and buffers (y
// is overwritten), every algorithm with a scratch workspace of the largest size any of them
// asks for, up to max_workspace: the results, fastest first (statuses and math types as cuDNN
// reports them; the caller filters).
std::vector<cudnnConvolutionFwdAlgoPerf_t> cudnn_find_forward(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x_desc, const void* x,
    cudnnFilterDescriptor_t w_desc, const void* w, cudnnConvolutionDescriptor_t conv,
    cudnnTensorDescriptor_t y_desc, void* y, size_t max_workspace);

}  // namespace ktune::kernels::conv2d::cuda
