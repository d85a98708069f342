#include "kernels/gemm/cuda/gemm_cublaslt.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "ktune/cuda/cuda_error.hpp"

namespace ktune::kernels::gemm::cuda {
namespace {

using ktune::cuda::check_cublas;

cudaDataType_t input_type(Precision p) {
  return p == Precision::bf16 ? CUDA_R_16BF : p == Precision::fp16 ? CUDA_R_16F : CUDA_R_32F;
}

// A column-major rows x cols matrix of `type` with leading dimension ld, batch strided.
cublasLtMatrixLayout_t layout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld,
                              int64_t batch, int64_t stride) {
  cublasLtMatrixLayout_t l = nullptr;
  check_cublas(cublasLtMatrixLayoutCreate(&l, type, uint64_t(rows), uint64_t(cols), ld),
               "cublasLtMatrixLayoutCreate");
  const int32_t count = int32_t(batch);
  check_cublas(
      cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
      "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
  check_cublas(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                &stride, sizeof stride),
               "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  return l;
}

}  // namespace

CublasLtHandle::CublasLtHandle() { check_cublas(cublasLtCreate(&handle_), "cublasLtCreate"); }

CublasLtHandle::~CublasLtHandle() {
  if (handle_ && !ktune::cuda::context_corrupted()) cublasLtDestroy(handle_);
}

CublasLtGemm::CublasLtGemm(cublasLtHandle_t handle, const Shape& s, size_t workspace_bytes,
                           int max_algos)
    : handle_(handle), workspace_bytes_(workspace_bytes) {
  try {
    const cublasComputeType_t compute =
        s.precision == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    check_cublas(cublasLtMatmulDescCreate(&op_, compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = s.transa ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = s.transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
                 "cublasLtMatmulDescSetAttribute(TRANSA)");
    check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
                 "cublasLtMatmulDescSetAttribute(TRANSB)");
    const cudaDataType_t in = input_type(s.precision);
    a_ = layout(in, s.transa ? s.k : s.m, s.transa ? s.m : s.k, s.lda, s.batch, s.stride_a());
    b_ = layout(in, s.transb ? s.n : s.k, s.transb ? s.k : s.n, s.ldb, s.batch, s.stride_b());
    c_ = layout(CUDA_R_32F, s.m, s.n, s.ldc, s.batch, s.stride_c());
    cublasLtMatmulPreference_t pref = nullptr;
    check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const uint64_t bytes = workspace_bytes;
    cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes);
    results_.resize(size_t(max_algos));
    int returned = 0;
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulAlgoGetHeuristic(handle_, op_, a_, b_, c_, c_, pref, max_algos,
                                              results_.data(), &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    // NOT_SUPPORTED: no algorithm for this problem (the vendor row is refused).
    if (status == CUBLAS_STATUS_NOT_SUPPORTED)
      returned = 0;
    else
      check_cublas(status, "cublasLtMatmulAlgoGetHeuristic");
    results_.resize(size_t(returned));
  } catch (...) {
    release();
    throw;
  }
}

CublasLtGemm::~CublasLtGemm() { release(); }

void CublasLtGemm::release() {
  if (ktune::cuda::context_corrupted()) return;
  if (c_) cublasLtMatrixLayoutDestroy(c_);
  if (b_) cublasLtMatrixLayoutDestroy(b_);
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  if (op_) cublasLtMatmulDescDestroy(op_);
  c_ = b_ = a_ = nullptr;
  op_ = nullptr;
}

std::string CublasLtGemm::describe(int i) const {
  const cublasLtMatmulHeuristicResult_t& r = results_.at(size_t(i));
  auto get = [&](cublasLtMatmulAlgoConfigAttributes_t what) {
    int32_t v = -1;
    size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&r.algo, what, &v, sizeof v, &written);
    return v;
  };
  return fmt::format("heuristic #{}: algo {}, tile {}, stages {}, split-K {}, waves {:.2f}", i,
                     get(CUBLASLT_ALGO_CONFIG_ID), get(CUBLASLT_ALGO_CONFIG_TILE_ID),
                     get(CUBLASLT_ALGO_CONFIG_STAGES_ID), get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                     r.wavesCount);
}

cublasStatus_t CublasLtGemm::run(int i, const void* a, const void* b, float* c, void* workspace,
                                 cudaStream_t stream) const {
  const float one = 1.0f, zero = 0.0f;
  return cublasLtMatmul(handle_, op_, &one, a, a_, b, b_, &zero, c, c_, c, c_,
                        &results_.at(size_t(i)).algo, workspace, workspace_bytes_, stream);
}

}  // namespace ktune::kernels::gemm::cuda
