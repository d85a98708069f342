#pragma once
// A cuBLAS handle bound to a stream, in FP32 default math (no TF32): the vendor baseline of the
// sweeps and the layer calls of the network engine's cuBLAS-based backends.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace ktune::cuda {

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace ktune::cuda
