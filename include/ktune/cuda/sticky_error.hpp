#pragma once
// Which CUDA errors leave the context corrupted, so that every later CUDA call of the process
// fails too ("sticky"): header-only on the runtime API, so that the deployed libraries (which link
// no ktune library: ktune/cuda/remember_cuda.hpp) classify as ktune_cuda's checked calls do
// (cuda_error.hpp's is_sticky). C++17.
#include <cuda_runtime_api.h>

namespace ktune::cuda {

inline bool is_sticky_error(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

}  // namespace ktune::cuda
