// Tensor-core GEMM for Hopper (kind `wgmma` of the GEMM family, sm_90a only): column-major BLAS
// semantics C = alpha * op(A) * op(B) + beta * C with strided batches, 16-bit A and B (PREC 2
// bf16, 3 fp16: raw bits, never converted) or FP32 A and B read as tf32 (PREC 1: the tensor
// cores ignore the low 13 mantissa bits, i.e. truncate; kind wgmmatf32), FP32 accumulation and
// FP32 C, or (C16 = 1, 16-bit inputs only) C in the input's type (gemm_out16.cuh: one rounding at
// the store, by the plain epilogue: the staged ones of kinds wgmmats / wgmmacs stage FP32 boxes,
// so their C16 instantiations leave them out); C is not read when beta == 0 (it may hold NaN).
// C16 is a template argument, as in gemm_mma.cuh: the registers are fixed here (setmaxnreg), but
// a run-time test per output element cost instructions in the epilogue, which bounds small-k
// shapes, and spills in the tiles of 128 accumulators a thread (nvcc 13: 132-172 bytes).
//
// Block: 3 warpgroups (384 threads). Warpgroup 0 is the producer: after setmaxnreg.dec one thread
// issues the bulk tensor copies (TMA, cp.async.bulk.tensor) of the K tiles (128 bytes wide: 64
// 16-bit or 32 tf32 elements) of op(A) and op(B) into an ST-stage ring of 128-byte-swizzled
// shared tiles; each stage
// has a `full` mbarrier (the copies complete on it with expect_tx bytes) and an `empty` one (one
// arrival per consumer warp once its warpgroup MMAs have read the stage). Warpgroups 1 and 2 are
// consumers (setmaxnreg.inc): each owns BM/2 rows of the block tile and issues wgmma.mma_async
// m64nBNk16 (k8 in tf32) from shared memory (BM/128 of them per 32-byte K step), keeping one commit
// group in flight (wait_group 1) so that the tensor cores never wait for a stage release;
// accumulators stay in registers (BM * BN / 256 floats a thread).
//
// Layouts: an operand whose K is contiguous in memory (A with TA = 1, B with TB = 0) is K-major:
// one copy of a [rows][64] box per stage, descriptor stride 1024 bytes between 8-row groups, K
// steps of 32 bytes inside the swizzle atom. The others (A with TA = 0, B with TB = 1) are
// MN-major: [64 k][64 rows] boxes, BM/64 or BN/64 copies per stage 8 KiB apart (the descriptor's
// leading offset), 1024 bytes between 8-k groups, K steps of 2048 bytes, and the wgmma transpose
// bit set. Every tile is 1024-byte aligned (the 128-byte swizzle pattern repeats every 1024 bytes).
// tf32 wgmma has no transpose bit: both operands must be K-major (TA = 1, TB = 0), so the launcher
// first copies an MN-major (or misaligned) operand K-major into a workspace with
// ktune_wgmma_pack_tf32 below, inside the same call. A K-major tf32 row of 32 floats is 128 bytes,
// the bytes of a 16-bit row of 64: the swizzle, the box bytes, the 1024-byte 8-row stride and the
// 32-byte K step (one k8 = two 16-byte core-matrix columns) are those of the 16-bit kernel.
//
// Persistent: gridDim.x = min(tiles, SMs); block b takes tiles b, b + gridDim.x, ... in an order
// of GR-row groups (GR block rows swept along N, then the next group), batches last, so that the
// blocks running at once share their A and B panels in L2. The producer runs ahead into the next
// tile while consumers store the last one.
//
// Clusters (kind wgmmamc, ktune_gemm_wgmma_mc): the same kernel launched in clusters of 2 blocks
// that take adjacent N tiles of one M tile; each block's producer copies half of the common A
// tile's rows and multicasts them into both blocks' stages (A's L2 -> SM traffic halves), so a
// stage's `empty` barrier counts the consumer warps of both blocks (a consumer warp releases a
// stage in both), and each block's `full` barrier completes with the bytes of both halves and
// its own B tile. The two blocks walk the same units in lockstep (an odd N tile count leaves the
// second block of the edge cluster past the edge: it copies and multiplies but stores nothing).
//
// Split-K (kind wgmmasplit, ktune_gemm_wgmma_sk; SK = 1 of the cooperative body, one block, no
// staging): the work units are (tile, K slice) pairs, slice-major (unit u is slice u / tiles of
// tile u % tiles, the tiles in the order above), so that the blocks running at once share one
// slice of the operands in L2. Slice s of `splits` takes the K tiles [s * kt / splits,
// (s + 1) * kt / splits) of the kt = ceil(k / 64): sizes differ by one tile at most, and only
// kt < splits leaves a slice empty (the launcher refuses that; the kernel would store its zeros).
// The producer copies a unit's K tiles by coordinates (the last slice's last tile partial: TMA's
// zero fill), the consumers multiply them and store the raw FP32 sums (no alpha, beta) to the
// unit's packed m x n slice of the workspace, slice b * splits + s of batch b, which the split-K
// reduction (ktune_gemm_splitk_reduce, or ktune_gemm_splitk_reduce16 for 16-bit C) then sums into
// C = alpha * sum + beta * C.
//
// Edges: the tensor maps' bounds (m, n, k, batch) make TMA fill out-of-range elements with zeros,
// so partial M / N / K tiles multiply zeros; the epilogue stores only in-range elements.
// Leading dimensions, batch strides and base pointers must be multiples of 16 bytes (TMA): the
// launcher refuses others (gemm_wgmma_launch.hpp).
//
// Compiled at run time by NVRTC (no standard headers) for sm_90a, and ahead of time by nvcc with
// -gencode=arch=compute_90a,code=sm_90a; for any other target the body is empty (the launcher
// refuses devices other than sm_90).
#ifndef KTUNE_GEMM_WGMMA_CUH
#define KTUNE_GEMM_WGMMA_CUH

#include "../../common/cuda/wgmma_ptx.cuh"  // TMA, mbarriers, clusters, wgmma
#include "gemm_out16.cuh"                   // C in the input's 16-bit type

// Shared memory of one instantiation: ST stages of A (BM rows) and B (BN rows) tiles of 128 bytes
// a row (64 16-bit or 32 tf32 K elements), with TS (the TMA-store epilogue, kind wgmmats) two
// 8 KiB staging buffers per consumer warpgroup, the 2 * ST barriers, and slack to align the
// tiles to 1024 bytes.
template <int BM, int BN, int ST, int TS = 0>
struct KtuneWgmmaSmem {
  static constexpr int kA = BM * 128, kB = BN * 128;  // bytes of one stage's tiles
  static constexpr int kStage = TS ? 2 * 2 * 8192 : 0;
  static constexpr int kBytes = ST * (kA + kB) + kStage + 16 * ST + 1024;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Tile t of the persistent order: batch, block row and block column (see the header comment).
template <int GR>
__device__ __forceinline__ void ktune_wg_tile(long long t, long long tiles_m, long long tiles_n,
                                              int& batch, int& tm, int& tn) {
  const long long per_batch = tiles_m * tiles_n;
  batch = int(t / per_batch);
  const long long r = t - (long long)batch * per_batch;
  const long long group = r / (GR * tiles_n), first = group * GR;
  const long long rows = tiles_m - first < GR ? tiles_m - first : GR;
  const long long in = r - group * GR * tiles_n;
  tm = int(first + in % rows);
  tn = int(in / rows);
}

// The barriers of the ST-stage ring: `full` completes when a stage's copies have landed, `empty`
// after `consumers` warps have released it. One thread initializes them before a __syncthreads.
__device__ __forceinline__ void ktune_wg_init_ring(unsigned full, unsigned empty, int stages,
                                                   unsigned consumers) {
  for (int s = 0; s < stages; ++s) {
    ktune_wg_bar_init(full + 8 * s, 1);
    ktune_wg_bar_init(empty + 8 * s, consumers);
  }
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// The cluster tiles: a cluster of CL blocks takes CL adjacent N tiles of one M tile (CL = 1: one
// block, one tile), in the order of ktune_wg_tile over (tiles_m, ceil(tiles_n / CL)) tile groups.
// Cluster c (blockIdx.x / CL) takes units c, c + gridDim.x / CL, ...; the block of rank r the
// group's N tile CL * g + r, which at the N edge may be past the last tile (tn >= tiles_n: its
// loads are clamped to the last tile, its epilogue stores nothing).
template <int CL>
__device__ __forceinline__ long long ktune_wg_units(long long tiles_m, long long tiles_n,
                                                    long long batch) {
  return tiles_m * ((tiles_n + CL - 1) / CL) * batch;
}
template <int GR, int CL>
__device__ __forceinline__ void ktune_wg_unit_tile(long long u, long long tiles_m,
                                                   long long tiles_n, unsigned rank, int& batch,
                                                   int& tm, int& tn) {
  int group;
  ktune_wg_tile<GR>(u, tiles_m, (tiles_n + CL - 1) / CL, batch, tm, group);
  tn = group * CL + int(rank);
}

// Unit u's tile (its index among a slice's `per_slice` units, the return value) and its K tiles
// [first, first + count) of the k_tiles (SK = 0: the whole of K, the unit is the tile; SK = 1:
// slice u / per_slice of `splits`, see the header comment).
template <int SK>
__device__ __forceinline__ long long ktune_wg_unit_slice(long long u, long long per_slice,
                                                         int splits, int k_tiles, int& slice,
                                                         int& first, int& count) {
  if (!SK) {
    slice = 0, first = 0, count = k_tiles;
    return u;
  }
  slice = int(u / per_slice);
  first = int((long long)slice * k_tiles / splits);
  count = int((long long)(slice + 1) * k_tiles / splits) - first;
  return u - (long long)slice * per_slice;
}

// The next ring item's stage and phase parity (no division in the K loops: ST need not be a
// power of two).
template <int ST>
__device__ __forceinline__ void ktune_wg_next(unsigned& stage, unsigned& phase) {
  if (++stage == ST) {
    stage = 0;
    phase ^= 1;
  }
}

// The producer thread: for each unit of this block (see ktune_wg_units) in order, every K tile
// into the ring (item `it` in stage it % ST, phase it / ST) once its stage is empty: B's tile and,
// with CL = 1, A's; with clusters the block's 1/CL share of A's rows, multicast to every block of
// the cluster (each block's `full` barrier then awaits the bytes of every share, and its `empty`
// barrier the consumers of every block). SK: units of `splits` K slices, each copying its own
// K tiles (ktune_wg_unit_slice).
template <int BM, int BN, int ST, int GR, int PREC, int TA, int TB, int CL = 1, int SK = 0>
__device__ __forceinline__ void ktune_wg_produce(const KtuneTmaMap* map_a, const KtuneTmaMap* map_b,
                                                 long long units, long long tiles_m,
                                                 long long tiles_n, int k_tiles, unsigned tiles_a,
                                                 unsigned tiles_b, unsigned full, unsigned empty,
                                                 int splits = 1) {
  typedef KtuneWgmmaSmem<BM, BN, ST> S;
  constexpr int kKt = PREC == 1 ? 32 : 64;
  constexpr int kShare = BM / CL;  // rows of A this block copies
  const unsigned rank = CL == 1 ? 0u : ktune_wg_cluster_rank();
  unsigned s = 0, phase = 0;  // the ring position of item it: stage it % ST, parity it / ST
  const long long per_slice = SK ? units / splits : units;
  for (long long u = blockIdx.x / CL; u < units; u += gridDim.x / CL) {
    int b, tm, tn, slice, first, count;
    const long long t = ktune_wg_unit_slice<SK>(u, per_slice, splits, k_tiles, slice, first, count);
    ktune_wg_unit_tile<GR, CL>(t, tiles_m, tiles_n, rank, b, tm, tn);
    if (tn >= tiles_n) tn = int(tiles_n) - 1;  // past the N edge: any tile's bytes serve
    for (int kt = first; kt < first + count; ++kt, ktune_wg_next<ST>(s, phase)) {
      const unsigned bar = full + 8 * s;
      ktune_wg_bar_wait(empty + 8 * s, phase ^ 1);
      ktune_wg_bar_expect(bar, S::kA + S::kB);
      const unsigned da = tiles_a + s * S::kA, db = tiles_b + s * S::kB;
      if (CL > 1) {
        const unsigned short all = (unsigned short)((1u << CL) - 1);
        const int row = tm * BM + int(rank) * kShare;
        if (TA) {
          ktune_wg_tma_load_multicast(da + rank * kShare * 128, map_a, kt * kKt, row, b, bar, all);
        } else {
#pragma unroll
          for (int j = 0; j < kShare / 64; ++j)
            ktune_wg_tma_load_multicast(da + (rank * (kShare / 64) + j) * 8192, map_a, row + j * 64,
                                        kt * kKt, b, bar, all);
        }
      } else if (TA) {
        ktune_wg_tma_load(da, map_a, kt * kKt, tm * BM, b, bar);
      } else {
#pragma unroll
        for (int j = 0; j < BM / 64; ++j)
          ktune_wg_tma_load(da + j * 8192, map_a, tm * BM + j * 64, kt * kKt, b, bar);
      }
      if (!TB) {
        ktune_wg_tma_load(db, map_b, kt * kKt, tn * BN, b, bar);
      } else {
#pragma unroll
        for (int j = 0; j < BN / 64; ++j)
          ktune_wg_tma_load(db + j * 8192, map_b, tn * BN + j * 64, kt * kKt, b, bar);
      }
    }
  }
}

// One consumer warpgroup's K loop over the ring items it .. it + k_tiles - 1: MI m64 MMAs per
// 32-byte K step of the tile rows first_row .. first_row + 64 * MI - 1, one commit group in
// flight (wait_group 1), each stage released (one arrival per warp) once the group after it is
// issued; the last group is left in flight (ktune_wg_drain). acc is zeroed first. The
// descriptors' low words of stage 0 are computed once: a stage, a K step and an m64 block add
// constants (ktune_wg_desc_lo), and the ring position advances by ktune_wg_next, so the loop
// holds the waits, the MMAs, the release and a few adds.
template <int MI, int BN, int ST, int SA, int SB, int PREC, int TA, int TB, int CL = 1>
__device__ __forceinline__ void ktune_wg_mainloop(float (&acc)[MI][BN / 2], int first_row,
                                                  int k_tiles, unsigned it, unsigned tiles_a,
                                                  unsigned tiles_b, unsigned full, unsigned empty,
                                                  int lane) {
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < BN / 2; ++j) acc[i][j] = 0.0f;
  // Rows are 128 bytes apart in either layout (K-major: one row a line; MN-major: 64-row boxes
  // of 8 KiB), so an m64 block is 8 KiB on. K-major: 16-byte leading offset, K steps of 32 bytes;
  // MN-major: 8 KiB leading offset (the next 64-row box), K steps of 2048 bytes (16 k of 128).
  constexpr unsigned kHi = ktune_wg_desc_hi(1024);
  const unsigned a0 = ktune_wg_desc_lo(tiles_a + unsigned(first_row) * 128u, TA ? 16 : 8192);
  const unsigned b0 = ktune_wg_desc_lo(tiles_b, TB ? 8192 : 16);
  unsigned s = it % ST, phase = (it / ST) & 1, prev = 0;
  for (int kt = 0; kt < k_tiles; ++kt) {
    ktune_wg_bar_wait(full + 8 * s, phase);
    // A fence every K tile: with one fence before the loop only (what the PTX rules allow), ptxas
    // injected fences itself (C7519) and serialized the ping-pong kernel's MMAs (wgmma-lean).
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const unsigned la = a0 + s * unsigned(SA >> 4), lb = b0 + s * unsigned(SB >> 4);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {  // 32-byte K steps: k16 of 16-bit, k8 of tf32
      const unsigned long long db = ktune_wg_desc_pair(lb + (TB ? kk * 2048 : kk * 32) / 16, kHi);
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        const unsigned long long da =
            ktune_wg_desc_pair(la + (i * 8192 + (TA ? kk * 32 : kk * 2048)) / 16, kHi);
        ktune_wgmma<BN, PREC, 1 - TA, TB>(acc[i], da, db);  // transpose bit: MN-major
      }
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    // The group before this one has finished reading its stage: release that stage.
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    if (kt > 0 && lane == 0) ktune_wg_release<CL>(empty + 8 * prev);
    prev = s;
    ktune_wg_next<ST>(s, phase);
  }
}

// After ktune_wg_mainloop of the items .. end - 1: waits for the last MMAs and releases the last
// stage.
template <int ST, int CL = 1>
__device__ __forceinline__ void ktune_wg_drain(int k_tiles, unsigned end, unsigned empty,
                                               int lane) {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  if (k_tiles > 0 && lane == 0) ktune_wg_release<CL>(empty + 8 * ((end + ST - 1) % ST));
}

// Named barriers 1 and 2 (0 is __syncthreads) of the ping-pong kernel's two consumer warpgroups
// (256 threads: one arrives, the other waits).
__device__ __forceinline__ void ktune_wg_turn_arrive(int id) {
  asm volatile("bar.arrive %0, 256;\n" ::"r"(id) : "memory");
}
__device__ __forceinline__ void ktune_wg_turn_wait(int id) {
  asm volatile("bar.sync %0, 256;\n" ::"r"(id) : "memory");
}

// A warpgroup's epilogue: accumulator element (r, col) of an m64nN MMA is r = 16 * warp + lane /
// 4 (+ 8 for the upper half of each quad), col = 8 * j + 2 * (lane % 4) (+ 1); rows from row_base,
// columns from col_base; only in-range elements are stored, into C at c + c_offset elements
// (floats, or with C16 PREC's 16-bit type).
template <int MI, int BN, int PREC, int C16>
__device__ __forceinline__ void ktune_wg_store(const float (&acc)[MI][BN / 2], long long row_base,
                                               long long col_base, long long m, long long n,
                                               float alpha, float beta, void* c, long long c_offset,
                                               long long ldc, int warp, int lane) {
  // One running index, of the thread's first row in its column pair j: the other elements are
  // ldc (x) and constants (64 * i + 8 * h) away, and the bounds tests compare with constants, so a
  // store costs no 64-bit multiply (col * ldc + row per element took one in each guarded store;
  // nvcc 13, sm_90a: ktune_gemm_wgmma<128,64,6,8,2,0,0> 2384 -> 1968 SASS instructions).
  const long long row0 = row_base + warp * 16 + lane / 4, col0 = col_base + (lane & 3) * 2;
  const long long rows_left = m - row0, cols_left = n - col0;
  long long column = c_offset + col0 * ldc + row0;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j, column += 8 * ldc) {
#pragma unroll
    for (int x = 0; x < 2; ++x) {
      if (8 * j + x >= cols_left) continue;
#pragma unroll
      for (int i = 0; i < MI; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          if (64 * i + 8 * h < rows_left)
            ktune_out_store<PREC>(c, column + x * ldc + 64 * i + 8 * h, C16, beta,
                                  alpha * acc[i][j * 4 + 2 * h + x]);
        }
      }
    }
  }
}

// The TMA-store epilogue of one consumer warpgroup (kind wgmmats, beta == 0): its MI x 64 rows
// of the tile in phases of 64 rows x 32 columns, alternating between the warpgroup's two 8 KiB
// buffers at `stage`. A phase's buffer holds two boxes of the C tensor map (32 rows x 32 columns,
// column-major: a column of 32 floats is one 128-byte line, 128-byte swizzled: the 16-byte chunk
// r / 4 of line c sits at chunk (r / 4) ^ (c % 8)), warps 0-1 writing the first and 2-3 the
// second; with that swizzle a warp's 32 scalar writes land in 32 distinct banks. Then each thread
// fences (the copy engine reads what it wrote), the warpgroup syncs, and its first thread issues
// the two bulk tensor stores (TMA clips what lies past m, n) and commits them as one group. A
// buffer is rewritten once the group that read it two phases before is done reading (wait_group
// .read 1), so the last stores of a tile run on while the next tile's K loop starts.
//
// TS = 2 (kind wgmmacs): the same buffers, but after the barrier the warpgroup's own threads
// store them: each 16-byte chunk (4 rows of a column) by one thread, a warp's 32 chunks the 4
// whole 128-byte columns of 4 lines (coalesced), so that the copy engine only loads; c_batch
// is C's batch matrix (ldc and it on the 16-byte grid). Partial chunks at the M edge go element
// by element.
template <int MI, int BN, int TS>
__device__ __forceinline__ void ktune_wg_store_staged(const float (&acc)[MI][BN / 2],
                                                      const KtuneTmaMap* map_c, int row_base,
                                                      int col_base, int batch, float alpha,
                                                      unsigned stage, int bar_id, int warp,
                                                      int lane, bool leader, float* c_batch,
                                                      long long ldc, long long m, long long n) {
#pragma unroll
  for (int i = 0; i < MI; ++i) {
#pragma unroll
    for (int h = 0; h < BN / 32; ++h) {
      const unsigned buf = stage + unsigned((i * (BN / 32) + h) & 1) * 8192u;
      if (TS == 1 && leader) ktune_wg_bulk_wait_read<1>();
      ktune_wg_warpgroup_sync(bar_id);
      const unsigned box = buf + unsigned(warp >> 1) * 4096u;
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int r = 16 * (warp & 1) + lane / 4 + 8 * (e >> 1);  // row in the box
          const int col = jj * 8 + (lane & 3) * 2 + (e & 1);        // column in the box
          const unsigned off = unsigned(col * 128 + (((r >> 2) ^ (col & 7)) << 4) + (r & 3) * 4);
          ktune_wg_st_shared(box + off, alpha * acc[i][(4 * h + jj) * 4 + e]);
        }
      }
      if (TS == 1) ktune_wg_fence_async_smem();
      ktune_wg_warpgroup_sync(bar_id);
      if (TS == 1) {
        if (leader) {
          ktune_wg_tma_store(map_c, buf, row_base + i * 64, col_base + 32 * h, batch);
          ktune_wg_tma_store(map_c, buf + 4096, row_base + i * 64 + 32, col_base + 32 * h, batch);
          ktune_wg_bulk_commit();
        }
      } else {
        const int t = warp * 32 + lane;
#pragma unroll
        for (int q = 0; q < 4; ++q) {  // chunk id: box (256 chunks), column (8), chunk (row / 4)
          const int id = t + 128 * q, bx = id >> 8, col = (id >> 3) & 31, lc = id & 7;
          float4 v;
          asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                       : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                       : "r"(buf + unsigned(bx * 4096 + col * 128 + ((lc ^ (col & 7)) << 4)))
                       : "memory");
          const long long row = row_base + i * 64 + bx * 32 + lc * 4;
          const long long cc = col_base + 32 * h + col;
          if (cc < n) {
            float* p = c_batch + cc * ldc + row;
            if (row + 3 < m) {
              *reinterpret_cast<float4*>(p) = v;
            } else {
              if (row < m) p[0] = v.x;
              if (row + 1 < m) p[1] = v.y;
              if (row + 2 < m) p[2] = v.z;
            }
          }
        }
      }
    }
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// The cooperative kernel's body (kinds wgmma, wgmmatf32: CL = 1; wgmmamc: clusters of CL blocks
// sharing A's tile, see ktune_wg_produce): the ring's barriers (a stage's `empty` one counts the
// 8 consumer warps of every block of the cluster), then the producer and consumer warpgroups
// over the block's units, then (clusters) a cluster barrier so that no block exits while a peer
// may still arrive on its barriers or multicast into its shared memory. TS (kinds wgmmats,
// wgmmacs): the tiles are staged (ktune_wg_store_staged) when tma_c is set (the launcher sets it
// for beta == 0 and C on TMA's 16-byte grid), else stored by ktune_wg_store; with C16 always the
// latter (the staging is FP32). SK (kind wgmmasplit): units of `splits` K slices, each stored
// into its slice of C = the workspace, stride_c apart (the caller passes the packed m x n slices:
// ldc m, stride_c m * n, alpha 1, beta 0).
template <int BM, int BN, int ST, int GR, int PREC, int TA, int TB, int C16, int CL, int TS = 0,
          int SK = 0>
__device__ __forceinline__ void ktune_wg_cooperative(
    const KtuneTmaMap* map_a, const KtuneTmaMap* map_b, long long m, long long n, long long k,
    long long batch, float alpha, float beta, void* c, long long ldc, long long stride_c,
    const KtuneTmaMap* map_c = nullptr, int tma_c = 0, int splits = 1) {
  static_assert(C16 == 0 || PREC != 1, "16-bit C needs 16-bit inputs");
  static_assert(SK == 0 || (CL == 1 && TS == 0 && C16 == 0 && PREC != 1),
                "split-K: one block, FP32 partials, 16-bit inputs");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(BM == 128 || BM == 256, "two consumer warpgroups of 64 or 128 rows");
  static_assert(BN == 64 || BN == 128 || BN == 256, "wgmma N of 64, 128 or 256");
  static_assert(BM * BN <= 128 * 256, "at most 128 accumulators a thread");
  static_assert(PREC != 1 || (TA == 1 && TB == 0), "tf32 wgmma reads K-major A and B only");
  static_assert(CL == 1 || (CL == 2 && BM / CL % 64 == 0), "A's shares of whole 64-row boxes");
  constexpr int kKt = PREC == 1 ? 32 : 64;  // K elements of a tile: one 128-byte swizzle row
  typedef KtuneWgmmaSmem<BM, BN, ST, TS> S;
  constexpr int kMi = BM / 128;  // m64 MMAs per consumer warpgroup and K step
  constexpr bool kStaged = TS != 0 && C16 == 0;
  extern __shared__ unsigned char ktune_wg_smem[];
  // Every block of a cluster has the same layout (its dynamic shared memory at the same offset),
  // so a multicast box lands at the same address in each.
  const unsigned base = (ktune_wg_smem_address(ktune_wg_smem) + 1023u) & ~1023u;
  const unsigned tiles_a = base, tiles_b = base + ST * S::kA, stage = tiles_b + ST * S::kB;
  const unsigned full = stage + S::kStage, empty = full + 8 * ST;
  const int tid = threadIdx.x;
  if (tid == 0) ktune_wg_init_ring(full, empty, ST, 8 * CL);  // 8 consumer warps a block
  if (CL == 1)
    __syncthreads();
  else
    ktune_wg_cluster_sync();
  const long long tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const long long per_slice = ktune_wg_units<CL>(tiles_m, tiles_n, batch);
  const long long units = SK ? per_slice * splits : per_slice;
  const int k_tiles = int((k + kKt - 1) / kKt);

  if (tid < 128) {  // producer warpgroup: one thread issues every copy
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0)
      ktune_wg_produce<BM, BN, ST, GR, PREC, TA, TB, CL, SK>(
          map_a, map_b, units, tiles_m, tiles_n, k_tiles, tiles_a, tiles_b, full, empty, splits);
  } else {  // consumer warpgroups 1 and 2: BM / 2 rows of every tile each
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int cw = tid / 128 - 1, warp = (tid / 32) & 3, lane = tid & 31;
    const unsigned rank = CL == 1 ? 0u : ktune_wg_cluster_rank();
    float acc[kMi][BN / 2];
    unsigned it = 0;
    for (long long u = blockIdx.x / CL; u < units; u += gridDim.x / CL) {
      int b, tm, tn, slice, first, count;
      const long long t =
          ktune_wg_unit_slice<SK>(u, per_slice, splits, k_tiles, slice, first, count);
      ktune_wg_unit_tile<GR, CL>(t, tiles_m, tiles_n, rank, b, tm, tn);
      ktune_wg_mainloop<kMi, BN, ST, S::kA, S::kB, PREC, TA, TB, CL>(
          acc, cw * (BM / 2), count, it, tiles_a, tiles_b, full, empty, lane);
      ktune_wg_drain<ST, CL>(count, it + count, empty, lane);
      it += unsigned(count);
      // Past the N edge (tn >= tiles_n) every column is out of range: nothing is stored.
      if (kStaged && tma_c) {
        if (tn < tiles_n)
          ktune_wg_store_staged<kMi, BN, TS>(
              acc, map_c, tm * BM + cw * (BM / 2), tn * BN, b, alpha, stage + unsigned(cw) * 16384u,
              1 + cw, warp, lane, (tid & 127) == 0,
              static_cast<float*>(c) + (long long)b * stride_c, ldc, m, n);
      } else {
        // Split-K: batch b's slice `slice` of the workspace.
        const long long matrix = SK ? (long long)b * splits + slice : (long long)b;
        ktune_wg_store<kMi, BN, PREC, C16>(acc, (long long)tm * BM + cw * (BM / 2),
                                           (long long)tn * BN, m, n, alpha, beta, c,
                                           matrix * stride_c, ldc, warp, lane);
      }
    }
    // The shared memory the stores read must outlive them: wait before the block exits.
    if (kStaged && TS == 1 && tma_c && (tid & 127) == 0) ktune_wg_bulk_wait_all();
  }
  if (CL > 1) ktune_wg_cluster_sync();
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

// The cooperative kernels, one signature (C16: C in PREC's 16-bit type, see the top):
// - ktune_gemm_wgmma (kinds wgmma, wgmmatf32): grid min(tiles, SMs) blocks of 384 threads;
// - ktune_gemm_wgmma_mc (kind wgmmamc, 16-bit): launched in clusters of 2 blocks along N (the
//   launcher sets the cluster dimension; gridDim.x even, at most the clusters that fit at once),
//   which take adjacent N tiles of one M tile and share its A tile: each block copies BM / 2 of
//   its rows and multicasts them to both.
// Dynamic shared memory KtuneWgmmaSmem<...>::kBytes. map_a / map_b: 3-d tensor maps (innermost
// dimension first: K then rows for a K-major operand, rows then K for an MN-major one; batch
// last) with 64 x BM (64 x BM / 2 in clusters) / 64 x BN boxes (K-major) or 64 x 64 (MN-major)
// and 128-byte swizzling (built by gemm_wgmma_launch.hpp).
#define KTUNE_WGMMA_COOPERATIVE_KERNEL(NAME, CL)                                                 \
  template <int BM, int BN, int ST, int GR, int PREC, int TA, int TB, int C16 = 0>               \
  __global__ void __launch_bounds__(384, 1)                                                      \
      NAME(const __grid_constant__ KtuneTmaMap map_a, const __grid_constant__ KtuneTmaMap map_b, \
           long long m, long long n, long long k, long long batch, float alpha, float beta,      \
           void* __restrict__ c, long long ldc, long long stride_c) {                            \
    ktune_wg_cooperative<BM, BN, ST, GR, PREC, TA, TB, C16, CL>(&map_a, &map_b, m, n, k, batch,  \
                                                                alpha, beta, c, ldc, stride_c);  \
  }
KTUNE_WGMMA_COOPERATIVE_KERNEL(ktune_gemm_wgmma, 1)
KTUNE_WGMMA_COOPERATIVE_KERNEL(ktune_gemm_wgmma_mc, 2)

// The cooperative kernels with the TMA-store epilogue (kind wgmmats: ktune_gemm_wgmma_ts one
// block, ktune_gemm_wgmma_mcts clusters of 2 as ktune_gemm_wgmma_mc): the same parameters, then
// map_c, C's 3-d tensor map (rows, columns, batch; 32 x 32 boxes of floats, 128-byte swizzle),
// and tma_c (0: the launcher could not map C, or beta != 0: the plain epilogue, which the C16
// instantiations always take).
#define KTUNE_WGMMA_TS_KERNEL(NAME, CL, TS)                                                      \
  template <int BM, int BN, int ST, int GR, int PREC, int TA, int TB, int C16 = 0>               \
  __global__ void __launch_bounds__(384, 1)                                                      \
      NAME(const __grid_constant__ KtuneTmaMap map_a, const __grid_constant__ KtuneTmaMap map_b, \
           long long m, long long n, long long k, long long batch, float alpha, float beta,      \
           void* __restrict__ c, long long ldc, long long stride_c,                              \
           const __grid_constant__ KtuneTmaMap map_c, int tma_c) {                               \
    ktune_wg_cooperative<BM, BN, ST, GR, PREC, TA, TB, C16, CL, TS>(                             \
        &map_a, &map_b, m, n, k, batch, alpha, beta, c, ldc, stride_c, &map_c, tma_c);           \
  }
KTUNE_WGMMA_TS_KERNEL(ktune_gemm_wgmma_ts, 1, 1)
KTUNE_WGMMA_TS_KERNEL(ktune_gemm_wgmma_mcts, 2, 1)
// Kind wgmmacs: the same staging, stored by the consumer threads (TS = 2; map_c unused, tma_c:
// beta == 0 and C on the 16-byte grid).
KTUNE_WGMMA_TS_KERNEL(ktune_gemm_wgmma_cs, 1, 2)
KTUNE_WGMMA_TS_KERNEL(ktune_gemm_wgmma_mccs, 2, 2)

// Split-K (kind wgmmasplit, 16-bit inputs): the cooperative kernel over (tile, K slice) units (see
// the header comment), grid min(units, SMs) blocks of 384 threads, the same maps and shared
// memory; partial holds batch * splits packed m x n FP32 slices (the split-K reduction's layout).
// No C16: the reduction kernel stores C in its type.
template <int BM, int BN, int ST, int GR, int PREC, int TA, int TB>
__global__ void __launch_bounds__(384, 1)
    ktune_gemm_wgmma_sk(const __grid_constant__ KtuneTmaMap map_a,
                        const __grid_constant__ KtuneTmaMap map_b, long long m, long long n,
                        long long k, long long batch, int splits, float* __restrict__ partial) {
  ktune_wg_cooperative<BM, BN, ST, GR, PREC, TA, TB, 0, 1, 0, 1>(
      &map_a, &map_b, m, n, k, batch, 1.0f, 0.0f, partial, m, m * n, nullptr, 0, splits);
}

// Ping-pong (kind wgmmapp, 16-bit): the same producer and ring, but each consumer warpgroup owns
// whole BM x BN tiles (BM of 64 or 128: BM / 64 m64 MMAs a K step), warpgroup 1 the block's tiles
// 0, 2, 4, ... and warpgroup 2 tiles 1, 3, ...: since the ring is filled in tile order, one
// warpgroup's K loop runs while the other stores its tile, so the tensor cores do not wait for
// the epilogue (the cooperative kernel above stores with both warpgroups at once). A stage is
// released by the 4 warps of the warpgroup that read it. The K loops take turns (named barriers:
// a warpgroup starts a tile's once the other has issued the previous tile's), since a warpgroup
// that waited on the ring items of a tile two ahead could see a `full` barrier two phases
// behind, of the same parity (wgmma_pingpong_model.py checks the protocol). Same grid, maps,
// shared memory and C16.
template <int BM, int BN, int ST, int GR, int PREC, int TA, int TB, int C16 = 0>
__global__ void __launch_bounds__(384, 1)
    ktune_gemm_wgmma_pp(const __grid_constant__ KtuneTmaMap map_a,
                        const __grid_constant__ KtuneTmaMap map_b, long long m, long long n,
                        long long k, long long batch, float alpha, float beta, void* __restrict__ c,
                        long long ldc, long long stride_c) {
  static_assert(C16 == 0 || PREC != 1, "16-bit C needs 16-bit inputs");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(BM == 64 || BM == 128, "one consumer warpgroup of 64 or 128 rows a tile");
  static_assert(BN == 64 || BN == 128 || BN == 256, "wgmma N of 64, 128 or 256");
  static_assert(BM * BN <= 128 * 128, "at most 128 accumulators a thread");
  static_assert(PREC != 1 || (TA == 1 && TB == 0), "tf32 wgmma reads K-major A and B only");
  constexpr int kKt = PREC == 1 ? 32 : 64;
  typedef KtuneWgmmaSmem<BM, BN, ST> S;
  constexpr int kMi = BM / 64;
  extern __shared__ unsigned char ktune_wg_smem[];
  const unsigned base = (ktune_wg_smem_address(ktune_wg_smem) + 1023u) & ~1023u;
  const unsigned tiles_a = base, tiles_b = base + ST * S::kA, full = tiles_b + ST * S::kB;
  const unsigned empty = full + 8 * ST;
  const int tid = threadIdx.x;
  if (tid == 0) ktune_wg_init_ring(full, empty, ST, 4);  // the reading warpgroup's 4 warps
  __syncthreads();
  const long long tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const long long tiles = tiles_m * tiles_n * batch;
  const int k_tiles = int((k + kKt - 1) / kKt);

  if (tid < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0)
      ktune_wg_produce<BM, BN, ST, GR, PREC, TA, TB>(&map_a, &map_b, tiles, tiles_m, tiles_n,
                                                     k_tiles, tiles_a, tiles_b, full, empty);
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int cw = tid / 128 - 1, warp = (tid / 32) & 3, lane = tid & 31;
    float acc[kMi][BN / 2];
    // The block's tile j (of blockIdx.x + j * gridDim.x) holds ring items j * k_tiles onwards.
    unsigned it = unsigned(cw) * unsigned(k_tiles);
    for (long long t = blockIdx.x + cw * (long long)gridDim.x; t < tiles;
         t += 2LL * gridDim.x, it += 2u * unsigned(k_tiles)) {
      int b, tm, tn;
      ktune_wg_tile<GR>(t, tiles_m, tiles_n, b, tm, tn);
      // A warpgroup waits for the other to have issued its K loop of the block's previous tile:
      // the ring items before this tile's are then filled, so that a `full` barrier is at most
      // one phase behind the item awaited (its parity names that item); and the K loops take
      // turns on the tensor cores.
      if (t != blockIdx.x) ktune_wg_turn_wait(2 - cw);
      ktune_wg_mainloop<kMi, BN, ST, S::kA, S::kB, PREC, TA, TB>(acc, 0, k_tiles, it, tiles_a,
                                                                 tiles_b, full, empty, lane);
      if (t + gridDim.x < tiles) ktune_wg_turn_arrive(1 + cw);  // the block's next tile's turn
      ktune_wg_drain<ST>(k_tiles, it + k_tiles, empty, lane);
      ktune_wg_store<kMi, BN, PREC, C16>(acc, (long long)tm * BM, (long long)tn * BN, m, n, alpha,
                                         beta, c, (long long)b * stride_c, ldc, warp, lane);
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

// The tf32 path's operand copy (any architecture): dst holds `rows` lines of k floats, line r at
// dst + b * rows * ldw + r * ldw (ldw a multiple of 4: TMA's 16-byte grid), from src holding
// element (r, kk) of batch b at src[b * stride + r * ld + kk] (K_CONTIG = 1: a K-major operand
// off the 16-byte grid) or src[b * stride + kk * ld + r] (K_CONTIG = 0: MN-major, transposed
// through a padded shared tile so that reads and writes both coalesce). 32 x 8 threads, any grid.
template <int K_CONTIG>
__global__ void __launch_bounds__(256)
    ktune_wgmma_pack_tf32(const float* src, long long ld, long long stride, long long rows,
                          long long k, long long batch, float* dst, long long ldw) {
  __shared__ float tile[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long tiles_r = (rows + 31) / 32, tiles_k = (k + 31) / 32;
  const long long per_batch = tiles_r * tiles_k, total = per_batch * batch;
  for (long long t = blockIdx.x; t < total; t += gridDim.x) {
    const long long b = t / per_batch, rest = t - b * per_batch;
    const long long r0 = rest / tiles_k * 32, k0 = rest % tiles_k * 32;
    const float* s = src + b * stride;
    for (int i = ty; i < 32; i += 8) {
      if (K_CONTIG) {  // lanes along k
        const long long r = r0 + i, kk = k0 + tx;
        if (r < rows && kk < k) tile[i][tx] = s[r * ld + kk];
      } else {  // lanes along rows
        const long long r = r0 + tx, kk = k0 + i;
        if (r < rows && kk < k) tile[tx][i] = s[kk * ld + r];
      }
    }
    __syncthreads();
    float* d = dst + b * rows * ldw;
    for (int i = ty; i < 32; i += 8) {
      const long long r = r0 + i, kk = k0 + tx;
      if (r < rows && kk < k) d[r * ldw + kk] = tile[i][tx];
    }
    __syncthreads();
  }
}

#endif  // KTUNE_GEMM_WGMMA_CUH
