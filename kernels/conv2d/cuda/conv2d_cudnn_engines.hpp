#pragma once
// cuDNN's backend (graph) API for one forward convolution in one precision: the engines that
// cuDNN 9's own frontend and PyTorch search, some of which the legacy
// cudnnFindConvolutionForwardAlgorithmEx never runs (FP32 xmma implicit-GEMM kernels, for
// example). The operation graph holds one convolution (x, w, y in NHWC / KRSC or NCHW / KCRS, in
// the precision's data type, FLOAT compute: FP32 accumulation); find() times every engine config
// (engine and knob choices) that heuristics modes A and B and the fallback list return (or, in a
// limited search, the first N accepted of each mode in its order, cuDNN's predicted fastest
// first, engines compiled at run time left out) and keeps the fastest as an execution plan.
// Left out, as PyTorch's filter does: engines with the
// numerical notes DOWN_CONVERT_INPUTS (inputs rounded below the precision) or
// REDUCED_PRECISION_REDUCTION (no FP32 accumulation), and in fp32 those with TENSOR_CORE (the
// FP32 baseline is FMA math; tf32 is FP32 data on tensor cores, bf16 / fp16 want them).
// Runs execute that plan on variant packs made once per buffer triple (stage() / bind() before
// any timing), so nothing is built inside a timed run or a captured graph's replay.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_precision.hpp"

namespace ktune::kernels::conv2d::cuda {

class CudnnEngines {
 public:
  // alignment: the byte alignment every bound pointer keeps (16 lets vectorized kernels in).
  CudnnEngines(cudnnHandle_t handle, const Shape& shape, bool nchw, CudnnPrecision precision,
               int64_t alignment);
  ~CudnnEngines();
  CudnnEngines(const CudnnEngines&) = delete;
  CudnnEngines& operator=(const CudnnEngines&) = delete;

  // Times the accepted engine configs on these buffers (y is overwritten) with workspaces up to
  // max_workspace bytes, at most configs_per_mode of each heuristic mode when > 0; keeps the
  // fastest. Returns its milliseconds, < 0 when none ran.
  float find(const void* x, const void* w, void* y, size_t max_workspace, int configs_per_mode = 0);
  size_t workspace_bytes() const { return workspace_bytes_; }
  // Makes the variant pack of these buffers and the workspace (of workspace_bytes()) for run().
  // Throws Error when a pointer breaks the alignment the plan was built for.
  void bind(const void* x, const void* w, void* y, void* workspace);
  // Runs the kept plan on these buffers: the pack bind() made for them, or one made here the
  // first time the triple is met (host work only: bind() first to keep it out of a timing).
  cudnnStatus_t run(const void* x, const void* w, void* y, void* workspace) const;
  // "engine=12 config=A#3": cuDNN's global engine index of the kept plan and its config.
  std::string description() const;
  bool transform_algorithm() const { return transform_; }  // Winograd or FFT numerics

 private:
  cudnnHandle_t handle_;
  mutable std::vector<cudnnBackendDescriptor_t> owned_;  // destroyed in reverse order
  cudnnBackendDescriptor_t graph_ = nullptr, plan_ = nullptr;
  struct Pack {
    const void *x, *w;
    void *y, *workspace;
    cudnnBackendDescriptor_t desc;
  };
  mutable std::vector<Pack> packs_;  // one per buffer triple bound
  CudnnPrecision precision_;
  int64_t alignment_;
  size_t workspace_bytes_ = 0;
  int64_t engine_ = -1;
  std::string config_;  // "A#3": the kept config's rank in that heuristic mode's results
  bool transform_ = false;
  cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type) const;
  cudnnBackendDescriptor_t make_pack(const void* x, const void* w, void* y, void* workspace) const;
  bool accepted(const std::vector<cudnnBackendNumericalNote_t>& notes) const;
};

}  // namespace ktune::kernels::conv2d::cuda
