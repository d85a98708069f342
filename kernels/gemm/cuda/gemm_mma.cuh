// Tensor-core GEMM (kind `mma` of the GEMM family, sm_80+): column-major BLAS semantics
//   C = alpha * op(A) * op(B) + beta * C  with strided batches, FP32 accumulation and FP32 C, or
// (C16 = 1, bf16 / fp16 only) C in the input's 16-bit type (gemm_out16.cuh: one rounding at the
// store); C is not read when beta == 0 (it may hold NaN). The operands are
//   PREC 1 (tf32): float A and B, rounded to TF32 (cvt.rna) in the kernel, mma.m16n8k8;
//   PREC 2 (bf16) / PREC 3 (fp16): 16-bit A and B (raw bits: the kernel never converts them),
//   mma.m16n8k16 fed by ldmatrix.
//
// Hierarchy: a block computes a BM x BN tile of C with (BM/WM) * (BN/WN) warps; a warp computes
// WM x WN as (WM/16) x (WN/8) mma tiles whose accumulators stay in registers.
//
// Main loop: an ST-stage cp.async pipeline copies K tiles of op(A) (BM x BK) and op(B) (BK x BN)
// from global to shared memory; ST - 1 tiles are in flight while one is multiplied, one barrier
// per K tile. Each operand keeps its global layout in shared memory: K-contiguous operands (A with
// TA = 1, B with TB = 0) as [rows][BK], the others as [BK][rows]; lines are padded by 16 bytes
// (32 for the [BK][rows] tf32 tiles), which puts the 8 lines an ldmatrix (or a quarter warp's
// scalar fragment loads) reads in distinct banks. ldmatrix reads [rows][BK] tiles as is and
// [BK][rows] tiles with .trans; tf32 fragments are 32-bit words, which ldmatrix.trans cannot
// transpose, so they are read by scalar shared loads.
//
// Edges: 16-byte copies for whole chunks of an aligned launch (base, leading dimension and batch
// stride multiples of 16 bytes); chunks out of the matrix are zero-filled by cp.async without a
// read, ragged chunks and unaligned launches copy element by element (plain loads and shared
// stores, ordered by the pipeline's barrier like the copies). K beyond k reads zeros.
//
// Split-K (splits > 1, kind mmasplit): as the SIMT split-K kernels (gemm_tiled.cuh) — split s
// sums the K range [s*k_chunk, min(k, (s+1)*k_chunk)) (k_chunk a multiple of BK, so every slice
// starts on a 16-byte chunk), writes its raw FP32 sums to partial[z*m*n + j*m + i], and
// ktune_gemm_splitk_reduce forms C = alpha * sum + beta * C (ktune_gemm_splitk_reduce16 for
// 16-bit C). FP32 partials keep the accumulation error of one FP32 sum over k.
//
// Launch (gemm_mma_launch.hpp): blockDim.x = 32 * (BM/WM) * (BN/WN); gridDim = (ceil(m/BM),
// ceil(n/BN), batch * splits), blockIdx.z = batch_index * splits + split; dynamic shared memory
// ktune_mma_smem_bytes<...>() (opted in above 48 KiB).
//
// Compiled at run time by NVRTC (no standard headers) and ahead of time by nvcc in the deployed
// library.
#ifndef KTUNE_GEMM_MMA_CUH
#define KTUNE_GEMM_MMA_CUH

#include "../../common/cuda/mma_ptx.cuh"  // cp.async, ldmatrix, mma.m16n8k16
#include "gemm_out16.cuh"                 // C in the input's 16-bit type

// Shared-memory layout of one operand tile: ROWS (the M or N side) x BK elements of T; K_CONTIG:
// [ROWS][BK + pad] (k contiguous), else [BK][ROWS + pad]. Tiles are addressed by 32-bit
// shared-state-space byte addresses, never generic pointers: NVRTC (the sweeps) formed 64-bit
// generic pointers for them where nvcc (the deployed library) used 32-bit ones, and ptxas then
// gave the same kernel different registers (1 bf16 and 3 tf32 configs a different occupancy).
template <typename T, int ROWS, int BK, int K_CONTIG>
struct KtuneMmaTile {
  static constexpr int kChunk = 16 / sizeof(T);  // elements per 16-byte chunk
  static constexpr int kPad = (!K_CONTIG && sizeof(T) == 4) ? 32 / sizeof(T) : kChunk;
  static constexpr int kLine = (K_CONTIG ? BK : ROWS) + kPad;  // elements per line
  static constexpr int kElems = (K_CONTIG ? ROWS : BK) * kLine;
  static constexpr int kCopies = ROWS * BK / kChunk;
  static_assert(ROWS % kChunk == 0 && BK % kChunk == 0, "tiles are whole 16-byte chunks");

  __device__ static __forceinline__ int at(int r, int p) {
    return K_CONTIG ? r * kLine + p : p * kLine + r;
  }
  // The byte address of element (r, p) of the tile at shared address tile.
  __device__ static __forceinline__ unsigned address(unsigned tile, int r, int p) {
    return tile + unsigned(at(r, p)) * unsigned(sizeof(T));
  }

  // Copies into the tile at shared address smem the tile whose element (0, 0) is src (element (r,
  // p) at src[r * rs + p * ps], the contiguous one of rs / ps being 1). rows_left / k_left: rows /
  // k indices left in the matrix from the origin; vec_ok: 16-byte copies allowed.
  template <int THREADS>
  __device__ static __forceinline__ void load(unsigned smem, const T* src, long long ld,
                                              long long rows_left, long long k_left, int tid,
                                              bool vec_ok) {
    constexpr int kPerLine = (K_CONTIG ? BK : ROWS) / kChunk;
    if (vec_ok && rows_left >= ROWS && k_left >= BK) {  // interior (uniform): no bounds
#pragma unroll
      for (int l = 0; l < (kCopies + THREADS - 1) / THREADS; ++l) {
        const int copy = tid + l * THREADS;
        if (kCopies % THREADS != 0 && copy >= kCopies) break;
        const int line = copy / kPerLine, e0 = (copy % kPerLine) * kChunk;
        ktune_cp_async16(smem + unsigned(line * kLine + e0) * unsigned(sizeof(T)),
                         src + line * ld + e0, 16);
      }
      return;
    }
    const long long lines_left = K_CONTIG ? rows_left : k_left;
    const long long along_left = K_CONTIG ? k_left : rows_left;
#pragma unroll
    for (int l = 0; l < (kCopies + THREADS - 1) / THREADS; ++l) {
      const int copy = tid + l * THREADS;
      if (kCopies % THREADS != 0 && copy >= kCopies) break;
      const int line = copy / kPerLine, e0 = (copy % kPerLine) * kChunk;
      const unsigned dst = smem + unsigned(line * kLine + e0) * unsigned(sizeof(T));
      const T* from = src + (long long)line * ld + e0;
      const long long along = along_left - e0;
      if (line >= lines_left || along <= 0) {
        ktune_cp_async16(dst, src, 0);
      } else if (vec_ok && along >= kChunk) {
        ktune_cp_async16(dst, from, 16);
      } else {
#pragma unroll
        for (int e = 0; e < kChunk; ++e)
          ktune_st_shared(dst + unsigned(e * sizeof(T)), e < along ? from[e] : T(0));
      }
    }
  }
};

template <int BM, int BN, int BK, int ST, int PREC, int TA, int TB>
__host__ __device__ constexpr int ktune_mma_smem_bytes() {
  typedef typename KtuneMmaElem<PREC>::type T;
  return ST * int(sizeof(T)) *
         (KtuneMmaTile<T, BM, BK, TA>::kElems + KtuneMmaTile < T, BN, BK, TB ? 0 : 1 > ::kElems);
}

template <int BM, int BN, int BK, int WM, int WN, int ST, int PREC, int TA, int TB, int C16 = 0>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN))
    ktune_gemm_mma(long long m, long long n, long long k, float alpha,
                   const typename KtuneMmaElem<PREC>::type* __restrict__ a, long long lda,
                   long long stride_a, const typename KtuneMmaElem<PREC>::type* __restrict__ b,
                   long long ldb, long long stride_b, float beta, void* __restrict__ c,
                   long long ldc, long long stride_c, int splits, long long k_chunk,
                   float* __restrict__ partial) {
  static_assert(C16 == 0 || PREC != 1, "16-bit C needs 16-bit inputs");
  typedef typename KtuneMmaElem<PREC>::type T;
  constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
  constexpr int MK = PREC == 1 ? 8 : 16;  // k of one mma
  constexpr int MI = WM / 16, NI = WN / 8;
  static_assert(WM % 16 == 0 && WN % 16 == 0 && BM % WM == 0 && BN % WN == 0, "warp tiles");
  static_assert(BK % MK == 0 && ST >= 2, "K tile and stages");
  typedef KtuneMmaTile<T, BM, BK, TA> TileA;          // A: K-contiguous when transposed
  typedef KtuneMmaTile<T, BN, BK, TB ? 0 : 1> TileB;  // B: K-contiguous unless transposed

  extern __shared__ __align__(16) unsigned char ktune_mma_shared[];
  constexpr unsigned kStageA = TileA::kElems * sizeof(T), kStageB = TileB::kElems * sizeof(T);
  const unsigned smem_a = ktune_smem_address(ktune_mma_shared);
  const unsigned smem_b = smem_a + ST * kStageA;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int warp_m = warp % (BM / WM), warp_n = warp / (BM / WM);
  const long long row0 = (long long)blockIdx.x * BM, col0 = (long long)blockIdx.y * BN;
  const long long z = blockIdx.z;  // batch_index * splits + split
  const long long batch_index = z / splits, split = z - batch_index * splits;
  // This block's K range [k_begin, k_end); the whole of k without split-K.
  const long long k_begin = split * k_chunk;
  const long long k_end = k - k_begin < k_chunk ? k : k_begin + k_chunk;

  const T* const a_batch = a + batch_index * stride_a;
  const T* const b_batch = b + batch_index * stride_b;
  // op(A) rows i, k p: A[i + p * lda] (TA = 0) or A[p + i * lda] (TA = 1); op(B) k p, column j:
  // B[p + j * ldb] (TB = 0) or B[j + p * ldb] (TB = 1).
  constexpr int CH = 16 / sizeof(T);  // elements per 16-byte chunk
  const bool vec_a =
      lda % CH == 0 && stride_a % CH == 0 && (reinterpret_cast<unsigned long long>(a) & 15ull) == 0;
  const bool vec_b =
      ldb % CH == 0 && stride_b % CH == 0 && (reinterpret_cast<unsigned long long>(b) & 15ull) == 0;
  const long long rows_left = m - row0, cols_left = n - col0;

  auto load_stage = [&](int stage, int kt) {
    const long long p0 = k_begin + (long long)kt * BK;
    const T* src_a = TA ? a_batch + p0 + row0 * lda : a_batch + row0 + p0 * lda;
    const T* src_b = TB ? b_batch + col0 + p0 * ldb : b_batch + p0 + col0 * ldb;
    TileA::template load<THREADS>(smem_a + stage * kStageA, src_a, lda, rows_left, k_end - p0, tid,
                                  vec_a);
    TileB::template load<THREADS>(smem_b + stage * kStageB, src_b, ldb, cols_left, k_end - p0, tid,
                                  vec_b);
  };

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  const int k_tiles = k_end > k_begin ? int((k_end - k_begin + BK - 1) / BK) : 0;
#pragma unroll
  for (int s = 0; s < ST - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    asm volatile("cp.async.commit_group;\n" ::);
  }

  const int g = lane >> 2, t = lane & 3;   // mma fragment coordinates
  const int q = lane >> 3, r8 = lane & 7;  // ldmatrix: matrix and line this lane addresses
  const int wr = warp_m * WM, wc = warp_n * WN;

  // The A and B fragments of K step kk of the stage at shared addresses sa / sb. A: matrices
  // (rows 0-7, k 0-h), (rows 8-15, k 0-h), (rows 0-7, k h-2h), (rows 8-15, k h-2h) -> a0..a3,
  // h = one 16-byte chunk of k (8 halves or 4 floats: the m16n8k16 and tf32 m16n8k8 fragments
  // have the same shape in bytes); lane addresses line r8 of matrix q.
  auto load_fragments = [&](unsigned(&af)[MI][4], unsigned(&bf)[NI][2], unsigned sa, unsigned sb,
                            int kk) {
#pragma unroll
    for (int i = 0; i < MI; ++i) {
      const int r = wr + i * 16 + (q & 1) * 8;
      if (TA) {  // K-contiguous: ldmatrix as stored
        ktune_ldmatrix_x4<0>(af[i], TileA::address(sa, r + r8, kk + (q >> 1) * CH));
      } else if (PREC != 1) {  // [k][m]: transposed by ldmatrix
        ktune_ldmatrix_x4<1>(af[i], TileA::address(sa, r, kk + (q >> 1) * 8 + r8));
      } else {  // [k][m] words: ldmatrix cannot transpose 32-bit elements
        const int rg = wr + i * 16 + g;
        af[i][0] = ktune_ld_shared32(TileA::address(sa, rg, kk + t));
        af[i][1] = ktune_ld_shared32(TileA::address(sa, rg + 8, kk + t));
        af[i][2] = ktune_ld_shared32(TileA::address(sa, rg, kk + t + 4));
        af[i][3] = ktune_ld_shared32(TileA::address(sa, rg + 8, kk + t + 4));
      }
    }
    // B: matrices (cols 0-7, k 0-h), (cols 0-7, k h-2h), (cols 8-15, k 0-h), (cols 8-15, k h-2h)
    // -> b0, b1 of two n tiles.
#pragma unroll
    for (int j = 0; j < NI; j += 2) {
      const int col = wc + j * 8 + (q >> 1) * 8;
      unsigned x[4];
      if (!TB) {  // K-contiguous
        ktune_ldmatrix_x4<0>(x, TileB::address(sb, col + r8, kk + (q & 1) * CH));
      } else if (PREC != 1) {
        ktune_ldmatrix_x4<1>(x, TileB::address(sb, col, kk + (q & 1) * 8 + r8));
      } else {
        const int cg = wc + j * 8 + g;
        x[0] = ktune_ld_shared32(TileB::address(sb, cg, kk + t));
        x[1] = ktune_ld_shared32(TileB::address(sb, cg, kk + t + 4));
        x[2] = ktune_ld_shared32(TileB::address(sb, cg + 8, kk + t));
        x[3] = ktune_ld_shared32(TileB::address(sb, cg + 8, kk + t + 4));
      }
      bf[j][0] = x[0], bf[j][1] = x[1], bf[j + 1][0] = x[2], bf[j + 1][1] = x[3];
    }
  };

  int read_stage = 0, write_stage = ST - 1;  // stage indices wrap without divisions
  for (int kt = 0; kt < k_tiles; ++kt) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(ST - 2));
    __syncthreads();
    if (kt + ST - 1 < k_tiles) load_stage(write_stage, kt + ST - 1);
    write_stage = write_stage == ST - 1 ? 0 : write_stage + 1;
    asm volatile("cp.async.commit_group;\n" ::);

    const unsigned sa = smem_a + read_stage * kStageA;
    const unsigned sb = smem_b + read_stage * kStageB;
    read_stage = read_stage == ST - 1 ? 0 : read_stage + 1;
    // Fragments in two register sets: those of the next K step are loaded (ldmatrix is
    // asynchronous) before the mma of this one issue, so its latency hides behind them.
    unsigned af[2][MI][4], bf[2][NI][2];
    load_fragments(af[0], bf[0], sa, sb, 0);
#pragma unroll
    for (int step = 0; step < BK / MK; ++step) {
      if (step + 1 < BK / MK)
        load_fragments(af[(step + 1) & 1], bf[(step + 1) & 1], sa, sb, (step + 1) * MK);
      if (PREC == 1) ktune_mma_round_tf32(af[step & 1], bf[step & 1]);
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) ktune_mma<PREC>(acc[i][j], af[step & 1][i], bf[step & 1][j]);
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::);

  // Epilogue: c0, c1 at (g, 2t), (g, 2t + 1) of the mma tile, c2, c3 eight rows below. Split-K
  // writes the raw sums (an empty slice its zeros) to its packed m x n slice of the workspace;
  // without it C is float or (C16) the input's 16-bit type. C16 is a template argument and both
  // outputs share one index (a slice's leading dimension is m): a run-time c16 test here and a
  // second index took ptxas from 128 to 161 registers on bm=64 bn=128 wm=64 (3 blocks an SM
  // instead of 4) and cost the small-k dnn shapes 7-30 % (results/h200/mma-register-ab).
  const bool split_k = splits > 1;
  const long long ldo = split_k ? m : ldc;
  const long long first = split_k ? z * m * n : batch_index * stride_c;
  float* const out = split_k ? partial : static_cast<float*>(c);  // FP32 C or the slices
#pragma unroll
  for (int i = 0; i < MI; ++i) {
#pragma unroll
    for (int j = 0; j < NI; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const long long row = row0 + wr + i * 16 + g + (e >> 1) * 8;
        const long long col = col0 + wc + j * 8 + 2 * t + (e & 1);
        if (row >= m || col >= n) continue;
        const long long at = first + row + col * ldo;
        if (C16 && !split_k)
          ktune_out_store<PREC>(c, at, 1, beta, alpha * acc[i][j][e]);
        else if (split_k)
          out[at] = acc[i][j][e];
        else
          out[at] = beta == 0.0f ? alpha * acc[i][j][e] : fmaf(beta, out[at], alpha * acc[i][j][e]);
      }
    }
  }
}

#endif  // KTUNE_GEMM_MMA_CUH
