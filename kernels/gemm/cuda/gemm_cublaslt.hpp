#pragma once
// cuBLASLt as a GEMM vendor baseline (internal to the CUDA backend): one problem's matmul
// descriptors in its precision (the compute type of gemm_cuda_session's cuBLAS row) and the
// algorithms the heuristic proposes for them, best guess first.
#include <cublasLt.h>

#include <string>
#include <vector>

#include "kernels/gemm/cuda/cublas_precision.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/cuda/owned_handle.hpp"

namespace ktune::kernels::gemm::cuda {

// Destroys a cuBLASLt handle unless the CUDA context is already unusable.
void destroy_cublaslt(cublasLtHandle_t handle);

// Owns a cuBLASLt handle.
class CublasLtHandle : public ktune::cuda::OwnedHandle<cublasLtHandle_t, &destroy_cublaslt> {
 public:
  CublasLtHandle();
};

// Every config attribute of a heuristic's answer and its workspace: "algo 66, tile 13, stages
// 35, split-K 2, reduction 1, swizzle 0, custom 0, inner 0, cluster 0, workspace 1048576 B" (the
// enum ids of cublasLt.h), to compare two plans of one problem.
std::string lt_algo_config(const cublasLtMatmulHeuristicResult_t& r);

class CublasLtGemm {
 public:
  // Asks the heuristic for up to max_algos algorithms within workspace_bytes; throws CudaError
  // when the descriptors cannot be made. algos() may be 0 (no algorithm for the problem). c16:
  // C (and D) in the 16-bit input type instead of FP32 (tuned_gemm_bench's 16-bit output).
  CublasLtGemm(cublasLtHandle_t handle, const Shape& shape, size_t workspace_bytes, int max_algos,
               bool c16 = false);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  int algos() const { return int(results_.size()); }
  // "heuristic #i: algo 21, tile 18, stages 9, split-K 1, waves 0.98" (cublasLt's enum ids).
  std::string describe(int i) const;
  const cublasLtMatmulHeuristicResult_t& result(int i) const { return results_.at(size_t(i)); }
  // C = op(A) op(B) with algorithm i, asynchronous on stream (C floats, or 16-bit with c16).
  cublasStatus_t run(int i, const void* a, const void* b, void* c, void* workspace,
                     cudaStream_t stream) const;

 private:
  void release();  // the descriptors (constructor failure and destructor)

  cublasLtHandle_t handle_;
  size_t workspace_bytes_;
  LtDescriptors descriptors_;
  std::vector<cublasLtMatmulHeuristicResult_t> results_;
};

}  // namespace ktune::kernels::gemm::cuda
