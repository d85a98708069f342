// C in the input's 16-bit type for the tensor-core GEMM kernels (gemm_mma.cuh, gemm_wgmma.cuh):
// the store of one C element in FP32 or in bf16 / fp16 bits, and the split-K reduction that
// writes 16-bit C. The kernels take the C type as their C16 template argument (0: C is float, 1:
// C holds the input type PREC, 2 bf16 or 3 fp16), so ktune_out_store's c16 is a constant there: a
// run-time test per element cost the mma kernel registers and occupancy (gemm_mma.cuh) and the
// wgmma ones epilogue instructions (gemm_wgmma.cuh). alpha and beta are applied in FP32
// (beta reads the old C in its type) and the sum is rounded once, to nearest even, at the store.
// Includes only gemm_tiled.cuh (the split-K loop; NVRTC embeds both, nvcc finds it by its path);
// sm_80+ (cvt.rn.bf16.f32).
#ifndef KTUNE_GEMM_OUT16_CUH
#define KTUNE_GEMM_OUT16_CUH

#include "../../common/cuda/gemm_tiled.cuh"  // ktune_gemm_splitk_sums

// FP32 to the 16-bit type of PREC (2 bf16, 3 fp16), round to nearest even; the raw bits.
template <int PREC>
__device__ __forceinline__ unsigned short ktune_out16_bits(float x) {
  unsigned short r;
  if (PREC == 2)
    asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(r) : "f"(x));
  else
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(r) : "f"(x));
  return r;
}

// The 16-bit bits of PREC's type as FP32 (exact).
template <int PREC>
__device__ __forceinline__ float ktune_out16_value(unsigned short h) {
  if (PREC == 2) return __uint_as_float(unsigned(h) << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
  return f;
}

// C[index] = v + beta * C[index] (C not read when beta == 0: it may hold NaN, as in BLAS), C of
// floats or (c16, PREC 2 / 3) of PREC's 16-bit type; v is alpha * the accumulator.
template <int PREC>
__device__ __forceinline__ void ktune_out_store(void* c, long long index, int c16, float beta,
                                                float v) {
  if (PREC != 1 && c16) {
    unsigned short* at = static_cast<unsigned short*>(c) + index;
    if (beta != 0.0f) v = fmaf(beta, ktune_out16_value<PREC>(*at), v);
    *at = ktune_out16_bits<PREC>(v);
  } else {
    float* at = static_cast<float*>(c) + index;
    *at = beta == 0.0f ? v : fmaf(beta, *at, v);
  }
}

// The split-K reduction of gemm_tiled.cuh's ktune_gemm_splitk_reduce with C in PREC's 16-bit
// type: C = alpha * (the splits' FP32 partial sums, in index order) + beta * C, one rounding.
// Same parameters (c: 16-bit bits), same grid, same loop (ktune_gemm_splitk_sums). Name
// expression "ktune_gemm_splitk_reduce16<2,256>".
template <int PREC, int THREADS>
__global__ void __launch_bounds__(THREADS)
    ktune_gemm_splitk_reduce16(long long m, long long n, long long batch, int splits,
                               const float* __restrict__ partial, float alpha, float beta,
                               void* __restrict__ c, long long ldc, long long stride_c) {
  ktune_gemm_splitk_sums(
      m, n, batch, splits, partial, ldc, stride_c,
      [&](long long offset, float sum) { ktune_out_store<PREC>(c, offset, 1, beta, alpha * sum); });
}

#endif  // KTUNE_GEMM_OUT16_CUH
