#pragma once
// Host launcher of the tensor-core GEMM kernel (gemm_mma.cuh), shared like gemm_warp_launch.hpp by
// the sweep (NVRTC-loaded kernels) and the deployed library (nvcc-compiled kernels).
#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/cuda/gemm_launch_checks.hpp"
#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cuda {

// The kernel's PREC template argument: 1 tf32, 2 bf16, 3 fp16 (Precision's values).
inline constexpr int mma_prec(Precision p) { return int(p); }

// "ktune_gemm_mma<128,128,32,64,64,4,2,0,0>" (bm, bn, bk, wm, wn, st, prec, ta, tb), with ",1"
// after tb for the instantiation that stores C in the input's 16-bit type (c16).
inline std::string mma_name_expression(const BlockedParams& p, Precision precision, bool transa,
                                       bool transb, bool c16 = false) {
  std::string text = "ktune_gemm_mma<";
  for (int v : {p.bm, p.bn, p.bk, p.wm, p.wn, p.st, mma_prec(precision)})
    text += std::to_string(v) + ",";
  return text + (transa ? "1" : "0") + "," + (transb ? "1" : "0") + (c16 ? ",1>" : ">");
}

// Dynamic shared memory of an instantiation: ktune_mma_smem_bytes<...>() of gemm_mma.cuh. Lines of
// the K-contiguous tiles ([rows][bk]) are padded by 16 bytes, those of the others ([bk][rows]) by
// 16 bytes (32 for 4-byte elements).
inline constexpr long long mma_smem_bytes(const BlockedParams& p, Precision precision, bool transa,
                                          bool transb) {
  const long long e = input_bytes(precision);
  auto tile = [&](long long rows, bool k_contig) {
    return k_contig ? rows * (p.bk * e + 16) : p.bk * (rows * e + (e == 4 ? 32 : 16));
  };
  return p.st * (tile(p.bm, transa) + tile(p.bn, !transb));
}

// Parameters the kernel template accepts (the space's constraint is stricter).
inline constexpr bool mma_supported_params(const BlockedParams& p) {
  if (p.wm <= 0 || p.wn <= 0 || p.bk <= 0 || p.st < 2 || p.tm != 0 || p.tn != 0) return false;
  if (p.bm % p.wm != 0 || p.bn % p.wn != 0 || p.wm % 16 != 0 || p.wn % 16 != 0) return false;
  // Whole 16-byte chunks of 2- and 4-byte elements along every line; whole mma K steps.
  return p.bk % 16 == 0 && p.bm % 8 == 0 && p.bn % 8 == 0 && p.splits >= 1;
}

// The largest split-K workspace an mma launch takes (1 GiB of FP32 partial sums): beyond it the
// m x n tiles alone fill the GPU many times over and slicing K only adds traffic, so the launch
// is refused rather than allocating gigabytes (the large llm shapes at 64+ slices).
inline constexpr long long kMmaMaxWorkspaceFloats = 1LL << 28;

namespace mma_detail {
inline TiledLaunch refuse(const BlockedParams& p, Precision precision, const std::string& why) {
  const std::string splits = p.splits > 1 ? " splits=" + std::to_string(p.splits) : "";
  return {cudaSuccess, true,
          mma_name_expression(p, precision, false, false) + splits + " (" +
              precision_name(precision) + "): " + why};
}
}  // namespace mma_detail

// The name expression of the split-K reduction that writes C in precision's 16-bit type
// (gemm_out16.cuh, compiled with gemm_mma.cuh): "ktune_gemm_splitk_reduce16<2,256>".
inline std::string splitk_reduce16_name_expression(Precision precision) {
  return "ktune_gemm_splitk_reduce16<" + std::to_string(mma_prec(precision)) + "," +
         std::to_string(kSplitkReduceThreads) + ">";
}

// The split-K reduction into 16-bit C (reduce16_kernel: ktune_gemm_splitk_reduce16 of the
// precision), launched as launch_splitk_reduce launches the FP32 one.
inline TiledLaunch launch_splitk_reduce16(const void* reduce16_kernel, const BlockedParams& p,
                                          long long m, long long n, long long batch, float alpha,
                                          float beta, void* c, long long ldc, long long stride_c,
                                          const float* workspace, cudaStream_t stream) {
  long long mm = m, nn = n, ldc_ = ldc, sc = stride_c, batch_ = batch;
  int splits = p.splits;
  const float* partial_in = workspace;
  void* args[] = {&mm, &nn, &batch_, &splits, &partial_in, &alpha, &beta, &c, &ldc_, &sc};
  const long long blocks = (m * n * batch + kSplitkReduceThreads - 1) / kSplitkReduceThreads;
  cudaError_t error =
      cudaLaunchKernel(reduce16_kernel, dim3(unsigned(blocks < 65535 ? blocks : 65535)),
                       dim3(kSplitkReduceThreads), args, 0, stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  return tiled_detail::classify(error, p, "launch of ktune_gemm_splitk_reduce16");
}

// One asynchronous launch of C = alpha*op(A)*op(B) + beta*C with the mma kernel of (p, precision,
// transa, transb), followed when p.splits > 1 (kind mmasplit) by the split-K reduction kernel of
// gemm_tiled.cuh (workspace: tiled_workspace_floats(p, m, n, batch) floats); a and b hold
// input_bytes(precision)-byte elements. c holds floats, or with c16 (bf16 / fp16 only) the
// input's 16-bit type; kernel is then the C16 = 1 instantiation and reduce_kernel
// ktune_gemm_splitk_reduce16 of the precision.
// kernel_max_threads and max_shared_bytes are the kernel's and the device's limits. Never
// synchronizes.
inline TiledLaunch launch_mma(const void* kernel, int kernel_max_threads, int max_shared_bytes,
                              const void* reduce_kernel, const BlockedParams& p,
                              Precision precision, bool transa, bool transb, long long m,
                              long long n, long long k, long long batch, float alpha, const void* a,
                              long long lda, long long stride_a, const void* b, long long ldb,
                              long long stride_b, float beta, void* c, long long ldc,
                              long long stride_c, float* workspace, cudaStream_t stream,
                              bool c16 = false) {
  const auto refuse = [&](const std::string& why) { return mma_detail::refuse(p, precision, why); };
  if (precision == Precision::fp32) return refuse("fp32 has no tensor-core kernel");
  if (c16 && precision == Precision::tf32) return refuse("16-bit C needs 16-bit inputs");
  if (!mma_supported_params(p)) return refuse("parameters outside the template");
  if (auto stop =
          launch_checks::check_problem(refuse, transa, transb, m, n, k, batch, lda, ldb, ldc))
    return *stop;
  if (kernel == nullptr) return refuse("no kernel");
  const int threads = p.threads();
  if (threads > kernel_max_threads)
    return refuse(std::to_string(threads) + " threads exceed the kernel's limit of " +
                  std::to_string(kernel_max_threads));
  const long long shared = mma_smem_bytes(p, precision, transa, transb);
  if (auto stop = launch_checks::check_shared_memory(refuse, shared, max_shared_bytes))
    return *stop;
  const long long blocks_m = (m + p.bm - 1) / p.bm, blocks_n = (n + p.bn - 1) / p.bn;
  if (blocks_m > 2147483647LL || blocks_n > 65535 || batch * p.splits > 65535)
    return refuse("grid exceeds the CUDA limits (batch * splits <= 65535)");
  const bool split = p.splits > 1;
  const long long partials = (long long)tiled_workspace_floats(p, m, n, batch);
  if (partials > kMmaMaxWorkspaceFloats)
    return refuse("split-K workspace of " + std::to_string(partials >> 18) +
                  " MiB exceeds the 1024 MiB limit");
  if (split && (workspace == nullptr || reduce_kernel == nullptr))
    return refuse("split-K needs a workspace and the reduction kernel");
  if (shared > 48 * 1024) {
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
  const dim3 grid{unsigned(blocks_m), unsigned(blocks_n), unsigned(batch * p.splits)};
  cudaError_t error =
      cudaLaunchKernel(kernel, grid, dim3(unsigned(threads)), args, size_t(shared), stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  const TiledLaunch result = launch_checks::classify(error, "launch", refuse, [&] {
    return mma_name_expression(p, precision, transa, transb, c16);
  });
  if (!split || result.refused || result.error != cudaSuccess) return result;
  if (c16)
    return launch_splitk_reduce16(reduce_kernel, p, m, n, batch, alpha, beta, c, ldc, stride_c,
                                  workspace, stream);
  return launch_splitk_reduce(reduce_kernel, p, m, n, batch, alpha, beta, static_cast<float*>(c),
                              ldc, stride_c, workspace, stream);
}

}  // namespace ktune::kernels::gemm::cuda
