// Ahead-of-time nvcc check of the Hopper tensor-core GEMM kernel (gemm_wgmma.cuh) for sm_90a, the
// only target with wgmma and setmaxnreg (cmake/cuda_aot.cmake builds it with architecture 90a):
// the deployed library instantiates its configs from the header that NVRTC compiles in the sweep.
#include "kernels/gemm/cuda/gemm_wgmma.cuh"

// One instantiation of a kernel template of the GEMM kernels' signature (C16 last: 1 stores C in
// the input's 16-bit type).
#define KTUNE_INSTANTIATE(KERNEL, BM, BN, ST, GR, PREC, TA, TB, C16)                       \
  template __global__ void KERNEL<BM, BN, ST, GR, PREC, TA, TB, C16>(                      \
      const __grid_constant__ KtuneTmaMap, const __grid_constant__ KtuneTmaMap, long long, \
      long long, long long, long long, float, float, void*, long long, long long);
#define KTUNE_INSTANTIATE_WGMMA(...) KTUNE_INSTANTIATE(ktune_gemm_wgmma, __VA_ARGS__)
#define KTUNE_INSTANTIATE_WGMMA_PP(...) KTUNE_INSTANTIATE(ktune_gemm_wgmma_pp, __VA_ARGS__)
#define KTUNE_INSTANTIATE_WGMMA_MC(...) KTUNE_INSTANTIATE(ktune_gemm_wgmma_mc, __VA_ARGS__)

// Every tile shape once, both precisions, every transpose pair.
KTUNE_INSTANTIATE_WGMMA(128, 256, 4, 8, 2, 1, 0, 0)  // bf16, both K-major
KTUNE_INSTANTIATE_WGMMA(256, 128, 4, 8, 2, 0, 0, 0)  // bf16, A MN-major
KTUNE_INSTANTIATE_WGMMA(128, 128, 6, 1, 3, 0, 1, 0)  // fp16, both MN-major
KTUNE_INSTANTIATE_WGMMA(128, 64, 3, 8, 3, 1, 1, 0)   // fp16, B MN-major
KTUNE_INSTANTIATE_WGMMA(256, 64, 3, 1, 2, 1, 0, 0)
// Ping-pong (kind wgmmapp): every tile shape, both precisions, every transpose pair.
KTUNE_INSTANTIATE_WGMMA_PP(64, 256, 5, 8, 2, 0, 0, 0)   // bf16, A MN-major
KTUNE_INSTANTIATE_WGMMA_PP(128, 128, 6, 8, 2, 1, 0, 0)  // bf16, both K-major
KTUNE_INSTANTIATE_WGMMA_PP(64, 128, 4, 1, 3, 1, 1, 0)   // fp16, B MN-major
KTUNE_INSTANTIATE_WGMMA_PP(128, 128, 5, 1, 3, 0, 1, 0)  // fp16, both MN-major
// Clusters (kind wgmmamc): every tile shape, both precisions, every transpose pair.
KTUNE_INSTANTIATE_WGMMA_MC(256, 128, 4, 1, 2, 0, 0, 0)  // bf16, A MN-major
KTUNE_INSTANTIATE_WGMMA_MC(128, 256, 4, 8, 2, 1, 0, 0)  // bf16, both K-major
KTUNE_INSTANTIATE_WGMMA_MC(128, 128, 6, 1, 3, 1, 1, 0)  // fp16, B MN-major
KTUNE_INSTANTIATE_WGMMA_MC(256, 128, 3, 8, 3, 0, 1, 0)  // fp16, both MN-major
// The TMA-store epilogue (kind wgmmats): every tile shape, one block and clusters, both
// precisions, every transpose pair.
#define KTUNE_INSTANTIATE_WGMMA_TS(KERNEL, BM, BN, ST, GR, PREC, TA, TB, C16)              \
  template __global__ void KERNEL<BM, BN, ST, GR, PREC, TA, TB, C16>(                      \
      const __grid_constant__ KtuneTmaMap, const __grid_constant__ KtuneTmaMap, long long, \
      long long, long long, long long, float, float, void*, long long, long long,          \
      const __grid_constant__ KtuneTmaMap, int);
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_ts, 256, 128, 4, 1, 2, 0, 0, 0)    // bf16, A MN-major
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_ts, 128, 256, 4, 8, 3, 1, 1, 0)    // fp16, B MN-major
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_mcts, 256, 128, 4, 8, 2, 1, 0, 0)  // bf16, K-major
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_mcts, 128, 128, 4, 1, 3, 0, 1, 0)  // fp16, MN-major
// The staged epilogue stored by the consumer threads (kind wgmmacs), likewise.
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_cs, 256, 128, 4, 1, 2, 0, 0, 0)
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_cs, 128, 256, 4, 8, 3, 1, 1, 0)
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_mccs, 256, 128, 4, 8, 2, 1, 0, 0)
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_mccs, 128, 128, 4, 1, 3, 0, 1, 0)
// C in the input's 16-bit type (C16 = 1): every kernel template, both 16-bit precisions (the
// staged ones compile their plain epilogue only).
KTUNE_INSTANTIATE_WGMMA(128, 64, 6, 8, 2, 0, 0, 1)
KTUNE_INSTANTIATE_WGMMA(256, 128, 4, 1, 3, 1, 0, 1)
KTUNE_INSTANTIATE_WGMMA_PP(64, 128, 6, 1, 2, 0, 1, 1)
KTUNE_INSTANTIATE_WGMMA_PP(128, 128, 6, 8, 3, 1, 1, 1)
KTUNE_INSTANTIATE_WGMMA_MC(256, 128, 4, 1, 2, 1, 0, 1)
KTUNE_INSTANTIATE_WGMMA_MC(128, 128, 4, 8, 3, 0, 0, 1)
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_ts, 256, 128, 4, 1, 2, 0, 0, 1)
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_mcts, 128, 128, 4, 1, 3, 1, 1, 1)
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_cs, 128, 256, 4, 8, 3, 0, 1, 1)
KTUNE_INSTANTIATE_WGMMA_TS(ktune_gemm_wgmma_mccs, 256, 128, 4, 8, 2, 1, 0, 1)
// tf32 (kind wgmmatf32): K-major only, every wgmma N; and the operand copies.
KTUNE_INSTANTIATE_WGMMA(128, 256, 4, 8, 1, 1, 0, 0)
KTUNE_INSTANTIATE_WGMMA(256, 128, 3, 1, 1, 1, 0, 0)
KTUNE_INSTANTIATE_WGMMA(128, 64, 6, 8, 1, 1, 0, 0)
template __global__ void ktune_wgmma_pack_tf32<0>(const float*, long long, long long, long long,
                                                  long long, long long, float*, long long);
template __global__ void ktune_wgmma_pack_tf32<1>(const float*, long long, long long, long long,
                                                  long long, long long, float*, long long);
// Split-K (kind wgmmasplit): every tile shape, both precisions, every transpose pair (no C16:
// the kernel stores FP32 partial sums for either C type; the reductions after it are
// aot_check.cu's).
#define KTUNE_INSTANTIATE_WGMMA_SK(BM, BN, ST, GR, PREC, TA, TB)                           \
  template __global__ void ktune_gemm_wgmma_sk<BM, BN, ST, GR, PREC, TA, TB>(              \
      const __grid_constant__ KtuneTmaMap, const __grid_constant__ KtuneTmaMap, long long, \
      long long, long long, long long, int, float*);
KTUNE_INSTANTIATE_WGMMA_SK(128, 64, 6, 8, 2, 0, 0)   // bf16, A MN-major
KTUNE_INSTANTIATE_WGMMA_SK(128, 128, 4, 8, 2, 1, 0)  // bf16, both K-major
KTUNE_INSTANTIATE_WGMMA_SK(128, 128, 6, 8, 3, 0, 1)  // fp16, both MN-major
KTUNE_INSTANTIATE_WGMMA_SK(128, 256, 4, 8, 3, 1, 1)  // fp16, B MN-major
KTUNE_INSTANTIATE_WGMMA_SK(256, 64, 4, 8, 3, 1, 0)
KTUNE_INSTANTIATE_WGMMA_SK(256, 128, 4, 8, 2, 0, 1)
