#pragma once
// One convolution of the network engine by cuDNN: the conv2d family's CudnnConv
// (kernels/conv2d/cuda/conv2d_cudnn.hpp: legacy Find and the backend API's engine configs,
// fastest kept, in the engine's precision: fp32 FMA math only, tf32 TF32 tensor-core math on
// FP32 data, bf16 data with FLOAT compute on tensor cores) on the engine's NHWC activations and
// KRSC filters. Only cudnn_layer_conv.cpp includes the family's header (the architecture
// check's listed exception); the rest of nn/ sees this adapter.
//
// NHWC only: the engine's activations are NHWC, and an NCHW layer would need two transposes
// inside the timed pass (cuDNN's NCHW kernels per layer are in the conv2d family's tables,
// whose baseline searches both layouts). The engine search is limited as a network's load
// needs (CudnnConv::limit_engine_search: kEngineConfigsPerMode per heuristic mode).
#include <cudnn.h>

#include <memory>
#include <string>

#include "ktune/nn/backend.hpp"
#include "nn/cuda/precision.hpp"

namespace ktune::kernels::conv2d::cuda {
class CudnnConv;
}

namespace ktune::nn::cuda {

// A cuDNN handle bound to a stream: the conv2d family's; the pointer owns it.
using CudnnHandle = std::shared_ptr<cudnnContext>;
CudnnHandle make_cudnn_handle(cudaStream_t stream);

// A CudaError naming `call` when status is not SUCCESS (the family's check).
void check_cudnn(cudnnStatus_t status, const std::string& call);

class CudnnLayerConv {
 public:
  static constexpr int kEngineConfigsPerMode = 10;

  CudnnLayerConv(cudnnHandle_t handle, const ConvDesc& d, Precision precision);
  ~CudnnLayerConv();
  CudnnLayerConv(const CudnnLayerConv&) = delete;
  CudnnLayerConv& operator=(const CudnnLayerConv&) = delete;

  // x, w, y in the precision's type (y is overwritten). Throws CudaError when cuDNN fails or
  // accepts no algorithm.
  void find(const void* x, const void* w, void* y);
  // One asynchronous forward convolution (alpha 1, beta 0) on the handle's stream.
  cudnnStatus_t run(const void* x, const void* w, void* y) const;
  // "cudnn bf16 engine=44 config=A#0 layout=NHWC 0.0210 ms workspace=0 B" or "cudnn tf32
  //  algo=IMPLICIT_PRECOMP_GEMM math=DEFAULT layout=NHWC ...": the pick and its search time.
  std::string description() const;
  // Winograd or FFT: the error of a transform method, not of a dot product.
  bool transform_algorithm() const;

 private:
  std::unique_ptr<ktune::kernels::conv2d::cuda::CudnnConv> conv_;
};

}  // namespace ktune::nn::cuda
