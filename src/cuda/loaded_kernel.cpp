#include "ktune/cuda/loaded_kernel.hpp"

#include "ktune/cuda/cuda_error.hpp"

namespace ktune::cuda {

LoadedKernel::LoadedKernel(const CubinImage& image, std::string what) : what_(std::move(what)) {
  ensure_context_usable();
  check(
      cudaLibraryLoadData(&library_, image.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
      "cudaLibraryLoadData(" + what_ + ")");
  try {
    check(cudaLibraryGetKernel(&kernel_, library_, image.lowered_name.c_str()),
          "cudaLibraryGetKernel(" + what_ + ", " + image.lowered_name + ")");
    // Also loads the kernel into the current context (lazy loading would otherwise do it in
    // the first launch, inside a timed interval).
    check(cudaFuncGetAttributes(&attributes_, function()), "cudaFuncGetAttributes(" + what_ + ")");
  } catch (...) {
    cudaLibraryUnload(library_);
    throw;
  }
}

LoadedKernel::~LoadedKernel() {
  if (library_ && !context_corrupted()) cudaLibraryUnload(library_);
}

}  // namespace ktune::cuda
