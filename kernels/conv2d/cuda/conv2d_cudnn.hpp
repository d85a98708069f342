#pragma once
// The cuDNN baseline of the conv2d family ("cudnn"): FP32 NHWC forward convolution with TF32
// off, at the fastest algorithm cuDNN offers for the layer.
//
// How the algorithm is found: the convolution descriptor is set to CUDNN_FMA_MATH (FP32 FMA
// kernels only: no TF32 or other tensor-core math); every forward algorithm's workspace size is
// queried (cudnnGetConvolutionForwardWorkspaceSize), a workspace of the largest supported size
// (capped at kMaxFindWorkspace) is allocated, and cudnnFindConvolutionForwardAlgorithmEx times
// all CUDNN_CONVOLUTION_FWD_ALGO_COUNT algorithms on the problem's own buffers. The fastest
// result with status SUCCESS and math type CUDNN_FMA_MATH is kept, with a workspace of exactly
// its size allocated once: like an inference engine, runs reuse it and its allocation is not
// timed. Each timed run is one cudnnConvolutionForward (alpha 1, beta 0).
#include <cudnn.h>

#include <cstddef>
#include <string>

#include "kernels/conv2d/conv2d_family.hpp"
#include "ktune/cuda/device_buffer.hpp"

namespace ktune::kernels::conv2d::cuda {

// Owns a cuDNN handle bound to a stream.
class CudnnHandle {
 public:
  explicit CudnnHandle(cudaStream_t stream);
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

class CudnnConv {
 public:
  static constexpr size_t kMaxFindWorkspace = size_t(4) << 30;

  CudnnConv(cudnnHandle_t handle, const Shape& shape);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // Finds the fastest FMA algorithm on these buffers (y is overwritten) and allocates its
  // workspace. Throws CudaError when cuDNN fails or offers no FMA algorithm.
  void find(const float* x, const float* w, float* y);
  // One asynchronous forward convolution on the handle's stream; find() first.
  cudnnStatus_t run(const float* x, const float* w, float* y) const;
  // "cudnn algo=IMPLICIT_PRECOMP_GEMM workspace=0 B"
  std::string description() const;
  // Winograd and FFT algorithms round like a transform method: verify with Winograd's bound.
  bool transform_algorithm() const;

 private:
  void release();  // destroys the descriptors (constructor failures too)
  cudnnHandle_t handle_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  bool found_ = false;
  ktune::cuda::DeviceBuffer<char> workspace_;
};

// "CUDNN_STATUS_BAD_PARAM" -> a CudaError naming `call` when status is not SUCCESS.
void check_cudnn(cudnnStatus_t status, const std::string& call);

}  // namespace ktune::kernels::conv2d::cuda
