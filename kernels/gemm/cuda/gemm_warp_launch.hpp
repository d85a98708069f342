#pragma once
// Host launcher of the warp-tiled GEMM kernel (gemm_warp.cuh), shared like gemm_tiled_launch.hpp
// by the sweep (NVRTC-loaded kernels) and the deployed library (nvcc-compiled kernels). The
// kernel's arguments are those of ktune_gemm_tiled, so split-K reuses the tiled reduction kernel.
#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cuda {

// "ktune_gemm_warp<128,128,8,32,64,8,8,3,8,0,0>" (bm, bn, bk, wm, wn, tm, tn, st, gr, ta, tb).
inline std::string warp_name_expression(const BlockedParams& p, bool transa, bool transb) {
  std::string text = "ktune_gemm_warp<";
  for (int v : {p.bm, p.bn, p.bk, p.wm, p.wn, p.tm, p.tn, p.st, p.gr})
    text += std::to_string(v) + ",";
  return text + (transa ? "1" : "0") + "," + (transb ? "1" : "0") + ">";
}

// The NVRTC name expression of a tiled, split-K or warp instantiation.
inline std::string blocked_name_expression(const BlockedParams& p, bool transa, bool transb) {
  return p.wm > 0 ? warp_name_expression(p, transa, transb)
                  : tiled_name_expression(p, transa, transb);
}

// Dynamic shared memory of an instantiation: ktune_warp_smem_bytes<...>() of gemm_warp.cuh (both
// operands K-major, whatever the transposes).
inline constexpr long long warp_smem_bytes(const BlockedParams& p) {
  return 4LL * p.st * p.bk * (p.bm + 4 + p.bn + 4);
}

// Parameters the kernel template accepts (the constraint of the space is stricter).
inline constexpr bool warp_supported_params(const BlockedParams& p) {
  if (p.wm <= 0 || p.wn <= 0 || p.tm <= 0 || p.tn <= 0 || p.bk <= 0 || p.st < 2 || p.gr < 1)
    return false;
  if (p.bm % p.wm != 0 || p.bn % p.wn != 0 || p.wm % p.tm != 0 || p.wn % p.tn != 0) return false;
  return (p.wm / p.tm) * (p.wn / p.tn) == 32 && p.tm % 4 == 0 && p.tn % 4 == 0 && p.bk % 4 == 0 &&
         p.splits >= 1;
}

// One asynchronous launch of C = alpha*op(A)*op(B) + beta*C with the warp kernel of (p, transa,
// transb), followed when p.splits > 1 by the reduction kernel (workspace:
// tiled_workspace_floats(p, m, n, batch) floats). kernel_max_threads and max_shared_bytes are the
// kernel's and the device's limits (cudaDevAttrMaxSharedMemoryPerBlockOptin). Never synchronizes.
inline TiledLaunch launch_warp(const void* kernel, int kernel_max_threads, int max_shared_bytes,
                               const void* reduce_kernel, const BlockedParams& p, bool transa,
                               bool transb, long long m, long long n, long long k, long long batch,
                               float alpha, const float* a, long long lda, long long stride_a,
                               const float* b, long long ldb, long long stride_b, float beta,
                               float* c, long long ldc, long long stride_c, float* workspace,
                               cudaStream_t stream) {
  using tiled_detail::refuse;
  if (!warp_supported_params(p)) return refuse(p, "parameters outside the kernel's template space");
  if (auto stop = tiled_detail::check_launch(kernel, kernel_max_threads, p, transa, transb, m, n, k,
                                             batch, lda, ldb, ldc)) {
    return *stop;
  }
  const int threads = p.threads();
  const long long shared = warp_smem_bytes(p);
  if (shared > max_shared_bytes) {
    return refuse(p, std::to_string(shared) + " bytes of shared memory exceed the device's " +
                         std::to_string(max_shared_bytes));
  }
  const long long tiles = ((m + p.bm - 1) / p.bm) * ((n + p.bn - 1) / p.bn);
  const long long blocks_z = batch * p.splits;
  if (tiles > 2147483647LL || blocks_z > 65535) {
    return refuse(p, std::to_string(tiles) + " tiles x " + std::to_string(blocks_z) +
                         " batch splits exceed the CUDA grid limits");
  }
  const bool split = p.splits > 1;
  if (split && (workspace == nullptr || reduce_kernel == nullptr)) {
    return refuse(p, "split-K needs a workspace and the reduction kernel");
  }
  if (shared > 48 * 1024) {  // above the default, each kernel opts in (idempotent, cheap)
    const cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
    if (error != cudaSuccess) return tiled_detail::classify(error, p, "shared memory opt-in");
  }

  long long mm = m, nn = n, kk = k, lda_ = lda, ldb_ = ldb, ldc_ = ldc;
  long long sa = stride_a, sb = stride_b, sc = stride_c;
  int splits = p.splits;
  long long k_chunk = tiled_k_chunk(p, k);
  float* partial = split ? workspace : nullptr;
  void* args[] = {&mm, &nn,   &kk, &alpha, &a,  &lda_,   &sa,      &b,      &ldb_,
                  &sb, &beta, &c,  &ldc_,  &sc, &splits, &k_chunk, &partial};
  const dim3 grid(unsigned(tiles), 1, unsigned(blocks_z));
  cudaError_t error =
      cudaLaunchKernel(kernel, grid, dim3(unsigned(threads)), args, size_t(shared), stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  TiledLaunch result = tiled_detail::classify(
      error, p,
      "launch of grid " + std::to_string(grid.x) + "x1x" + std::to_string(grid.z) + ", block " +
          std::to_string(threads) + ", " + std::to_string(shared) + " B shared");
  if (!split || result.refused || result.error != cudaSuccess) return result;
  return launch_splitk_reduce(reduce_kernel, p, m, n, batch, alpha, beta, c, ldc, stride_c,
                              workspace, stream);
}

}  // namespace ktune::kernels::gemm::cuda
