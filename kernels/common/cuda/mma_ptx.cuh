// Inline-PTX building blocks of the mma.sync main loops (sm_80+): shared addresses, 16-byte
// cp.async, ldmatrix, the 16-bit m16n8k16 and the tf32 m16n8k8 tensor-core instructions, and the
// roundings to and from a 16-bit output (also the wgmma conv kernel's epilogues). Used by
// the GEMM family's mma kind (kernels/gemm/cuda/gemm_mma.cuh) and conv2d's implicit-GEMM kind
// (kernels/conv2d/cuda/conv2d_igemm_mma.cuh). Compiled at run time by NVRTC (no standard
// headers) and ahead of time by nvcc.
#ifndef KTUNE_MMA_PTX_CUH
#define KTUNE_MMA_PTX_CUH

// The element type of A and B in memory for a precision code (gemm::Precision): FP32 words for
// tf32 (1, rounded to TF32 in the kernel), the raw bits of bf16 (2) and fp16 (3).
template <int PREC>
struct KtuneMmaElem {
  typedef unsigned short type;  // bf16 / fp16 bits
};
template <>
struct KtuneMmaElem<1> {
  typedef float type;
};

// The 32-bit shared-state-space address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned ktune_smem_address(const void* p) {
  unsigned address;
  asm("{ .reg .u64 u; cvta.to.shared.u64 u, %1; cvt.u32.u64 %0, u; }" : "=r"(address) : "l"(p));
  return address;
}

// cp.async of 16 bytes; src_bytes == 0 zero-fills without reading src.
__device__ __forceinline__ void ktune_cp_async16(unsigned dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes));
}

// Closes the group of the cp.async issued since the last commit; waits until at most N groups
// are still in flight.
__device__ __forceinline__ void ktune_cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N>
__device__ __forceinline__ void ktune_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// A 32-bit word / one element (16-bit bits or a float) at a shared address. volatile, like
// ldmatrix: the compiler must not move them across the pipeline's barriers and cp.async waits.
__device__ __forceinline__ unsigned ktune_ld_shared32(unsigned address) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(address));
  return v;
}
__device__ __forceinline__ void ktune_st_shared(unsigned address, unsigned short v) {
  asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(address), "h"(v));
}
__device__ __forceinline__ void ktune_st_shared(unsigned address, float v) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(address), "f"(v));
}

// Four 8x8 matrices of 16-bit elements, as stored (TRANS = 0) or transposed.
template <int TRANS>
__device__ __forceinline__ void ktune_ldmatrix_x4(unsigned (&r)[4], unsigned address) {
  if (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

// d += a * b, one m16n8k16 tile of 16-bit inputs (PREC 2 bf16, 3 fp16) with FP32 accumulators.
template <int PREC>
__device__ __forceinline__ void ktune_mma_16816(float (&d)[4], const unsigned (&a)[4],
                                                const unsigned* b) {
  if (PREC == 2)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// An FP32 value rounded to TF32 (nearest, ties away from zero), as the tf32 mma reads it.
__device__ __forceinline__ unsigned ktune_mma_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// A warp's tf32 fragments of one K step (MI A tiles, NI B tiles of FP32 words) rounded to TF32,
// just before their mma, so that the conversion does not wait for the next step's loads.
template <int MI, int NI>
__device__ __forceinline__ void ktune_mma_round_tf32(unsigned (&af)[MI][4], unsigned (&bf)[NI][2]) {
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) af[i][e] = ktune_mma_tf32(__uint_as_float(af[i][e]));
#pragma unroll
  for (int j = 0; j < NI; ++j)
#pragma unroll
    for (int e = 0; e < 2; ++e) bf[j][e] = ktune_mma_tf32(__uint_as_float(bf[j][e]));
}

// A 16-bit output in the data's type (PREC 2: bf16, 3: fp16): the bits of an FP32 sum rounded once
// to nearest even (NaN stays NaN; fp16 saturates to infinity past 65504 as cvt.rn does), and its
// value back as FP32 (a residual read in the output's type).
template <int PREC>
__device__ __forceinline__ unsigned ktune_round16(float f) {
  static_assert(PREC == 2 || PREC == 3, "16-bit outputs are bf16 (2) or fp16 (3)");
  if (PREC == 3) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
  }
  const unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
template <int PREC>
__device__ __forceinline__ float ktune_widen16(unsigned short b) {
  static_assert(PREC == 2 || PREC == 3, "16-bit outputs are bf16 (2) or fp16 (3)");
  if (PREC == 3) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(b));
    return f;
  }
  return __uint_as_float(unsigned(b) << 16);
}

// One mma tile: d += a * b (fp32 accumulators d[0..3]).
template <int PREC>
__device__ __forceinline__ void ktune_mma(float (&d)[4], const unsigned (&a)[4],
                                          const unsigned* b) {
  if (PREC == 1)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    ktune_mma_16816<PREC>(d, a, b);
}

#endif  // KTUNE_MMA_PTX_CUH
