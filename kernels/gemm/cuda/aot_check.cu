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
