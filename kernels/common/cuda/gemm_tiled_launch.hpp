#pragma once
// Host launcher of the tiled / split-K GEMM kernels (gemm_tiled.cuh). Header-only and free of
// ktune libraries (CUDA runtime API, <string>, gemm_config.hpp and gemm_launch_checks.hpp only),
// so the sweep backend (NVRTC-loaded kernels, LoadedKernel::function()) and the deployed library
// (nvcc-compiled kernels, (const void*)&ktune_gemm_tiled<...>) share it.
#include <cuda_runtime_api.h>

#include <optional>
#include <string>

#include "kernels/common/cuda/gemm_launch_checks.hpp"
#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cuda {

// NVRTC name expression of the split-K reduction kernel; with nvcc, take
// (const void*)&ktune_gemm_splitk_reduce<KTUNE_SPLITK_REDUCE_THREADS>. (A template, so that
// gemm_tiled.cuh may be included by several translation units of one program.)
inline constexpr const char* kSplitkReduceName = "ktune_gemm_splitk_reduce<256>";
// Its block size: KTUNE_SPLITK_REDUCE_THREADS in gemm_tiled.cuh.
inline constexpr int kSplitkReduceThreads = 256;

// "ktune_gemm_tiled<128,128,8,8,8,4,1,0,0>" (bm, bn, bk, tm, tn, vec, db, transa, transb).
inline std::string tiled_name_expression(const BlockedParams& p, bool transa, bool transb) {
  return "ktune_gemm_tiled<" + std::to_string(p.bm) + "," + std::to_string(p.bn) + "," +
         std::to_string(p.bk) + "," + std::to_string(p.tm) + "," + std::to_string(p.tn) + "," +
         std::to_string(p.vec) + "," + std::to_string(p.db) + "," + (transa ? "1" : "0") + "," +
         (transb ? "1" : "0") + ">";
}

// Floats of workspace a launch needs: batch * splits packed m x n partial sums (0 if splits == 1).
inline size_t tiled_workspace_floats(const BlockedParams& p, long long m, long long n,
                                     long long batch) {
  if (p.splits <= 1 || m <= 0 || n <= 0 || batch <= 0) return 0;
  return size_t(m) * size_t(n) * size_t(batch) * size_t(p.splits);
}

// K elements per split: ceil(k / splits) rounded up to a multiple of bk (at least bk), so every
// split but the last starts on a K tile and some trailing splits may be empty (they write 0).
inline long long tiled_k_chunk(const BlockedParams& p, long long k) {
  if (p.splits <= 1) return k;
  const long long per_split = (k + p.splits - 1) / p.splits;
  const long long chunk = (per_split + p.bk - 1) / p.bk * p.bk;
  return chunk < p.bk ? p.bk : chunk;
}

namespace tiled_detail {

inline std::string config_text(const BlockedParams& p) {
  if (p.wm > 0) {
    std::string text = p.splits > 1 ? "kind=warpsplit" : "kind=warp";
    const char* names[] = {"bm", "bn", "bk", "wm", "wn", "tm", "tn", "st", "gr", "splits"};
    const int values[] = {p.bm, p.bn, p.bk, p.wm, p.wn, p.tm, p.tn, p.st, p.gr, p.splits};
    for (int i = 0; i < 10; ++i)
      text += std::string(";") + names[i] + "=" + std::to_string(values[i]);
    return text;
  }
  return std::string(p.splits > 1 ? "kind=splitk" : "kind=tiled") + ";bm=" + std::to_string(p.bm) +
         ";bn=" + std::to_string(p.bn) + ";bk=" + std::to_string(p.bk) +
         ";tm=" + std::to_string(p.tm) + ";tn=" + std::to_string(p.tn) +
         ";vec=" + std::to_string(p.vec) + ";db=" + std::to_string(p.db) +
         (p.splits > 1 ? ";splits=" + std::to_string(p.splits) : std::string());
}

inline std::string kernel_name(const BlockedParams& p) {
  return p.wm > 0 ? "ktune_gemm_warp" : "ktune_gemm_tiled";
}

inline TiledLaunch refuse(const BlockedParams& p, const std::string& why) {
  return {cudaSuccess, true, kernel_name(p) + " " + config_text(p) + ": " + why};
}

// Classifies a launch result: resource / configuration errors are refusals (and are cleared),
// anything else is an error the caller reports.
inline TiledLaunch classify(cudaError_t error, const BlockedParams& p, const std::string& what) {
  return launch_checks::classify(
      error, what, [&](const std::string& why) { return refuse(p, why); },
      [&] { return kernel_name(p) + " " + config_text(p); });
}

inline bool supported_params(const BlockedParams& p) {
  auto one_of = [](int v, int a, int b, int c) { return v == a || v == b || v == c; };
  return p.wm == 0 && one_of(p.bm, 32, 64, 128) && one_of(p.bn, 32, 64, 128) &&
         one_of(p.bk, 8, 16, 32) && (p.tm == 4 || p.tm == 8) && (p.tn == 4 || p.tn == 8) &&
         (p.vec == 1 || p.vec == 4) && (p.db == 0 || p.db == 1) && p.splits >= 1;
}

// The checks every blocked launch (tiled, split-K, warp) makes before launching: a refusal, or
// an empty result when there is nothing to compute; nullopt: go ahead.
inline std::optional<TiledLaunch> check_launch(const void* kernel, int kernel_max_threads,
                                               const BlockedParams& p, bool transa, bool transb,
                                               long long m, long long n, long long k,
                                               long long batch, long long lda, long long ldb,
                                               long long ldc) {
  if (auto stop =
          launch_checks::check_problem([&](const std::string& why) { return refuse(p, why); },
                                       transa, transb, m, n, k, batch, lda, ldb, ldc)) {
    return stop;
  }
  const int threads = p.threads();
  if (threads > kernel_max_threads) {
    return refuse(p, std::to_string(threads) + " threads per block exceed this kernel's limit of " +
                         std::to_string(kernel_max_threads));
  }
  if (kernel == nullptr) return refuse(p, "no kernel");
  return std::nullopt;
}

}  // namespace tiled_detail

// The split-K reduction after a tiled or warp launch with p.splits > 1: C = alpha * (sum of the
// batch * splits partial slices in workspace) + beta * C.
inline TiledLaunch launch_splitk_reduce(const void* reduce_kernel, const BlockedParams& p,
                                        long long m, long long n, long long batch, float alpha,
                                        float beta, float* c, long long ldc, long long stride_c,
                                        const float* workspace, cudaStream_t stream) {
  long long mm = m, nn = n, ldc_ = ldc, sc = stride_c;
  int splits = p.splits;
  const float* partial_in = workspace;
  long long batch_ = batch;
  void* reduce_args[] = {&mm, &nn, &batch_, &splits, &partial_in, &alpha, &beta, &c, &ldc_, &sc};
  const long long elements = m * n * batch;
  const long long reduce_blocks_needed =
      (elements + kSplitkReduceThreads - 1) / kSplitkReduceThreads;
  const unsigned reduce_blocks =
      unsigned(reduce_blocks_needed < 65535 ? reduce_blocks_needed : 65535);
  cudaError_t error = cudaLaunchKernel(reduce_kernel, dim3(reduce_blocks),
                                       dim3(kSplitkReduceThreads), reduce_args, 0, stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  return tiled_detail::classify(error, p, std::string("launch of ") + kSplitkReduceName);
}

// One asynchronous launch on `stream` of C = alpha*op(A)*op(B) + beta*C (column-major, strided
// batches) with the kernel instantiated for (p, transa, transb), followed when p.splits > 1 by
// the reduction kernel (workspace: tiled_workspace_floats(p, m, n, batch) floats). `kernel` and
// `reduce_kernel` are what cudaLaunchKernel takes; kernel_max_threads is the kernel's
// cudaFuncAttributes::maxThreadsPerBlock. Nothing is launched when m, n or batch is 0; k == 0
// gives C = beta*C. Never synchronizes.
inline TiledLaunch launch_tiled(const void* kernel, int kernel_max_threads,
                                const void* reduce_kernel, const BlockedParams& p, bool transa,
                                bool transb, long long m, long long n, long long k, long long batch,
                                float alpha, const float* a, long long lda, long long stride_a,
                                const float* b, long long ldb, long long stride_b, float beta,
                                float* c, long long ldc, long long stride_c, float* workspace,
                                cudaStream_t stream) {
  using tiled_detail::refuse;
  if (!tiled_detail::supported_params(p) || p.bm % p.tm != 0 || p.bn % p.tn != 0) {
    return refuse(p, "parameters outside the kernel's template space");
  }
  if (auto stop = tiled_detail::check_launch(kernel, kernel_max_threads, p, transa, transb, m, n, k,
                                             batch, lda, ldb, ldc)) {
    return *stop;
  }
  const int threads = p.threads();
  const long long blocks_m = (m + p.bm - 1) / p.bm;
  const long long blocks_n = (n + p.bn - 1) / p.bn;
  const long long blocks_z = batch * p.splits;
  if (blocks_m > 2147483647LL || blocks_z > 65535) {
    return refuse(p, "grid " + std::to_string(blocks_m) + "x" + std::to_string(blocks_n) + "x" +
                         std::to_string(blocks_z) + " exceeds the CUDA grid limits (x < 2^31, " +
                         "batch * splits <= 65535)");
  }
  const bool split = p.splits > 1;
  if (split && (workspace == nullptr || reduce_kernel == nullptr)) {
    return refuse(p, "split-K needs a workspace of " +
                         std::to_string(tiled_workspace_floats(p, m, n, batch)) +
                         " floats and the reduction kernel");
  }

  // Argument storage must match the kernel's parameter types exactly.
  long long mm = m, nn = n, kk = k, lda_ = lda, ldb_ = ldb, ldc_ = ldc;
  long long sa = stride_a, sb = stride_b, sc = stride_c;
  int splits = p.splits;
  long long k_chunk = tiled_k_chunk(p, k);
  float* partial = split ? workspace : nullptr;
  void* args[] = {&mm, &nn,   &kk, &alpha, &a,  &lda_,   &sa,      &b,      &ldb_,
                  &sb, &beta, &c,  &ldc_,  &sc, &splits, &k_chunk, &partial};
  const dim3 grid(unsigned(blocks_m), unsigned(blocks_n < 65535 ? blocks_n : 65535),
                  unsigned(blocks_z));
  cudaError_t error = cudaLaunchKernel(kernel, grid, dim3(unsigned(threads)), args, 0, stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  TiledLaunch result = tiled_detail::classify(
      error, p,
      "launch of grid " + std::to_string(grid.x) + "x" + std::to_string(grid.y) + "x" +
          std::to_string(grid.z) + ", block " + std::to_string(threads));
  if (!split || result.refused || result.error != cudaSuccess) return result;

  return launch_splitk_reduce(reduce_kernel, p, m, n, batch, alpha, beta, c, ldc, stride_c,
                              workspace, stream);
}

}  // namespace ktune::kernels::gemm::cuda
