#include "kernels/gemm/cuda/gemm_cublaslt.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "ktune/cuda/cuda_error.hpp"

namespace ktune::kernels::gemm::cuda {
using ktune::cuda::check_cublas;

void destroy_cublaslt(cublasLtHandle_t handle) {
  if (!ktune::cuda::context_corrupted()) cublasLtDestroy(handle);
}

CublasLtHandle::CublasLtHandle() {
  cublasLtHandle_t handle = nullptr;
  check_cublas(cublasLtCreate(&handle), "cublasLtCreate");
  adopt(handle);
}

CublasLtGemm::CublasLtGemm(cublasLtHandle_t handle, const Shape& s, size_t workspace_bytes,
                           int max_algos, bool c16)
    : handle_(handle), workspace_bytes_(workspace_bytes) {
  try {
    const LtProblem problem{s.precision,  s.transa, s.transb,     s.m,          s.n,
                            s.k,          s.batch,  s.lda,        s.stride_a(), s.ldb,
                            s.stride_b(), s.ldc,    s.stride_c(), c16};
    check_cublas(descriptors_.make(problem),
                 "cuBLASLt descriptors (cublasLtMatmulDescCreate, "
                 "cublasLtMatrixLayoutCreate)");
    cublasLtMatmulPreference_t pref = nullptr;
    check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const uint64_t bytes = workspace_bytes;
    cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes);
    results_.resize(size_t(max_algos));
    int returned = 0;
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulAlgoGetHeuristic(handle_, descriptors_.op, descriptors_.a,
                                              descriptors_.b, descriptors_.c, descriptors_.c, pref,
                                              max_algos, results_.data(), &returned);
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
  if (!ktune::cuda::context_corrupted()) descriptors_.release();
}

namespace {
// One config attribute of an algorithm, read with its documented size (cublasLt.h: int32 or
// uint32, uint16 for the inner and cluster shapes; cuBLASLt refuses another buffer size), -1
// when cuBLASLt does not answer.
int64_t algo_attribute(const cublasLtMatmulAlgo_t& algo,
                       cublasLtMatmulAlgoConfigAttributes_t what) {
  const bool narrow =
      what == CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID || what == CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID;
  int32_t wide = -1;
  uint16_t small = 0;
  size_t written = 0;
  const cublasStatus_t status =
      narrow ? cublasLtMatmulAlgoConfigGetAttribute(&algo, what, &small, sizeof small, &written)
             : cublasLtMatmulAlgoConfigGetAttribute(&algo, what, &wide, sizeof wide, &written);
  if (status != CUBLAS_STATUS_SUCCESS) return -1;
  return narrow ? int64_t(small) : int64_t(wide);
}
}  // namespace

std::string lt_algo_config(const cublasLtMatmulHeuristicResult_t& r) {
  auto get = [&](cublasLtMatmulAlgoConfigAttributes_t what) {
    return algo_attribute(r.algo, what);
  };
  return fmt::format(
      "algo {}, tile {}, stages {}, split-K {}, reduction {}, swizzle {}, custom {}, inner {}, "
      "cluster {}, workspace {} B",
      get(CUBLASLT_ALGO_CONFIG_ID), get(CUBLASLT_ALGO_CONFIG_TILE_ID),
      get(CUBLASLT_ALGO_CONFIG_STAGES_ID), get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
      get(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME), get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING),
      get(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION), get(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID),
      get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID), r.workspaceSize);
}

std::string CublasLtGemm::describe(int i) const {
  const cublasLtMatmulHeuristicResult_t& r = results_.at(size_t(i));
  auto get = [&](cublasLtMatmulAlgoConfigAttributes_t what) {
    return algo_attribute(r.algo, what);
  };
  return fmt::format("heuristic #{}: algo {}, tile {}, stages {}, split-K {}, waves {:.2f}", i,
                     get(CUBLASLT_ALGO_CONFIG_ID), get(CUBLASLT_ALGO_CONFIG_TILE_ID),
                     get(CUBLASLT_ALGO_CONFIG_STAGES_ID), get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                     r.wavesCount);
}

cublasStatus_t CublasLtGemm::run(int i, const void* a, const void* b, void* c, void* workspace,
                                 cudaStream_t stream) const {
  const float one = 1.0f, zero = 0.0f;
  const LtDescriptors& d = descriptors_;
  return cublasLtMatmul(handle_, d.op, &one, a, d.a, b, d.b, &zero, c, d.c, c, d.c,
                        &results_.at(size_t(i)).algo, workspace, workspace_bytes_, stream);
}

}  // namespace ktune::kernels::gemm::cuda
