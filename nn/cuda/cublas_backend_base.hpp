#pragma once
// A CUDA backend with a cuBLAS handle on its stream and fully connected layers by cuBLAS + the
// bias/ReLU kernel, in the backend's precision: fp32 cublasSgemm (CUBLAS_DEFAULT_MATH: no
// TF32), tf32 cublasGemmEx (the same) with CUBLAS_COMPUTE_32F_FAST_TF32, bf16 cublasGemmEx (its
// strided batched _64 form) on bf16 A, B and C with CUBLAS_COMPUTE_32F (FP32 accumulation, C
// rounded once to bf16). The `cudnn` and `cublas` backends derive from it and add their
// convolutions.
#include "ktune/cuda/cublas_handle.hpp"
#include "nn/cuda/cuda_backend.hpp"

namespace ktune::nn::cuda {

class CublasBackendBase : public CudaBackend {
 public:
  explicit CublasBackendBase(Precision precision = Precision::fp32)
      : CudaBackend(precision), cublas_(stream()) {}
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override;
  void fc(int layer, const FcDesc& d, const float* x, float* y) override;

 protected:
  cublasHandle_t cublas() const { return cublas_.get(); }
  // C (m × n, ldc) = op(A)·op(B), column-major, in the backend's precision (the layer GEMMs of
  // both backends); A, B and C hold the activations' type.
  void gemm(bool transa, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
            const float* b, int64_t ldb, float* c, int64_t ldc);

 private:
  ktune::cuda::CublasHandle cublas_;
};

}  // namespace ktune::nn::cuda
