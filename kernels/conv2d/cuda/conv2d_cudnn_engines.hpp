#pragma once
// cuDNN's backend (graph) API for one forward convolution in one precision: the engines that
// cuDNN 9's own frontend and PyTorch search, some of which the legacy
// cudnnFindConvolutionForwardAlgorithmEx never runs (FP32 xmma implicit-GEMM kernels, for
// example). The search itself (which engine configs, how they are timed, which numerical notes
// are left out) is conv2d_cudnn_engine_search.hpp, shared with the deployed library's cuDNN call;
// this class adds ktune's errors and the variant packs of the sweep's rotated buffers.
// Runs execute the kept plan on variant packs made once per buffer triple (stage() / bind() before
// any timing), so nothing is built inside a timed run or a captured graph's replay.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_engine_search.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_precision.hpp"

namespace ktune::kernels::conv2d::cuda {

class CudnnEngines {
 public:
  // alignment: the byte alignment every bound pointer keeps (16 lets vectorized kernels in).
  CudnnEngines(cudnnHandle_t handle, const Shape& shape, bool nchw, CudnnPrecision precision,
               int64_t alignment);
  CudnnEngines(const CudnnEngines&) = delete;
  CudnnEngines& operator=(const CudnnEngines&) = delete;

  // Times the accepted engine configs on these buffers (y is overwritten) with workspaces up to
  // max_workspace bytes, at most configs_per_mode of each heuristic mode when > 0; keeps the
  // fastest. Returns its milliseconds, < 0 when none ran.
  float find(const void* x, const void* w, void* y, size_t max_workspace, int configs_per_mode = 0);
  size_t workspace_bytes() const { return search_.workspace_bytes(); }
  // Makes the variant pack of these buffers and the workspace (of workspace_bytes()) for run().
  // Throws Error when a pointer breaks the alignment the plan was built for.
  void bind(const void* x, const void* w, void* y, void* workspace);
  // Runs the kept plan on these buffers: the pack bind() made for them, or one made here the
  // first time the triple is met (host work only: bind() first to keep it out of a timing).
  cudnnStatus_t run(const void* x, const void* w, void* y, void* workspace) const;
  // "engine=12 config=A#3": cuDNN's global engine index of the kept plan and its config.
  std::string description() const;
  bool transform_algorithm() const { return search_.transform_algorithm(); }

 private:
  struct Pack {
    const void *x, *w;
    void *y, *workspace;
    CudnnDescriptor desc;
  };
  CudnnEngineSearch search_;
  int64_t alignment_;
  mutable std::vector<Pack> packs_;  // one per buffer triple bound
  const Pack& pack_of(const void* x, const void* w, void* y, void* workspace) const;
};

}  // namespace ktune::kernels::conv2d::cuda
