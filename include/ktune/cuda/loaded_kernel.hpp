#pragma once
// A CUBIN loaded through the CUDA runtime's library API (cudaLibraryLoadData, CUDA 12+), so no
// driver-API symbol is linked and the program starts on machines without libcuda.
#include <cuda_runtime_api.h>

#include <string>

#include "ktune/cuda/nvrtc_compile.hpp"

namespace ktune::cuda {

class LoadedKernel {
 public:
  // Loads image.cubin and looks up image.lowered_name; throws CudaError naming `what`.
  LoadedKernel(const CubinImage& image, std::string what);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // For cudaLaunchKernel / cudaFuncGetAttributes, which accept a cudaKernel_t cast this way.
  const void* function() const { return reinterpret_cast<const void*>(kernel_); }
  // Attributes on the current device (registers, max threads per block, local memory).
  const cudaFuncAttributes& attributes() const { return attributes_; }
  const std::string& what() const { return what_; }

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  cudaFuncAttributes attributes_{};
  std::string what_;
};

}  // namespace ktune::cuda
