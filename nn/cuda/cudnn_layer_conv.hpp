#pragma once
// One convolution of the `cudnn` network backends by cuDNN's legacy API, in the engine's
// precision and NHWC layout (activations NHWC, filters KRSC; bf16: x, w and y bf16 with FLOAT
// compute, cuDNN's PSEUDO_BFLOAT16 configuration):
//   fp32  CUDNN_FMA_MATH, only FMA algorithms accepted (no TF32)
//   tf32  CUDNN_DEFAULT_MATH, which permits TF32 tensor-core kernels on FP32 data from Ampere
//         on (what PyTorch sets with allow_tf32); any algorithm Find returns is accepted
//   bf16  CUDNN_TENSOR_OP_MATH; any algorithm accepted
// find() times every algorithm cudnnFindConvolutionForwardAlgorithmEx offers in NHWC on the
// engine's buffers and keeps the fastest with its workspace (allocated once). For the record
// (issue #25: cuDNN at its best per layout) it also times them in NCHW / KCRS on scratch
// buffers: description() names both, and the engine runs NHWC (a layout change per layer would
// be part of its time).
#include <cudnn.h>

#include <memory>
#include <string>

#include "kernels/common/cuda/cudnn_layout.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/nn/backend.hpp"
#include "nn/cuda/precision.hpp"

namespace ktune::nn::cuda {

// A cuDNN handle bound to a stream: the conv2d family's, behind this file (only
// cudnn_layer_conv.cpp includes the family's header); the pointer owns it.
using CudnnHandle = std::shared_ptr<cudnnContext>;
CudnnHandle make_cudnn_handle(cudaStream_t stream);

// A CudaError naming `call` when status is not SUCCESS (the family's check).
void check_cudnn(cudnnStatus_t status, const std::string& call);

class CudnnLayerConv {
 public:
  CudnnLayerConv(cudnnHandle_t handle, const ConvDesc& d, Precision precision);
  ~CudnnLayerConv();
  CudnnLayerConv(const CudnnLayerConv&) = delete;
  CudnnLayerConv& operator=(const CudnnLayerConv&) = delete;

  // x, w, y in the precision's type (y is overwritten). Throws CudaError when cuDNN fails or
  // accepts no algorithm.
  void find(const void* x, const void* w, void* y);
  // One asynchronous forward convolution (alpha 1, beta 0) on the handle's stream.
  cudnnStatus_t run(const void* x, const void* w, void* y) const;
  // "cudnn algo=IMPLICIT_PRECOMP_GEMM math=TENSOR_OP layout=NHWC 0.0210 ms workspace=0 B;
  //  NCHW: algo=... 0.0150 ms"
  std::string description() const;
  // Winograd or FFT: the error of a transform method, not of a dot product.
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
  Found find_in(const Layout& layout, const void* x, const void* w, void* y) const;
  void release();
  cudnnHandle_t handle_;
  ConvDesc d_;
  Precision precision_;
  Layout nhwc_, nchw_;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  Found best_, nchw_best_;
  ktune::cuda::DeviceBuffer<char> workspace_;
};

}  // namespace ktune::nn::cuda
