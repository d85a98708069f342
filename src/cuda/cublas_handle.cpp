#include "ktune/cuda/cublas_handle.hpp"

#include "ktune/cuda/cuda_error.hpp"

namespace ktune::cuda {

CublasHandle::CublasHandle(cudaStream_t stream) {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  try {
    check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
    // FP32 baseline: DEFAULT math never lowers precision below the requested FP32 (TF32 needs
    // CUBLAS_TF32_TENSOR_OP_MATH, BF16x9 emulation CUBLAS_FP32_EMULATED_BF16X9_MATH). The
    // float64 reference switches to PEDANTIC for its one call.
    check_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode(DEFAULT)");
  } catch (...) {
    cublasDestroy(handle_);
    throw;
  }
}

CublasHandle::~CublasHandle() {
  if (handle_ && !ktune::cuda::context_corrupted()) cublasDestroy(handle_);
}

}  // namespace ktune::cuda
