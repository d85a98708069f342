#pragma once
// Launch geometry of the seed kernel (gemm_seed.cuh), shared by the sweep backend (NVRTC
// kernels) and the deployed library (nvcc kernels) so both run a config the same way.
// Header-only; depends on the CUDA runtime API only.
#include <cuda_runtime_api.h>

#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cuda {

struct SeedGeometry {
  dim3 grid, block;
  const char* refusal = nullptr;  // why the config cannot run this shape, or nullptr
};

// blockDim = (wg_x, wg_y); gridDim = (ceil(m / (wg_x*r)), min(ceil(n / (wg_y*c)), 65535), batch);
// the kernel strides over column blocks beyond gridDim.y. Requires m, n, batch >= 1.
inline SeedGeometry seed_geometry(const SeedParams& p, long long m, long long n, long long batch) {
  SeedGeometry g;
  if (p.wg_x <= 0 || p.wg_y <= 0) {
    g.refusal = "work-group sizes must be positive";
    return g;
  }
  const long long tile_m = (long long)p.wg_x * p.r, tile_n = (long long)p.wg_y * p.c;
  const long long blocks_m = (m + tile_m - 1) / tile_m, blocks_n = (n + tile_n - 1) / tile_n;
  if (blocks_m > 2147483647LL || batch > 65535) {
    g.refusal = "the grid exceeds the CUDA grid limits";
    return g;
  }
  g.grid = dim3(unsigned(blocks_m), unsigned(blocks_n < 65535 ? blocks_n : 65535), unsigned(batch));
  g.block = dim3(unsigned(p.wg_x), unsigned(p.wg_y), 1);
  return g;
}

// Launches the seed kernel `kernel` (an NVRTC cudaKernel_t or &ktune_gemm_seed<R, A, C>) with
// its parameter list; strides are elements between batch entries.
inline cudaError_t launch_seed_kernel(const void* kernel, const SeedGeometry& g, bool transa,
                                      bool transb, long long m, long long n, long long k,
                                      float alpha, const float* a, long long lda,
                                      long long stride_a, const float* b, long long ldb,
                                      long long stride_b, float beta, float* c, long long ldc,
                                      long long stride_c, cudaStream_t stream) {
  int ta = transa ? 1 : 0, tb = transb ? 1 : 0;  // storage must match the kernel's types
  void* args[] = {&ta,       &tb, &m,   &n,        &k,    &alpha, &a,   &lda,
                  &stride_a, &b,  &ldb, &stride_b, &beta, &c,     &ldc, &stride_c};
  return cudaLaunchKernel(kernel, g.grid, g.block, args, 0, stream);
}

}  // namespace ktune::kernels::gemm::cuda
