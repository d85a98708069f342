#include "nn/cuda/cublas_backend_base.hpp"

#include <fmt/format.h>

#include <climits>

namespace ktune::nn::cuda {

void CublasBackendBase::prepare_fc(int layer, const FcDesc& d, const float* weight,
                                   const float* bias) {
  keep_operand(layer, 0, weight, size_t(d.out * d.in));
  keep(layer, 1, bias, size_t(d.out));
}

void CublasBackendBase::fc(int layer, const FcDesc& d, const float* x, float* y) {
  // Column-major: Y (out × batch) = Wᵀ · X, with W [out][in] = an (in × out) column-major matrix.
  gemm(true, d.out, d.batch, d.in, kept(layer, 0), d.in, x, d.in, y, d.out);
  epilogue(y, kept(layer, 1), d.batch, d.out, d.relu);
}

void CublasBackendBase::gemm(bool transa, int64_t m, int64_t n, int64_t k, const float* a,
                             int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  for (const int64_t v : {m, n, k, lda, ldb, ldc})
    if (v > INT_MAX)
      throw Error(fmt::format("{}: GEMM size {} exceeds cuBLAS's int range", name(), v));
  const float one = 1.0f, zero = 0.0f;
  const cublasOperation_t op_a = transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (precision() == Precision::fp32) {
    ktune::cuda::check_cublas(cublasSgemm(cublas(), op_a, CUBLAS_OP_N, int(m), int(n), int(k), &one,
                                          a, int(lda), b, int(ldb), &zero, c, int(ldc)),
                              "cublasSgemm");
    return;
  }
  const cudaDataType_t type = is_bf16() ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute = is_bf16() ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
  // One product of the strided batched call (the entry point ktune's lazy cuBLAS loader has).
  ktune::cuda::check_cublas(
      cublasGemmStridedBatchedEx_64(cublas(), op_a, CUBLAS_OP_N, m, n, k, &one, a, type, lda, 0, b,
                                    type, ldb, 0, &zero, c, type, ldc, 0, 1, compute,
                                    CUBLAS_GEMM_DEFAULT),
      fmt::format("cublasGemmEx({})", precision_name(precision())));
}

}  // namespace ktune::nn::cuda
