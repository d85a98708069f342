// register_cuda_backends (include/ktune/cuda.hpp): one line per family with a CUDA backend.
#include <mutex>

#include "kernels/conv2d/cuda/conv2d_cuda_backend.hpp"
#include "kernels/gemm/cuda/gemm_cuda_backend.hpp"
#include "kernels/stencil/cuda/stencil_cuda_backend.hpp"
#include "ktune/cuda.hpp"

namespace ktune {

void register_cuda_backends() {
  static std::once_flag once;  // the CLI and tests may both call it
  std::call_once(once, [] {
    kernels::gemm::cuda::register_backend();
    stencil::cuda::register_backend();
    kernels::conv2d::cuda::register_backend();
  });
}

}  // namespace ktune
