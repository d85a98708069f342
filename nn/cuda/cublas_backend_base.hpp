#pragma once
// A CUDA backend with a cuBLAS handle on its stream and fully connected layers by cublasSgemm
// (FP32, CUBLAS_DEFAULT_MATH: no TF32) + the bias/ReLU kernel; the `cudnn` and `cublas`
// backends derive from it and add their convolutions.
#include "ktune/cuda/cublas_handle.hpp"
#include "nn/cuda/cuda_backend.hpp"

namespace ktune::nn::cuda {

class CublasBackendBase : public CudaBackend {
 public:
  CublasBackendBase() : cublas_(stream()) {}
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override;
  void fc(int layer, const FcDesc& d, const float* x, float* y) override;

 protected:
  cublasHandle_t cublas() const { return cublas_.get(); }
  // C (m × n, ldc) = op(A)·op(B), column-major, FP32 (the layer GEMMs of both backends).
  void sgemm(bool transa, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
             const float* b, int64_t ldb, float* c, int64_t ldc);

 private:
  ktune::cuda::CublasHandle cublas_;
};

}  // namespace ktune::nn::cuda
