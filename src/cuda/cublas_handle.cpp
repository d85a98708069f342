#include "ktune/cuda/cublas_handle.hpp"

#include "ktune/cuda/cuda_error.hpp"

namespace ktune::cuda {

void destroy_cublas(cublasHandle_t handle) {
  if (!ktune::cuda::context_corrupted()) cublasDestroy(handle);
}

CublasHandle::CublasHandle(cudaStream_t stream) {
  cublasHandle_t handle = nullptr;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  adopt(handle);
  check_cublas(cublasSetStream(handle, stream), "cublasSetStream");
  // FP32 baseline: DEFAULT math never lowers precision below the requested FP32 (TF32 needs
  // CUBLAS_TF32_TENSOR_OP_MATH, BF16x9 emulation CUBLAS_FP32_EMULATED_BF16X9_MATH). The
  // float64 reference switches to PEDANTIC for its one call.
  check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode(DEFAULT)");
}

}  // namespace ktune::cuda
