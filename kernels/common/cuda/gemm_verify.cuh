// Verification of a GEMM result against a float64 reference, compiled at run time by NVRTC:
// each block writes partial sums of (c - ref)^2 and ref^2 in float64; the host adds the
// partials in a fixed order (deterministic) and forms ||c - ref||_F / ||ref||_F. A NaN or Inf
// anywhere in c propagates into the sums, so it can never pass.
// Launch: blockDim.x == KTUNE_VERIFY_THREADS, any gridDim.x; partials holds 2 * gridDim.x.
// c_type: 0 c holds floats, 2 bf16 bits, 3 fp16 bits (GEMM's 16-bit C), widened exactly.
#ifndef KTUNE_GEMM_VERIFY_CUH
#define KTUNE_GEMM_VERIFY_CUH

#define KTUNE_VERIFY_THREADS 256

__device__ __forceinline__ double ktune_verify_load(const void* c, long long at, int c_type) {
  if (c_type == 0) return (double)static_cast<const float*>(c)[at];
  const unsigned short h = static_cast<const unsigned short*>(c)[at];
  if (c_type == 2) return (double)__uint_as_float((unsigned)h << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
  return (double)f;
}

extern "C" __global__ void ktune_gemm_rel_error_partials(const void* __restrict__ c, int c_type,
                                                         long long ldc, long long stride_c,
                                                         const double* __restrict__ ref,
                                                         long long m, long long n, long long batch,
                                                         double* partials) {
  __shared__ double diff_sums[KTUNE_VERIFY_THREADS];
  __shared__ double ref_sums[KTUNE_VERIFY_THREADS];
  double diff_sum = 0.0, ref_sum = 0.0;
  const long long total = m * n * batch;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long i = e % m;
    const long long j = (e / m) % n;
    const long long z = e / (m * n);
    const long long at = z * stride_c + j * ldc + i;
    const double expected = ref[at];
    const double d = ktune_verify_load(c, at, c_type) - expected;
    diff_sum += d * d;
    ref_sum += expected * expected;
  }
  diff_sums[threadIdx.x] = diff_sum;
  ref_sums[threadIdx.x] = ref_sum;
  __syncthreads();
  for (int half = KTUNE_VERIFY_THREADS / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      diff_sums[threadIdx.x] += diff_sums[threadIdx.x + half];
      ref_sums[threadIdx.x] += ref_sums[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = diff_sums[0];
    partials[2 * blockIdx.x + 1] = ref_sums[0];
  }
}

#endif  // KTUNE_GEMM_VERIFY_CUH
