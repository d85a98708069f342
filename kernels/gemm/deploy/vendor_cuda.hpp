#pragma once
// The vendor call of a tuned CUDA GEMM library whose selector ships "vendor=cublas": cuBLAS's
// FP32 strided-batched SGEMM on the caller's stream, as the sweep measured it (deploy/vendors.cmake
// links cuBLAS). Each thread keeps one handle per device, so concurrent callers never share a
// handle's stream.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <map>
#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_vendor_config.hpp"

namespace ktune::kernels::gemm::deploy {

inline void check_cublas_call(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("ktune::gemm: ") + what + " failed (cuBLAS status " +
                             std::to_string(int(status)) + ")");
}

inline cublasHandle_t cublas_handle_for_this_thread() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess)
    throw std::runtime_error("ktune::gemm: cudaGetDevice failed");
  struct Handles {
    std::map<int, cublasHandle_t> by_device;
    ~Handles() {
      for (auto& [d, h] : by_device) cublasDestroy(h);
    }
  };
  thread_local Handles handles;
  cublasHandle_t& h = handles.by_device[device];
  if (!h) check_cublas_call(cublasCreate(&h), "cublasCreate");
  return h;
}

// C = alpha op(A) op(B) + beta C over the strided batch, column-major, device pointers.
template <VendorCall V>
void run_vendor_cuda(bool transa, bool transb, long long m, long long n, long long k,
                     long long batch, float alpha, const float* a, long long lda,
                     long long stride_a, const float* b, long long ldb, long long stride_b,
                     float beta, float* c, long long ldc, long long stride_c, cudaStream_t stream) {
  static_assert(V == VendorCall::cublas,
                "the FP32 tuned CUDA library ships vendor=cublas only (cuBLASLt rows are of the "
                "tensor-core precisions)");
  const cublasHandle_t h = cublas_handle_for_this_thread();
  check_cublas_call(cublasSetStream(h, stream), "cublasSetStream");
  check_cublas_call(
      cublasSgemmStridedBatched_64(h, transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   transb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, a, lda,
                                   stride_a, b, ldb, stride_b, &beta, c, ldc, stride_c, batch),
      "cublasSgemmStridedBatched_64");
}

}  // namespace ktune::kernels::gemm::deploy
