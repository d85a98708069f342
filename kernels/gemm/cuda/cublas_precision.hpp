#pragma once
// The cuBLAS / cuBLASLt side of a GEMM precision, shared by the sweep's vendor baselines
// (gemm_cuda_session.cpp, gemm_cublaslt.cpp) and the deployed library's vendor calls
// (deploy/vendor_cuda.hpp), so a shipped "vendor=cublas" / "vendor=cublaslt" is the call the
// sweep timed: TF32 tensor-core math on FP32 inputs (CUBLAS_COMPUTE_32F_FAST_TF32), or BF16 /
// FP16 inputs with FP32 compute; C is FP32, or (LtProblem::c16, the deployed gemm_ex's 16-bit
// output) C and D in the inputs' 16-bit type. Header-only: the deployed library compiles it with
// nvcc and links no ktune code.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>

#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cuda {

constexpr cudaDataType_t cublas_input_type(Precision p) {
  return p == Precision::bf16 ? CUDA_R_16BF : p == Precision::fp16 ? CUDA_R_16F : CUDA_R_32F;
}

constexpr cublasComputeType_t cublas_compute_type(Precision p) {
  return p == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// A strided-batched problem as cuBLASLt's descriptors of it (column-major, C FP32 unless c16:
// then C holds the 16-bit input type).
struct LtProblem {
  Precision precision;
  bool transa, transb;
  int64_t m, n, k, batch;
  int64_t lda, stride_a, ldb, stride_b, ldc, stride_c;
  bool c16 = false;
};

// C's (and D's) type of a problem.
constexpr cudaDataType_t cublas_output_type(const LtProblem& p) {
  return p.c16 ? cublas_input_type(p.precision) : CUDA_R_32F;
}

// The matmul descriptor and the A, B, C layouts of one problem; release() frees what was made.
struct LtDescriptors {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;

  // CUBLAS_STATUS_SUCCESS, or the first failing call's status (the caller releases).
  cublasStatus_t make(const LtProblem& p) {
    cublasStatus_t s = cublasLtMatmulDescCreate(&op, cublas_compute_type(p.precision), CUDA_R_32F);
    const cublasOperation_t ta = p.transa ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = p.transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    const cudaDataType_t in = cublas_input_type(p.precision);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = layout(a, in, p.transa ? p.k : p.m, p.transa ? p.m : p.k, p.lda, p.batch, p.stride_a);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = layout(b, in, p.transb ? p.n : p.k, p.transb ? p.k : p.n, p.ldb, p.batch, p.stride_b);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = layout(c, cublas_output_type(p), p.m, p.n, p.ldc, p.batch, p.stride_c);
    return s;
  }

  void release() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
    c = b = a = nullptr;
    op = nullptr;
  }

 private:
  // A rows x cols matrix of `type` with leading dimension ld, batch strided.
  static cublasStatus_t layout(cublasLtMatrixLayout_t& l, cudaDataType_t type, int64_t rows,
                               int64_t cols, int64_t ld, int64_t batch, int64_t stride) {
    cublasStatus_t s = cublasLtMatrixLayoutCreate(&l, type, uint64_t(rows), uint64_t(cols), ld);
    const int32_t count = int32_t(batch);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                           sizeof count);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                           sizeof stride);
    return s;
  }
};

}  // namespace ktune::kernels::gemm::cuda
