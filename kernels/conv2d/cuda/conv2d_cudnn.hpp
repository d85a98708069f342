#pragma once
// The cuDNN baseline of the conv2d family ("cudnn"): FP32 forward convolution with TF32 off, at
// the fastest algorithm cuDNN offers for the layer, in the faster of its NHWC and NCHW layouts.
//
// How the algorithm is found: the convolution descriptor is set to CUDNN_FMA_MATH (FP32 FMA
// kernels only: no TF32 or other tensor-core math); for each layout tried, every forward
// algorithm's workspace size is queried (cudnnGetConvolutionForwardWorkspaceSize), a workspace
// of the largest supported size (capped at kMaxFindWorkspace) is allocated, and
// cudnnFindConvolutionForwardAlgorithmEx times all CUDNN_CONVOLUTION_FWD_ALGO_COUNT algorithms
// on the problem's own data. The fastest result with status SUCCESS and math type
// CUDNN_FMA_MATH over all layouts is kept, with a workspace of exactly its size allocated once:
// like an inference engine, runs reuse it and its allocation is not timed. Each timed run is
// one cudnnConvolutionForward (alpha 1, beta 0).
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
// kernels that its frontend and PyTorch find, often the fastest FP32 kernels on the H100), so
// CudnnApis::legacy_and_engines also times the backend API's FMA engine configs per layout
// (conv2d_cudnn_engines.hpp) and keeps the fastest of everything.
#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/cuda/cudnn_layout.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
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
            CudnnApis apis = CudnnApis::legacy);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // Finds the fastest FMA algorithm and layout on these NHWC / KRSC buffers (y is overwritten)
  // and allocates its workspace. Throws CudaError when cuDNN fails or offers no FMA algorithm.
  void find(const float* x, const float* w, float* y);
  // Prepares rotation copy `copy` (0, 1, ...) outside any timing; find() prepares copy 0 with
  // its buffers. Call before run() with that copy. NCHW: transposes the inputs into NCHW / KCRS
  // staged copies; an engine: binds the buffers to the plan; else nothing.
  void stage(int copy, const float* x, const float* w, float* y);
  // One asynchronous forward convolution on the handle's stream; find() first. NHWC reads x and
  // w and writes y (an engine: those of copy `copy`); NCHW reads and writes staged copy `copy`.
  cudnnStatus_t run(const float* x, const float* w, float* y, int copy = 0) const;
  // NCHW only: poisons staged copy 0's output (NaN) / transposes it into the NHWC y.
  void poison() const;
  void deliver(float* y) const;
  // "cudnn algo=IMPLICIT_PRECOMP_GEMM layout=NCHW math=FMA workspace=0 B" (engines: "engine=N")
  std::string description() const;
  // Winograd and FFT algorithms round like a transform method: verify with Winograd's bound.
  bool transform_algorithm() const;

 private:
  using Layout = ktune::kernels::cudnn::LayoutDescriptors;
  struct Found {
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    float ms = -1;  // < 0: none
    size_t memory = 0;
  };
  void make_layout(Layout& layout, cudnnTensorFormat_t format);
  void find_engines(const float* x, const float* w, float* y, Found& best);
  Found find_in(const Layout& layout, const float* x, const float* w, float* y) const;
  float* staged(int copy, size_t offset) const;
  void stage_nchw(int copy, const float* x, const float* w);
  void release();  // destroys the descriptors (constructor failures too)
  cudnnHandle_t handle_;
  Shape shape_;
  CudnnLayouts layouts_;
  CudnnApis apis_;
  Layout nhwc_, nchw_;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  bool found_ = false, use_nchw_ = false;
  ktune::cuda::DeviceBuffer<char> workspace_;
  std::vector<ktune::cuda::DeviceBuffer<float>> staged_;  // per copy: x, then w, then y
  std::unique_ptr<CudnnEngines> engines_;                 // the kept engine, if one won
};

// "CUDNN_STATUS_BAD_PARAM" -> a CudaError naming `call` when status is not SUCCESS.
void check_cudnn(cudnnStatus_t status, const std::string& call);

// cuDNN's name of a forward algorithm without its prefix ("IMPLICIT_PRECOMP_GEMM").
const char* cudnn_algo_name(cudnnConvolutionFwdAlgo_t algo);
// Winograd or FFT: the algorithm rounds like a transform method, not like a dot product.
bool cudnn_transform_algorithm(cudnnConvolutionFwdAlgo_t algo);
// The legacy Find (cudnnFindConvolutionForwardAlgorithmEx) on these descriptors and buffers (y
// is overwritten), every algorithm with a scratch workspace of the largest size any of them
// asks for, up to max_workspace: the results, fastest first (statuses and math types as cuDNN
// reports them; the caller filters). Also the network engine's cuDNN convolutions use it.
std::vector<cudnnConvolutionFwdAlgoPerf_t> cudnn_find_forward(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x_desc, const void* x,
    cudnnFilterDescriptor_t w_desc, const void* w, cudnnConvolutionDescriptor_t conv,
    cudnnTensorDescriptor_t y_desc, void* y, size_t max_workspace);

}  // namespace ktune::kernels::conv2d::cuda
