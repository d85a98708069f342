#pragma once
// cuDNN's backend (graph) API for one FP32 forward convolution: the engines that cuDNN 9's own
// frontend and PyTorch search, some of which the legacy cudnnFindConvolutionForwardAlgorithmEx
// never runs (FP32 xmma implicit-GEMM kernels, for example). The operation graph holds one
// convolution (x, w, y in NHWC / KRSC or NCHW / KCRS, FP32 data and compute); find() times every
// engine config (engine and knob choices) that heuristics modes A and B and the fallback list
// return, leaving out those with tensor-core math (numerical notes TENSOR_CORE,
// DOWN_CONVERT_INPUTS or REDUCED_PRECISION_REDUCTION: the FP32 baseline is FMA math), and keeps
// the fastest as an execution plan. Runs execute that plan on variant packs bound once per
// rotation copy, so nothing is built inside a timed run.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_shape.hpp"

namespace ktune::kernels::conv2d::cuda {

class CudnnEngines {
 public:
  CudnnEngines(cudnnHandle_t handle, const Shape& shape, bool nchw);
  ~CudnnEngines();
  CudnnEngines(const CudnnEngines&) = delete;
  CudnnEngines& operator=(const CudnnEngines&) = delete;

  // Times the FMA engine configs on these buffers (y is overwritten) with workspaces up to
  // max_workspace bytes; keeps the fastest. Returns its milliseconds, < 0 when none ran.
  float find(const float* x, const float* w, float* y, size_t max_workspace);
  size_t workspace_bytes() const { return workspace_bytes_; }
  // Binds rotation copy `copy`'s buffers and the workspace (of workspace_bytes()) for run().
  void bind(int copy, const float* x, const float* w, float* y, void* workspace);
  cudnnStatus_t run(int copy) const;
  // "engine=12 config=A#3": cuDNN's global engine index of the kept plan and its config.
  std::string description() const;
  bool transform_algorithm() const { return transform_; }  // Winograd or FFT numerics

 private:
  cudnnHandle_t handle_;
  std::vector<cudnnBackendDescriptor_t> owned_;  // destroyed in reverse order
  cudnnBackendDescriptor_t graph_ = nullptr, plan_ = nullptr;
  std::vector<cudnnBackendDescriptor_t> packs_;  // per copy
  size_t workspace_bytes_ = 0;
  int64_t engine_ = -1;
  std::string config_;  // "A#3": the kept config's rank in that heuristic mode's results
  bool transform_ = false;
  cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type);
};

}  // namespace ktune::kernels::conv2d::cuda
