// Ahead-of-time compile check of the seed kernel header: the deployed library instantiates a
// few configs with nvcc from the same gemm_seed.cuh that NVRTC compiles at run time, so this
// must keep building (see cmake/cuda_aot.cmake).
#include "kernels/gemm/cuda/gemm_seed.cuh"

#define KTUNE_INSTANTIATE_SEED(R, A, C)                                                     \
  template __global__ void ktune_gemm_seed<R, A, C>(                                        \
      int, int, long long, long long, long long, float, const float*, long long, long long, \
      const float*, long long, long long, float, float*, long long, long long);

KTUNE_INSTANTIATE_SEED(1, 1, 1)
KTUNE_INSTANTIATE_SEED(4, 4, 4)
KTUNE_INSTANTIATE_SEED(8, 2, 4)
KTUNE_INSTANTIATE_SEED(2, 8, 8)

// A host-side launch through the triple-chevron syntax, as the deployed library does.
void ktune_gemm_seed_aot_launch(const float* a, const float* b, float* c, long long m, long long n,
                                long long k, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(unsigned((m + 16 * 4 - 1) / (16 * 4)), unsigned((n + 16 * 4 - 1) / (16 * 4)), 1);
  ktune_gemm_seed<4, 4, 4><<<grid, block, 0, stream>>>(0, 0, m, n, k, 1.0f, a, m, m * k, b, k,
                                                       k * n, 0.0f, c, m, m * n);
}

// The tiled / split-K kernels (gemm_tiled.cuh): a few configs of both kinds, every transpose pair,
// and the split-K reduction, as the deployed library instantiates them.
#include "kernels/common/cuda/gemm_tiled.cuh"

#define KTUNE_INSTANTIATE_TILED(BM, BN, BK, TM, TN, VEC, DB, TA, TB)                            \
  template __global__ void ktune_gemm_tiled<BM, BN, BK, TM, TN, VEC, DB, TA, TB>(               \
      long long, long long, long long, float, const float*, long long, long long, const float*, \
      long long, long long, float, float*, long long, long long, int, long long, float*);

KTUNE_INSTANTIATE_TILED(128, 128, 8, 8, 8, 4, 1, 0, 0)
KTUNE_INSTANTIATE_TILED(128, 128, 8, 8, 8, 4, 1, 1, 0)
KTUNE_INSTANTIATE_TILED(128, 128, 8, 8, 8, 4, 1, 0, 1)
KTUNE_INSTANTIATE_TILED(128, 128, 8, 8, 8, 4, 1, 1, 1)
KTUNE_INSTANTIATE_TILED(64, 32, 16, 4, 8, 1, 0, 1, 1)
KTUNE_INSTANTIATE_TILED(32, 64, 16, 4, 4, 4, 0, 0, 1)
KTUNE_INSTANTIATE_TILED(64, 64, 32, 4, 4, 4, 1, 0, 0)  // split-K tile
KTUNE_INSTANTIATE_TILED(32, 32, 16, 4, 4, 4, 1, 1, 0)  // split-K tile
template __global__ void ktune_gemm_splitk_reduce<KTUNE_SPLITK_REDUCE_THREADS>(
    long long, long long, long long, int, const float*, float, float, float*, long long, long long);

// Host-side launches through the triple-chevron syntax: a tiled GEMM, and a split-K GEMM with
// its reduction (k_chunk = 64, a multiple of BK = 32).
void ktune_gemm_tiled_aot_launch(const float* a, const float* b, float* c, float* workspace,
                                 long long m, long long n, long long k, cudaStream_t stream) {
  const dim3 grid(unsigned((m + 127) / 128), unsigned((n + 127) / 128), 1);
  ktune_gemm_tiled<128, 128, 8, 8, 8, 4, 1, 0, 0><<<grid, 256, 0, stream>>>(
      m, n, k, 1.0f, a, m, m * k, b, k, k * n, 0.0f, c, m, m * n, 1, k, nullptr);
  const int splits = int((k + 63) / 64);
  const dim3 split_grid(unsigned((m + 63) / 64), unsigned((n + 63) / 64), unsigned(splits));
  ktune_gemm_tiled<64, 64, 32, 4, 4, 4, 1, 0, 0><<<split_grid, 256, 0, stream>>>(
      m, n, k, 1.0f, a, m, m * k, b, k, k * n, 0.0f, c, m, m * n, splits, 64, workspace);
  ktune_gemm_splitk_reduce<KTUNE_SPLITK_REDUCE_THREADS>
      <<<unsigned((m * n + KTUNE_SPLITK_REDUCE_THREADS - 1) / KTUNE_SPLITK_REDUCE_THREADS),
         KTUNE_SPLITK_REDUCE_THREADS, 0, stream>>>(m, n, 1, splits, workspace, 1.0f, 0.0f, c, m,
                                                   m * n);
}

// The warp-tiled kernels (gemm_warp.cuh): both warp-tile orientations, every transpose pair.
#include "kernels/gemm/cuda/gemm_warp.cuh"

#define KTUNE_INSTANTIATE_WARP(BM, BN, BK, WM, WN, TM, TN, ST, GR, TA, TB)                      \
  template __global__ void ktune_gemm_warp<BM, BN, BK, WM, WN, TM, TN, ST, GR, TA, TB>(         \
      long long, long long, long long, float, const float*, long long, long long, const float*, \
      long long, long long, float, float*, long long, long long, int, long long, float*);

KTUNE_INSTANTIATE_WARP(128, 128, 8, 32, 64, 8, 8, 3, 8, 0, 0)
KTUNE_INSTANTIATE_WARP(128, 128, 8, 32, 64, 8, 8, 3, 8, 1, 0)
KTUNE_INSTANTIATE_WARP(128, 128, 8, 32, 64, 8, 8, 3, 8, 0, 1)
KTUNE_INSTANTIATE_WARP(128, 128, 8, 32, 64, 8, 8, 3, 8, 1, 1)
KTUNE_INSTANTIATE_WARP(64, 64, 16, 32, 32, 4, 8, 4, 1, 1, 0)
KTUNE_INSTANTIATE_WARP(256, 64, 16, 64, 32, 8, 8, 4, 8, 0, 1)

// The tensor-core kernels (gemm_mma.cuh): one config per precision, over the transpose pairs.
#include "kernels/gemm/cuda/gemm_mma.cuh"

#define KTUNE_INSTANTIATE_MMA(BM, BN, BK, WM, WN, ST, PREC, TA, TB, C16)                         \
  template __global__ void ktune_gemm_mma<BM, BN, BK, WM, WN, ST, PREC, TA, TB, C16>(            \
      long long, long long, long long, float, const KtuneMmaElem<PREC>::type*, long long,        \
      long long, const KtuneMmaElem<PREC>::type*, long long, long long, float, void*, long long, \
      long long, int, long long, float*);

KTUNE_INSTANTIATE_MMA(128, 128, 32, 64, 64, 4, 2, 0, 0, 0)  // bf16
KTUNE_INSTANTIATE_MMA(128, 128, 32, 64, 64, 4, 2, 0, 0, 1)  // bf16, 16-bit C
KTUNE_INSTANTIATE_MMA(128, 64, 32, 64, 32, 3, 3, 1, 1, 0)   // fp16
KTUNE_INSTANTIATE_MMA(128, 64, 32, 64, 32, 3, 3, 1, 1, 1)   // fp16, 16-bit C
KTUNE_INSTANTIATE_MMA(64, 128, 32, 32, 64, 3, 1, 0, 1, 0)   // tf32
// The split-K reduction into 16-bit C (gemm_out16.cuh) of both 16-bit precisions.
template __global__ void ktune_gemm_splitk_reduce16<2, KTUNE_SPLITK_REDUCE_THREADS>(
    long long, long long, long long, int, const float*, float, float, void*, long long, long long);
template __global__ void ktune_gemm_splitk_reduce16<3, KTUNE_SPLITK_REDUCE_THREADS>(
    long long, long long, long long, int, const float*, float, float, void*, long long, long long);
