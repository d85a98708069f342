#pragma once
// A cuBLAS handle bound to a stream, in FP32 default math (no TF32): the vendor baseline of the
// sweeps and the layer calls of the network engine's cuBLAS-based backends.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "ktune/cuda/owned_handle.hpp"

namespace ktune::cuda {

// cublasDestroy, skipped once the context is corrupted (the call would fail or hang).
void destroy_cublas(cublasHandle_t handle);

class CublasHandle : public OwnedHandle<cublasHandle_t, &destroy_cublas> {
 public:
  explicit CublasHandle(cudaStream_t stream);
};

}  // namespace ktune::cuda
