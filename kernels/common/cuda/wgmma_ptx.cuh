// Hopper (sm_90a) PTX wrappers shared by the kernels that feed warpgroup MMAs by TMA: the tensor
// map's opaque bytes, mbarriers, bulk tensor copies (plain and multicast to a cluster), cluster
// rank / barrier, the 128-byte-swizzle shared-memory matrix descriptor and wgmma.mma_async with
// FP32 accumulators. No family's layout or schedule lives here (gemm_wgmma.cuh, the conv kinds
// own theirs). Compiled by NVRTC (no standard headers) and by nvcc; the device wrappers exist only
// for sm_90a (__CUDA_ARCH_FEAT_SM90_ALL).
#ifndef KTUNE_WGMMA_PTX_CUH
#define KTUNE_WGMMA_PTX_CUH

// The 128 opaque bytes of a CUtensorMap (cuda.h is not available to NVRTC), passed by value.
struct alignas(64) KtuneTmaMap {
  unsigned long long words[16];
};

__device__ __forceinline__ unsigned ktune_wg_smem_address(const void* p) {
  unsigned address;
  asm("{ .reg .u64 u; cvta.to.shared.u64 u, %1; cvt.u32.u64 %0, u; }" : "=r"(address) : "l"(p));
  return address;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ void ktune_wg_bar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}

// Waits until the barrier's phase of this parity has completed. The retry loop is in the PTX
// (a predicated branch back to try_wait, no flag to test in C), and try_wait carries a suspend-time
// hint (10 ms, as CUTLASS's barriers): a waiting thread sleeps until the phase completes or the
// hint runs out instead of retrying at the system's default limit, so that waits cost fewer issue
// slots (results/h100-80gb-hbm3/wgmma-lean). A label inside braces is local to that block.
__device__ __forceinline__ void ktune_wg_bar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred p;\nKTUNE_WG_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1, %2;\n"
      "@!p bra KTUNE_WG_WAIT;\n}\n" ::"r"(bar),
      "r"(parity), "n"(10000000)
      : "memory");
}

__device__ __forceinline__ void ktune_wg_bar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// The producer's arrival: the phase completes when `bytes` more have landed by TMA.
__device__ __forceinline__ void ktune_wg_bar_expect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

// One box of a 3-d tensor map (coordinates innermost first) into shared memory at dst.
__device__ __forceinline__ void ktune_wg_tma_load(unsigned dst, const KtuneTmaMap* map, int c0,
                                                  int c1, int c2, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// Clusters (kind wgmmamc). This block's rank in its cluster.
__device__ __forceinline__ unsigned ktune_wg_cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// Every thread of the cluster arrives (releasing its shared-memory writes, the barriers' init
// among them) and waits for all the others: before any block touches a peer's shared memory,
// and before any exits while a peer may still arrive on its barriers.
__device__ __forceinline__ void ktune_wg_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

// An arrival on the barrier at shared address `bar` of block `rank` of the cluster (mapa turns
// this block's address into that block's), with the default semantics (release at CTA scope) as
// CUTLASS's cluster barriers: what it orders are this warp's wgmma reads of the stage, complete
// after wgmma.wait_group. The first version released at cluster scope: on the H100
// (results/h100-80gb-hbm3/wgmma-mc-1) it ran at half the cooperative kernel's speed, with half of
// the warps' stall cycles waiting on a memory barrier (ncu), the only one the kernel had added
// (such a barrier may also wait for the wgmma group still in flight); with CTA scope it runs
// ahead of the cooperative kernel (wgmma-mc-2).
__device__ __forceinline__ void ktune_wg_bar_arrive_cluster(unsigned bar, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}

// ktune_wg_tma_load multicast: the box lands at dst in every block of `mask` (bit i: rank i),
// and completes `bytes` on the barrier at address bar of each.
__device__ __forceinline__ void ktune_wg_tma_load_multicast(unsigned dst, const KtuneTmaMap* map,
                                                            int c0, int c1, int c2, unsigned bar,
                                                            unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(mask)
      : "memory");
}

// A consumer warp's release of a ring stage: to this block's producer, and with clusters to
// every block's (each one's multicast overwrites the stage in all of them).
template <int CL>
__device__ __forceinline__ void ktune_wg_release(unsigned bar) {
  if (CL == 1) {
    ktune_wg_bar_arrive(bar);
  } else {
#pragma unroll
    for (unsigned r = 0; r < CL; ++r) ktune_wg_bar_arrive_cluster(bar, r);
  }
}

// A shared-memory matrix descriptor with 128-byte swizzling: start address, leading and stride
// byte offsets (each stored >> 4), swizzle mode 1 in bits 62-63. Its low word is the start
// address >> 4 (14 bits: shared addresses are below 256 KiB) plus the leading offset, so that a
// K loop adds a byte offset >> 4 to a low word computed once (ktune_wg_desc_lo) and pairs it with
// the constant high word (ktune_wg_desc_hi): the same bits as ktune_wg_desc of the sum.
__device__ __forceinline__ unsigned ktune_wg_desc_lo(unsigned address, unsigned lead) {
  return ((address & 0x3FFFF) >> 4) | ((lead >> 4) << 16);
}
__device__ __forceinline__ constexpr unsigned ktune_wg_desc_hi(unsigned stride) {
  return (stride >> 4) | (1u << 30);
}
__device__ __forceinline__ unsigned long long ktune_wg_desc_pair(unsigned lo, unsigned hi) {
  return ((unsigned long long)hi << 32) | lo;
}
__device__ __forceinline__ unsigned long long ktune_wg_desc(unsigned address, unsigned lead,
                                                            unsigned stride) {
  return ktune_wg_desc_pair(ktune_wg_desc_lo(address, lead), ktune_wg_desc_hi(stride));
}

// wgmma.mma_async m64nNk16 (16-bit) or m64nNk8 (tf32), FP32 accumulators d[N/2] (+=), A and B
// from shared memory. The instruction names its N/2 accumulators one operand each:
// KTUNE_WG_REGS<count> spells their placeholders %0.. in the text, KTUNE_WG_ACC<count>(d) binds
// d[0..count) to them; the descriptors follow, then (16-bit only) the transpose bits TA / TB
// (MN-major): tf32 wgmma has no transpose operands, its A and B are K-major.
#define KTUNE_WGMMA(SHAPE, REGS, ACCS, TAIL, ...)                         \
  asm volatile(                                                           \
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                          \
      "wgmma.mma_async.sync.aligned." SHAPE " {" REGS "}, " TAIL ";\n}\n" \
      : ACCS                                                              \
      : __VA_ARGS__)

#define KTUNE_WG_REGS32                                                                   \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define KTUNE_WG_REGS64                                                                     \
  KTUNE_WG_REGS32                                                                           \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, " \
  "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define KTUNE_WG_REGS128                                                                     \
  KTUNE_WG_REGS64                                                                            \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "  \
  "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "    \
  "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, " \
  "%113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "     \
  "%127"

#define KTUNE_WG_ACC8(d, o)                                                                   \
  "+f"(d[o]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3]), "+f"(d[o + 4]), "+f"(d[o + 5]), \
      "+f"(d[o + 6]), "+f"(d[o + 7])
#define KTUNE_WG_ACC32(d, o) \
  KTUNE_WG_ACC8(d, o), KTUNE_WG_ACC8(d, o + 8), KTUNE_WG_ACC8(d, o + 16), KTUNE_WG_ACC8(d, o + 24)
#define KTUNE_WG_ACC64(d, o) KTUNE_WG_ACC32(d, o), KTUNE_WG_ACC32(d, o + 32)
#define KTUNE_WG_ACC128(d) KTUNE_WG_ACC64(d, 0), KTUNE_WG_ACC64(d, 64)

// 16-bit: TYPE bf16 or f16, k16, with transpose bits.
#define KTUNE_WGMMA_N64(TYPE, d, da, db, TA, TB)                                     \
  KTUNE_WGMMA("m64n64k16.f32." TYPE "." TYPE, KTUNE_WG_REGS32, KTUNE_WG_ACC32(d, 0), \
              "%32, %33, p, 1, 1, %34, %35", "l"(da), "l"(db), "n"(TA), "n"(TB))
#define KTUNE_WGMMA_N128(TYPE, d, da, db, TA, TB)                                     \
  KTUNE_WGMMA("m64n128k16.f32." TYPE "." TYPE, KTUNE_WG_REGS64, KTUNE_WG_ACC64(d, 0), \
              "%64, %65, p, 1, 1, %66, %67", "l"(da), "l"(db), "n"(TA), "n"(TB))
#define KTUNE_WGMMA_N256(TYPE, d, da, db, TA, TB)                                    \
  KTUNE_WGMMA("m64n256k16.f32." TYPE "." TYPE, KTUNE_WG_REGS128, KTUNE_WG_ACC128(d), \
              "%128, %129, p, 1, 1, %130, %131", "l"(da), "l"(db), "n"(TA), "n"(TB))
// tf32: k8, both operands K-major (no transpose operands).
#define KTUNE_WGMMA_TF32_N64(d, da, db)                                        \
  KTUNE_WGMMA("m64n64k8.f32.tf32.tf32", KTUNE_WG_REGS32, KTUNE_WG_ACC32(d, 0), \
              "%32, %33, p, 1, 1", "l"(da), "l"(db))
#define KTUNE_WGMMA_TF32_N128(d, da, db)                                        \
  KTUNE_WGMMA("m64n128k8.f32.tf32.tf32", KTUNE_WG_REGS64, KTUNE_WG_ACC64(d, 0), \
              "%64, %65, p, 1, 1", "l"(da), "l"(db))
#define KTUNE_WGMMA_TF32_N256(d, da, db)                                       \
  KTUNE_WGMMA("m64n256k8.f32.tf32.tf32", KTUNE_WG_REGS128, KTUNE_WG_ACC128(d), \
              "%128, %129, p, 1, 1", "l"(da), "l"(db))

template <int N, int PREC, int TA, int TB>
__device__ __forceinline__ void ktune_wgmma(float* d, unsigned long long da,
                                            unsigned long long db) {
  if (N == 64) {
    if (PREC == 1)
      KTUNE_WGMMA_TF32_N64(d, da, db);
    else if (PREC == 2)
      KTUNE_WGMMA_N64("bf16", d, da, db, TA, TB);
    else
      KTUNE_WGMMA_N64("f16", d, da, db, TA, TB);
  } else if (N == 128) {
    if (PREC == 1)
      KTUNE_WGMMA_TF32_N128(d, da, db);
    else if (PREC == 2)
      KTUNE_WGMMA_N128("bf16", d, da, db, TA, TB);
    else
      KTUNE_WGMMA_N128("f16", d, da, db, TA, TB);
  } else {
    if (PREC == 1)
      KTUNE_WGMMA_TF32_N256(d, da, db);
    else if (PREC == 2)
      KTUNE_WGMMA_N256("bf16", d, da, db, TA, TB);
    else
      KTUNE_WGMMA_N256("f16", d, da, db, TA, TB);
  }
}

// The TMA-store epilogue (kind wgmmats). Orders this thread's ordinary shared-memory writes
// before the copy engine's reads of them (each writing thread, then a barrier).
__device__ __forceinline__ void ktune_wg_fence_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

__device__ __forceinline__ void ktune_wg_st_shared(unsigned address, float v) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(address), "f"(v) : "memory");
}

// One box of a 3-d tensor map (coordinates innermost first) from shared memory at src to global
// memory; elements past the tensor's bounds are not written. Tracked by bulk async groups.
__device__ __forceinline__ void ktune_wg_tma_store(const KtuneTmaMap* map, unsigned src, int c0,
                                                   int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
          map),
      "r"(src), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

__device__ __forceinline__ void ktune_wg_bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Waits until at most N of this thread's committed store groups still read shared memory.
template <int N>
__device__ __forceinline__ void ktune_wg_bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// Waits until every store group of this thread has completed (its writes done).
__device__ __forceinline__ void ktune_wg_bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

// Named barrier `id` (1..15) of one warpgroup's 128 threads.
__device__ __forceinline__ void ktune_wg_warpgroup_sync(int id) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory");
}

// One box of a 4-d tensor map (coordinates innermost first; negative or past-the-end coordinates
// read zeros: the conv kinds' padding) into shared memory at dst.
__device__ __forceinline__ void ktune_wg_tma_load_4d(unsigned dst, const KtuneTmaMap* map, int c0,
                                                     int c1, int c2, int c3, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

#endif  // KTUNE_WGMMA_PTX_CUH
