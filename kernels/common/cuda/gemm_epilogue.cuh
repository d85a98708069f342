// The epilogue the tiled / split-K (gemm_tiled.cuh) and warp-tiled (gemm_warp.cuh) GEMM kernels
// share. Included by both: nvcc finds it beside gemm_tiled.cuh and by its relative path from
// kernels/gemm/cuda/gemm_warp.cuh, NVRTC gets it as an embedded header
// (include/ktune/cuda/nvrtc_compile.hpp). Free of includes, like the kernels.
#ifndef KTUNE_GEMM_EPILOGUE_CUH
#define KTUNE_GEMM_EPILOGUE_CUH

__device__ __forceinline__ bool ktune_gemm_aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0;
}

// Where one (batch, split) writes its m x n result, column-major with leading dimension ldo.
struct KtuneGemmOut {
  float* out;
  long long ldo;
  float alpha, beta;
  bool vec;  // 16-byte accesses allowed (ldo and the base are multiples of 4 floats)
};

// C itself (alpha, beta) without split-K; else the raw sums go to this (batch, split)'s packed
// m x n slice z of the workspace, reduced later by ktune_gemm_splitk_reduce.
__device__ __forceinline__ KtuneGemmOut ktune_gemm_out(float* c, long long ldc, long long stride_c,
                                                       float* partial, long long m, long long n,
                                                       long long z, long long batch_index,
                                                       int splits, float alpha, float beta) {
  KtuneGemmOut o;
  if (splits > 1) {
    o.out = partial + z * m * n;
    o.ldo = m;
    o.alpha = 1.0f;
    o.beta = 0.0f;
    o.vec = m % 4 == 0 && ktune_gemm_aligned16(partial);
  } else {
    o.out = c + batch_index * stride_c;
    o.ldo = ldc;
    o.alpha = alpha;
    o.beta = beta;
    o.vec = ldc % 4 == 0 && stride_c % 4 == 0 && ktune_gemm_aligned16(c);
  }
  return o;
}

// Stores rows il .. il + 3 (those below rows_left) of one output column: v = alpha * acc, plus
// beta * the old value unless beta == 0 (then C is not read: it may hold NaN, as in BLAS). One
// 16-byte access when aligned and all four rows exist.
__device__ __forceinline__ void ktune_gemm_store4(float* column, int il, long long rows_left,
                                                  bool vec, float beta, float (&v)[4]) {
  if (vec && il + 3 < rows_left) {
    float4* at = reinterpret_cast<float4*>(column + il);
    if (beta != 0.0f) {
      const float4 old = *at;
      v[0] = fmaf(beta, old.x, v[0]);
      v[1] = fmaf(beta, old.y, v[1]);
      v[2] = fmaf(beta, old.z, v[2]);
      v[3] = fmaf(beta, old.w, v[3]);
    }
    *at = make_float4(v[0], v[1], v[2], v[3]);
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if (il + e >= rows_left) continue;
      float* at = column + il + e;
      *at = beta == 0.0f ? v[e] : fmaf(beta, *at, v[e]);
    }
  }
}

#endif  // KTUNE_GEMM_EPILOGUE_CUH
