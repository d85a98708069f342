// Warp-tiled SIMT FP32 GEMM (kind `warp` of the GEMM family) in the CUTLASS manner, column-major
// BLAS semantics  C = alpha * op(A) * op(B) + beta * C  with strided batches; C is not read when
// beta == 0, and A and B are not read when alpha == 0 (BLAS semantics).
//
// Hierarchy: a block computes a BM x BN tile of C with (BM/WM) * (BN/WN) warps; a warp computes a
// WM x WN tile with its 32 lanes laid out LM x LN (LM = WM/TM lanes along M, lane-major along M
// so that neighbouring lanes own neighbouring rows); a lane owns a TM x TN register tile.
//
// Main loop: a ST-stage cp.async pipeline (sm_80+) copies K tiles of op(A) (BM x BK) and op(B)
// (BK x BN) from global to shared memory without passing through registers; ST - 1 tiles are in
// flight while one is multiplied, one barrier per K tile. Both operands are stored K-major in
// shared memory ([BK][ROWS + 4]), so that for each k a lane reads its TM (TN) fragment values
// with TM/4 (TN/4) 16-byte loads and the inner loop is the same for every transpose:
//   - an operand whose rows are contiguous in global memory (A with TA = 0, B with TB = 1) is
//     copied in 16-byte chunks along the rows (4-byte copies with zero fill at ragged edges or
//     when the layout is not 16-byte aligned);
//   - a K-contiguous operand (A with TA = 1, B with TB = 0) is transposed on the way. Interior
//     tiles of a 16-byte aligned launch are staged through registers: one 16-byte global load
//     of 4 consecutive k per thread, issued before the current tile is multiplied and stored as
//     4 words to shared memory after it (the load's latency hides behind the FMAs, and a tile
//     costs a quarter of the copy instructions of 4-byte cp.async). Edge tiles and unaligned
//     launches copy one element per 4-byte cp.async, consecutive threads taking consecutive k of
//     a row (coalesced reads).
// A lane owns TM/4 groups of 4 consecutive rows, the groups LM*4 rows apart (columns likewise),
// so the lanes of a quarter warp read neighbouring 16-byte words of shared memory (no bank
// conflicts) and the epilogue writes 16 bytes at a time. The padding of 4 floats keeps every
// row 16-byte aligned.
//
// Rasterization: the blocks of one batch entry / split are numbered along a 1-D grid and mapped
// to tiles in groups of GR block rows (GR consecutive blocks share a column tile of B and walk
// down M; the next group reuses the same A rows), which keeps the working set of concurrently
// running blocks small for L2. GR = 1 is plain column-major order.
//
// Split-K (splits > 1): as ktune_gemm_tiled — split s sums K range [s*k_chunk, (s+1)*k_chunk),
// writes raw sums into partial[z*m*n + j*m + i], and ktune_gemm_splitk_reduce (gemm_tiled.cuh)
// forms C.
//
// Launch (gemm_warp_launch.hpp): blockDim.x = 32 * (BM/WM) * (BN/WN); gridDim = (ceil(m/BM) *
// ceil(n/BN), 1, batch * splits), blockIdx.z = batch_index * splits + split; dynamic shared
// memory ktune_warp_smem_bytes<...>() (opted in above 48 KiB). Requires m, n, batch >= 1.
//
// Compiled at run time by NVRTC (no standard headers) and ahead of time by nvcc in the deployed
// library.
#ifndef KTUNE_GEMM_WARP_CUH
#define KTUNE_GEMM_WARP_CUH

#include "../../common/cuda/gemm_epilogue.cuh"  // a shared building block
#include "../../common/cuda/mma_ptx.cuh"        // ktune_smem_address, ktune_cp_async16

// cp.async with zero fill: src_bytes < size copies src_bytes and zeroes the rest (0: no read);
// the 16-byte copy and shared addresses are mma_ptx.cuh's.
__device__ __forceinline__ void ktune_warp_copy4(unsigned dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void ktune_warp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void ktune_warp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// One operand tile of ROWS (the M or N side) x BK, stored K-major in shared memory as
// [BK][ROWS + 4]. K_CONTIG == 0: element (r, p) at src[r + p * ld]; K_CONTIG == 1: at
// src[p + r * ld].
template <int ROWS, int BK, int THREADS, int K_CONTIG>
struct KtuneWarpOperand {
  static constexpr int kStride = ROWS + 4;      // floats per k in shared memory
  static constexpr int kFloats = BK * kStride;  // one stage
  // Copies per tile: 16-byte chunks along the rows, or single elements (K_CONTIG).
  static constexpr int kCopies = K_CONTIG ? ROWS * BK : ROWS * BK / 4;
  static constexpr int kPerThread = (kCopies + THREADS - 1) / THREADS;
  static_assert(ROWS % 4 == 0, "rows are whole 16-byte chunks");

  // Issues the copies of the tile whose element (0, 0) is src into smem (this stage).
  // rows_left / k_left: rows / k indices from the origin inside the matrix; vec_ok: every
  // 16-byte chunk of the launch is aligned in global memory; safe: a valid address (zero fill
  // reads nothing from it).
  static __device__ __forceinline__ void load(float* smem, const float* src, long long ld,
                                              long long rows_left, long long k_left, int tid,
                                              bool vec_ok, const float* safe) {
    // Interior tiles (uniform across the block) need no bounds checks.
    const bool interior = rows_left >= ROWS && k_left >= BK && (K_CONTIG || vec_ok);
#pragma unroll
    for (int l = 0; l < kPerThread; ++l) {
      const int copy = tid + l * THREADS;
      if (kCopies % THREADS != 0 && copy >= kCopies) break;
      if (K_CONTIG) {  // element (r, p): consecutive threads take consecutive k
        const int r = copy / BK, p = copy % BK;
        const unsigned dst = ktune_smem_address(smem + p * kStride + r);
        const bool inside = interior || (r < rows_left && p < k_left);
        ktune_warp_copy4(dst, inside ? src + (long long)r * ld + p : safe, inside ? 4 : 0);
        continue;
      }
      const int p = copy / (ROWS / 4), r = (copy % (ROWS / 4)) * 4;  // chunk of rows r..r+3
      const unsigned dst = ktune_smem_address(smem + p * kStride + r);
      const float* at = src + r + (long long)p * ld;
      if (interior) {
        ktune_cp_async16(dst, at, 16);
        continue;
      }
      const long long along = rows_left - r;
      const int inside = p >= k_left || along <= 0 ? 0 : (along >= 4 ? 4 : int(along));
      if (inside == 0) {
        ktune_cp_async16(dst, safe, 0);
      } else if (vec_ok && inside == 4) {
        ktune_cp_async16(dst, at, 16);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          ktune_warp_copy4(dst + 4 * e, e < inside ? at + e : safe, e < inside ? 4 : 0);
      }
    }
  }

  // An interior tile of a 16-byte aligned launch whose rows are contiguous (K_CONTIG == 0):
  // 16-byte copies only, no bounds.
  static __device__ __forceinline__ void load_interior(float* smem, const float* src, long long ld,
                                                       int tid) {
#pragma unroll
    for (int l = 0; l < kPerThread; ++l) {
      const int copy = tid + l * THREADS;
      if (kCopies % THREADS != 0 && copy >= kCopies) break;
      const int p = copy / (ROWS / 4), r = (copy % (ROWS / 4)) * 4;
      ktune_cp_async16(ktune_smem_address(smem + p * kStride + r), src + r + (long long)p * ld, 16);
    }
  }

  // Register staging of a K-contiguous operand (K_CONTIG == 1, interior tile, 16-byte aligned):
  // chunk c = (row r, k 4q .. 4q + 3); consecutive threads take consecutive chunks of a row, so
  // a warp reads whole 32-byte sectors. Its transposed 4-byte stores hit 32 distinct banks for
  // BK = 8 and are 2-way conflicted for BK = 16 (rows are ROWS + 4 floats apart: chunks q and
  // q + 2 share banks), a few stores a tile against TM * TN * BK FMAs.
  static constexpr int kChunks = ROWS * BK / 4;
  static constexpr int kStaged = (kChunks + THREADS - 1) / THREADS;  // chunks per thread
  struct Staged {
    float4 v[kStaged];
  };
  static __device__ __forceinline__ bool stageable(long long rows_left, long long k_left,
                                                   bool vec_ok) {
    return K_CONTIG && vec_ok && rows_left >= ROWS && k_left >= BK;
  }
  static __device__ __forceinline__ void fetch(Staged& staged, const float* src, long long ld,
                                               int tid) {
#pragma unroll
    for (int l = 0; l < kStaged; ++l) {
      const int chunk = tid + l * THREADS;
      if (kChunks % THREADS != 0 && chunk >= kChunks) break;
      const int r = chunk / (BK / 4), q = chunk % (BK / 4);
      const float* at = src + (long long)r * ld + 4 * q;
      float4 x;
      asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                   : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
                   : "l"(at));
      staged.v[l] = x;
    }
  }
  static __device__ __forceinline__ void store(float* smem, const Staged& staged, int tid) {
#pragma unroll
    for (int l = 0; l < kStaged; ++l) {
      const int chunk = tid + l * THREADS;
      if (kChunks % THREADS != 0 && chunk >= kChunks) break;
      const int r = chunk / (BK / 4), q = chunk % (BK / 4);
      float* at = smem + 4 * q * kStride + r;
      at[0] = staged.v[l].x;
      at[kStride] = staged.v[l].y;
      at[2 * kStride] = staged.v[l].z;
      at[3 * kStride] = staged.v[l].w;
    }
  }
};

// Bytes of dynamic shared memory of one instantiation (host and device).
template <int BM, int BN, int BK, int ST>
__host__ __device__ constexpr int ktune_warp_smem_bytes() {
  return ST * 4 * BK * (BM + 4 + BN + 4);
}

// At most 128 registers a thread (the minimum block count of the launch bounds): two 256-thread
// blocks per SM. Left free, nvcc gave 8 x 8 thread tiles 130-191 registers and so one block per
// SM (12.5 % occupancy), 25 % slower on the H100 at 4096^3 than the same kernel at 127.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int GR, int TA, int TB>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN),
                                  512 / (32 * (BM / WM) * (BN / WN)) > 0
                                      ? 512 / (32 * (BM / WM) * (BN / WN))
                                      : 1)
    ktune_gemm_warp(long long m, long long n, long long k, float alpha, const float* __restrict__ a,
                    long long lda, long long stride_a, const float* __restrict__ b, long long ldb,
                    long long stride_b, float beta, float* __restrict__ c, long long ldc,
                    long long stride_c, int splits, long long k_chunk,
                    float* __restrict__ partial) {
  constexpr int WARPS_M = BM / WM;
  constexpr int THREADS = 32 * WARPS_M * (BN / WN);
  constexpr int LM = WM / TM;  // lanes along M
  constexpr int LN = WN / TN;  // lanes along N
  static_assert(LM * LN == 32, "a warp's lanes must tile its WM x WN tile exactly");
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "fragments are 16-byte words");
  static_assert(ST >= 2, "the pipeline needs at least two stages");
  // op(A)(i, p): TA == 0 -> a[i + p * lda] (rows contiguous); TA == 1 -> a[p + i * lda].
  // op(B)(p, j): TB == 0 -> b[p + j * ldb] (K contiguous);   TB == 1 -> b[j + p * ldb].
  using OperandA = KtuneWarpOperand<BM, BK, THREADS, TA>;
  using OperandB = KtuneWarpOperand<BN, BK, THREADS, TB ? 0 : 1>;
  extern __shared__ __align__(16) float ktune_warp_smem[];
  float* const as = ktune_warp_smem;
  float* const bs = ktune_warp_smem + ST * OperandA::kFloats;

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int lane_m = lane % LM, lane_n = lane / LM;
  const int warp_m0 = (warp % WARPS_M) * WM, warp_n0 = (warp / WARPS_M) * WN;

  // Row of the block tile held in a lane's register row i (see the header comment).
  auto a_row = [&](int i) { return warp_m0 + (i / 4) * LM * 4 + lane_m * 4 + i % 4; };
  auto b_col = [&](int j) { return warp_n0 + (j / 4) * LN * 4 + lane_n * 4 + j % 4; };

  // Tile of this block: rasterized in groups of GR block rows.
  const long long tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const long long pid = blockIdx.x;
  long long tile_m, tile_n;
  if (GR > 1) {
    const long long width = (long long)GR * tiles_n;
    const long long first_m = pid / width * GR;
    const long long rows = tiles_m - first_m < GR ? tiles_m - first_m : GR;
    tile_m = first_m + pid % width % rows;
    tile_n = pid % width / rows;
  } else {
    tile_m = pid % tiles_m;
    tile_n = pid / tiles_m;
  }
  if (tile_n >= tiles_n) return;
  const long long row0 = tile_m * BM, col0 = tile_n * BN;
  const long long rows_left = m - row0, cols_left = n - col0;

  const long long z = blockIdx.z;
  const long long batch_index = z / splits;
  const long long split = z - batch_index * splits;
  a += batch_index * stride_a;
  b += batch_index * stride_b;
  const long long k_begin = splits > 1 ? split * k_chunk : 0;
  long long k_end = splits > 1 ? k_begin + k_chunk : k;
  if (k_end > k) k_end = k;
  // alpha == 0: no K tile, so A and B are never read.
  const long long tiles = alpha != 0.0f && k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;

  // Uniform per launch: every 16-byte chunk of the launch is aligned (a K-contiguous operand's
  // chunks also need k_begin % 4 == 0 to start on 16 bytes).
  const bool a_vec =
      lda % 4 == 0 && stride_a % 4 == 0 && ktune_gemm_aligned16(a) && (!TA || k_begin % 4 == 0);
  const bool b_vec =
      ldb % 4 == 0 && stride_b % 4 == 0 && ktune_gemm_aligned16(b) && (TB || k_begin % 4 == 0);
  const float* const a_tile0 = a + (TA ? row0 * lda + k_begin : row0 + k_begin * lda);
  const float* const b_tile0 = b + (TB ? col0 + k_begin * ldb : col0 * ldb + k_begin);
  const long long a_step = TA ? BK : BK * lda;  // elements between consecutive K tiles
  const long long b_step = TB ? BK * ldb : BK;

  auto load_tile = [&](int stage, long long t) {
    const long long k_left = k_end - k_begin - t * BK;
    OperandA::load(as + stage * OperandA::kFloats, a_tile0 + t * a_step, lda, rows_left, k_left,
                   tid, a_vec, a);
    OperandB::load(bs + stage * OperandB::kFloats, b_tile0 + t * b_step, ldb, cols_left, k_left,
                   tid, b_vec, b);
  };
  // Register-staged K-contiguous operands (see KtuneWarpOperand::fetch): tile `next` is read
  // into registers before tile t is multiplied and stored to its stage after.
  typename OperandA::Staged a_staged;
  typename OperandB::Staged b_staged;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

#pragma unroll
  for (int s = 0; s < ST - 1; ++s) {
    if (s < tiles) load_tile(s, s);
    ktune_warp_commit();
  }
  // The main loop, in two versions: LEAN for blocks whose every K tile is interior (the whole
  // tile inside the matrix, K a multiple of BK, 16-byte aligned launch: the bulk of a large
  // GEMM), with only the 16-byte copies and register staging, and the general one. The lean
  // loop keeps no edge bookkeeping alive, which holds it within the 128-register bound.
  // A plain lambda (NVRTC compiles no generic or annotated ones) called with constant flags:
  // inlined at both calls, each copy keeps only its own branches.
  auto main_loop = [&](const bool kLean) {
    int stage = 0;  // t % ST
    for (long long t = 0; t < tiles; ++t) {
      ktune_warp_wait<ST - 2>();
      __syncthreads();  // tile t is visible to all; every warp is done with tile t - 1's stage
      const long long next = t + ST - 1;
      const int next_stage = stage == 0 ? ST - 1 : stage - 1;
      bool a_stage_next = false, b_stage_next = false;
      if (next < tiles) {
        const float* const a_next = a_tile0 + next * a_step;
        const float* const b_next = b_tile0 + next * b_step;
        const long long k_left = kLean ? BK : k_end - k_begin - next * BK;
        a_stage_next = kLean ? TA != 0 : OperandA::stageable(rows_left, k_left, a_vec);
        b_stage_next = kLean ? !TB : OperandB::stageable(cols_left, k_left, b_vec);
        if (a_stage_next)
          OperandA::fetch(a_staged, a_next, lda, tid);
        else if (kLean)
          OperandA::load_interior(as + next_stage * OperandA::kFloats, a_next, lda, tid);
        else
          OperandA::load(as + next_stage * OperandA::kFloats, a_next, lda, rows_left, k_left, tid,
                         a_vec, a);
        if (b_stage_next)
          OperandB::fetch(b_staged, b_next, ldb, tid);
        else if (kLean)
          OperandB::load_interior(bs + next_stage * OperandB::kFloats, b_next, ldb, tid);
        else
          OperandB::load(bs + next_stage * OperandB::kFloats, b_next, ldb, cols_left, k_left, tid,
                         b_vec, b);
      }
      ktune_warp_commit();

      const float* sa = as + stage * OperandA::kFloats + warp_m0 + lane_m * 4;
      const float* sb = bs + stage * OperandB::kFloats + warp_n0 + lane_n * 4;
#pragma unroll
      for (int p = 0; p < BK; ++p) {
        float af[TM], bf[TN];
#pragma unroll
        for (int g = 0; g < TM / 4; ++g) {
          const float4 x =
              *reinterpret_cast<const float4*>(sa + p * OperandA::kStride + g * LM * 4);
          af[4 * g] = x.x, af[4 * g + 1] = x.y, af[4 * g + 2] = x.z, af[4 * g + 3] = x.w;
        }
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
          const float4 x =
              *reinterpret_cast<const float4*>(sb + p * OperandB::kStride + g * LN * 4);
          bf[4 * g] = x.x, bf[4 * g + 1] = x.y, bf[4 * g + 2] = x.z, bf[4 * g + 3] = x.w;
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
      }
      // The next stage was last read in iteration t - 1, before this iteration's barrier; the
      // barrier of the iteration that multiplies it publishes these stores.
      if (a_stage_next) OperandA::store(as + next_stage * OperandA::kFloats, a_staged, tid);
      if (b_stage_next) OperandB::store(bs + next_stage * OperandB::kFloats, b_staged, tid);
      stage = stage + 1 == ST ? 0 : stage + 1;
    }
  };
  const bool lean =
      rows_left >= BM && cols_left >= BN && (k_end - k_begin) % BK == 0 && a_vec && b_vec;
  if (lean)
    main_loop(true);
  else
    main_loop(false);
  ktune_warp_wait<0>();

  // Epilogue: C itself, or this (batch, split)'s packed m x n slice of the workspace.
  const KtuneGemmOut out =
      ktune_gemm_out(c, ldc, stride_c, partial, m, n, z, batch_index, splits, alpha, beta);
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int jl = b_col(j);
    if (jl >= cols_left) continue;
    float* column = out.out + (col0 + jl) * out.ldo + row0;
#pragma unroll
    for (int i = 0; i < TM; i += 4) {
      const int il = a_row(i);  // rows il .. il + 3
      float v[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) v[e] = out.alpha * acc[i + e][j];
      ktune_gemm_store4(column, il, rows_left, out.vec, out.beta, v);
    }
  }
}

#endif  // KTUNE_GEMM_WARP_CUH
