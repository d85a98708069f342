#include "kernels/conv2d/cuda/conv2d_cudnn_engines.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cuda {

namespace {

// ktune's exceptions for the shared search's failures (CudaError, as every cuDNN check here).
CudnnSearchChecks ktune_checks() {
  return {[](cudnnStatus_t status, const char* call) { check_cudnn(status, call); },
          [](cudaError_t error, const char* call) { ktune::cuda::check(error, call); }};
}

}  // namespace

CudnnEngines::CudnnEngines(cudnnHandle_t handle, const Shape& s, bool nchw,
                           CudnnPrecision precision, int64_t alignment)
    : search_(handle, s, nchw, precision, alignment, ktune_checks()), alignment_(alignment) {}

float CudnnEngines::find(const void* x, const void* w, void* y, size_t max_workspace,
                         int configs_per_mode) {
  packs_.clear();
  return search_.find(x, w, y, max_workspace, configs_per_mode);
}

const CudnnEngines::Pack& CudnnEngines::pack_of(const void* x, const void* w, void* y,
                                                void* workspace) const {
  for (const Pack& p : packs_)
    if (p.x == x && p.w == w && p.y == y && p.workspace == workspace) return p;
  for (const void* p : {x, w, static_cast<const void*>(y)})
    if (reinterpret_cast<uintptr_t>(p) % uintptr_t(alignment_) != 0)
      throw Error(fmt::format("cudnn engine: buffer {} is not {}-byte aligned as the plan assumes",
                              p, alignment_));
  packs_.push_back({x, w, y, workspace, search_.make_pack(x, w, y, workspace)});
  return packs_.back();
}

void CudnnEngines::bind(const void* x, const void* w, void* y, void* workspace) {
  pack_of(x, w, y, workspace);
}

cudnnStatus_t CudnnEngines::run(const void* x, const void* w, void* y, void* workspace) const {
  if (!search_.found()) return CUDNN_STATUS_NOT_INITIALIZED;
  return search_.execute(pack_of(x, w, y, workspace).desc.get());
}

std::string CudnnEngines::description() const {
  return fmt::format("engine={} config={}", search_.engine(), search_.config());
}

}  // namespace ktune::kernels::conv2d::cuda
