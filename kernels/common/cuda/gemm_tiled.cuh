// Shared-memory tiled FP32 GEMM (kinds `tiled` and `splitk` of the GEMM family), column-major
// BLAS semantics  C = alpha * op(A) * op(B) + beta * C  (C is not read when beta == 0) with
// strided batches.
//
// Block tile BM x BN of C, K step BK, (BM/TM) * (BN/TN) threads in a 1-D block, each owning a
// TM x TN register tile. Per K step the block loads op(A) (BM x BK) and op(B) (BK x BN) into
// shared memory, both stored K-major ([BK][BM + 4] and [BK][BN + 4]) so that the inner loop reads
// each thread's fragments with 16-byte loads; the +4 padding keeps the transposing stores
// (from K-contiguous sources) mostly free of bank conflicts while keeping rows 16-byte aligned.
// A thread's TM rows are TM/4 groups of 4 consecutive rows, one group per BM/(TM/4) segment, so
// that neighbouring threads read neighbouring 16-byte words of shared memory (no conflicts) and
// write neighbouring 16-byte words of C (coalesced). Columns likewise.
//
// Global loads are VEC floats wide (float4 when VEC == 4) along the contiguous dimension of each
// operand when the layout allows it (leading dimension and batch stride multiples of 4, base
// pointer 16-byte aligned); this is decided once per launch from the arguments, uniformly, and
// falls back to bounds-checked scalar loads otherwise. Elements outside m, n or the K range read
// as zero. DB = 1 double-buffers shared memory: the next K tile is fetched into registers while
// the current one is multiplied, one barrier per K step.
//
// Launch: blockDim.x = (BM/TM) * (BN/TN); gridDim = (ceil(m / BM), min(ceil(n / BN), 65535),
// batch * splits) with gridDim.z <= 65535; blocks stride over column blocks beyond gridDim.y.
// blockIdx.z = batch_index * splits + split. splits == 1: C is written (k_chunk and partial are
// unused). splits > 1: split s sums K range [s * k_chunk, min(k, (s + 1) * k_chunk)) (k_chunk a
// multiple of BK) and writes the raw sums to partial[z * m * n + j * m + i]; an empty range
// writes zeros; ktune_gemm_splitk_reduce then forms C. Requires m, n, batch >= 1 (the host skips
// empty launches); k may be 0 (C = beta * C).
//
// Compiled at run time by NVRTC (so: no standard headers, built-ins only) and ahead of time by
// nvcc in the deployed library. gemm_tiled_launch.hpp is the matching host launcher.
#ifndef KTUNE_GEMM_TILED_CUH
#define KTUNE_GEMM_TILED_CUH

#include "gemm_epilogue.cuh"

// Threads per block of ktune_gemm_splitk_reduce (gemm_tiled_launch.hpp uses the same number).
#define KTUNE_SPLITK_REDUCE_THREADS 256

// One operand tile of ROWS (the M or N side) x BK, loaded by THREADS threads in vectors of VEC
// floats and stored K-major in shared memory. Element (r, p) of the tile (row r, k index p) lies
// at src[r + p * ld] when K_CONTIG == 0 (rows contiguous) and at src[p + r * ld] otherwise.
template <int ROWS, int BK, int THREADS, int VEC, int K_CONTIG>
struct KtuneTiledOperand {
  static constexpr int kLoads = ROWS * BK / (THREADS * VEC);  // vectors per thread per K step
  static constexpr int kStride = ROWS + 4;                    // floats per K row in shared memory
  static_assert(VEC == 1 || VEC == 4, "VEC must be 1 or 4");
  static_assert(kLoads >= 1 && kLoads * THREADS * VEC == ROWS * BK,
                "each thread must load whole vectors of the tile per K step");
  static_assert(K_CONTIG ? BK % VEC == 0 : ROWS % VEC == 0, "vectors must not straddle the tile");

  float reg[kLoads][VEC];

  // Vector l of a thread (consecutive threads take consecutive vectors along the contiguous
  // dimension: coalesced) is vector tid + l * THREADS of the tile. Runs are the contiguous lines
  // of the tile (one K index when K_CONTIG == 0, one row otherwise), kRun vectors each. All sizes
  // are powers of two, so either THREADS spans whole runs or a run spans whole multiples of
  // THREADS; either way the position splits into a thread part and a compile-time part per l,
  // which keeps one base address per thread instead of one per load.
  static constexpr int kRun = K_CONTIG ? BK / VEC : ROWS / VEC;
  static constexpr bool kSpansRuns = THREADS % kRun == 0;
  static_assert(kSpansRuns || kRun % THREADS == 0, "sizes must be powers of two");
  static __device__ __forceinline__ int run0(int tid) { return kSpansRuns ? tid / kRun : 0; }
  static __device__ __forceinline__ int pos0(int tid) { return kSpansRuns ? tid % kRun : tid; }
  static constexpr __device__ int run_off(int l) {
    return kSpansRuns ? l * (THREADS / kRun) : l / (kRun / THREADS);
  }
  static constexpr __device__ int pos_off(int l) {
    return kSpansRuns ? 0 : (l % (kRun / THREADS)) * THREADS;
  }
  // Row / k index of the thread's first vector and the compile-time offsets of vector l.
  static __device__ __forceinline__ int r0(int tid) {
    return K_CONTIG ? run0(tid) : pos0(tid) * VEC;
  }
  static __device__ __forceinline__ int p0(int tid) {
    return K_CONTIG ? pos0(tid) * VEC : run0(tid);
  }
  static constexpr __device__ int r_off(int l) { return K_CONTIG ? run_off(l) : pos_off(l) * VEC; }
  static constexpr __device__ int p_off(int l) { return K_CONTIG ? pos_off(l) * VEC : run_off(l); }

  // Fetches the tile whose element (0, 0) is src into registers. rows_left / k_left: how many
  // rows / k indices from the tile origin are inside the matrix (the rest reads as zero).
  // vec_ok: 16-byte loads are aligned for every vector of the launch. Element e of a vector is
  // e floats after its first in both layouts.
  __device__ __forceinline__ void fetch(const float* src, long long ld, long long rows_left,
                                        long long k_left, int tid, bool vec_ok) {
    const float* base = K_CONTIG ? src + r0(tid) * ld + p0(tid) : src + r0(tid) + p0(tid) * ld;
    if (rows_left >= ROWS && k_left >= BK) {  // interior tile (uniform): no bounds checks
      if (VEC == 4 && vec_ok) {
#pragma unroll
        for (int l = 0; l < kLoads; ++l) {
          const float* at = base + (K_CONTIG ? r_off(l) * ld + p_off(l) : r_off(l) + p_off(l) * ld);
          const float4 x = *reinterpret_cast<const float4*>(at);
          reg[l][0] = x.x;
          reg[l][VEC > 1 ? 1 : 0] = x.y;
          reg[l][VEC > 2 ? 2 : 0] = x.z;
          reg[l][VEC > 3 ? 3 : 0] = x.w;
        }
      } else {
#pragma unroll
        for (int l = 0; l < kLoads; ++l) {
          const float* at = base + (K_CONTIG ? r_off(l) * ld + p_off(l) : r_off(l) + p_off(l) * ld);
#pragma unroll
          for (int e = 0; e < VEC; ++e) reg[l][e] = at[e];
        }
      }
      return;
    }
    const long long rows_in = rows_left - r0(tid);  // rows of this thread's vectors inside
    const long long k_in = k_left - p0(tid);
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      const int r = r_off(l), p = p_off(l);
      const float* at = base + (K_CONTIG ? r * ld + p : r + p * ld);
      const bool whole =
          K_CONTIG ? (r < rows_in && p + VEC - 1 < k_in) : (r + VEC - 1 < rows_in && p < k_in);
      if (VEC == 4 && vec_ok && whole) {
        const float4 x = *reinterpret_cast<const float4*>(at);
        reg[l][0] = x.x;
        reg[l][VEC > 1 ? 1 : 0] = x.y;
        reg[l][VEC > 2 ? 2 : 0] = x.z;
        reg[l][VEC > 3 ? 3 : 0] = x.w;
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          const bool inside =
              K_CONTIG ? (r < rows_in && p + e < k_in) : (r + e < rows_in && p < k_in);
          reg[l][e] = inside ? at[e] : 0.0f;
        }
      }
    }
  }

  // Writes the fetched tile to shared memory laid out [BK][kStride].
  __device__ __forceinline__ void store(float* smem, int tid) const {
    float* base = smem + p0(tid) * kStride + r0(tid);
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      float* at = base + p_off(l) * kStride + r_off(l);
      if (K_CONTIG) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) at[e * kStride] = reg[l][e];
      } else if (VEC == 4) {
        *reinterpret_cast<float4*>(at) = make_float4(
            reg[l][0], reg[l][VEC > 1 ? 1 : 0], reg[l][VEC > 2 ? 2 : 0], reg[l][VEC > 3 ? 3 : 0]);
      } else {
        *at = reg[l][0];
      }
    }
  }
};

template <int BM, int BN, int BK, int TM, int TN, int VEC, int DB, int TA, int TB>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    ktune_gemm_tiled(long long m, long long n, long long k, float alpha,
                     const float* __restrict__ a, long long lda, long long stride_a,
                     const float* __restrict__ b, long long ldb, long long stride_b, float beta,
                     float* __restrict__ c, long long ldc, long long stride_c, int splits,
                     long long k_chunk, float* __restrict__ partial) {
  constexpr int TX = BM / TM;  // threads along M
  constexpr int TY = BN / TN;  // threads along N
  constexpr int THREADS = TX * TY;
  constexpr int STAGES = DB ? 2 : 1;
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are groups of 4 rows / columns");
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must divide the block tile");
  constexpr int SEG_M = BM / (TM / 4);  // rows between a thread's groups of 4
  constexpr int SEG_N = BN / (TN / 4);

  // op(A)(i, p): TA == 0 -> a[i + p * lda] (rows contiguous); TA == 1 -> a[p + i * lda].
  // op(B)(p, j): TB == 0 -> b[p + j * ldb] (K contiguous);   TB == 1 -> b[j + p * ldb].
  using OperandA = KtuneTiledOperand<BM, BK, THREADS, VEC, TA>;
  using OperandB = KtuneTiledOperand<BN, BK, THREADS, VEC, TB ? 0 : 1>;
  constexpr int SA = OperandA::kStride;
  constexpr int SB = OperandB::kStride;
  __shared__ __align__(16) float as[STAGES * BK * SA];
  __shared__ __align__(16) float bs[STAGES * BK * SB];

  const int tid = threadIdx.x;
  const int tx = tid % TX;
  const int ty = tid / TX;

  const long long z = blockIdx.z;
  const long long batch_index = z / splits;
  const long long split = z - batch_index * splits;
  a += batch_index * stride_a;
  b += batch_index * stride_b;
  const long long k_begin = splits > 1 ? split * k_chunk : 0;
  long long k_end = splits > 1 ? k_begin + k_chunk : k;
  if (k_end > k) k_end = k;
  // alpha == 0: no K tile, so neither A nor B is read (BLAS; a NaN in them must not reach C).
  const long long tiles = alpha != 0.0f && k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;

  // Uniform per launch: every vector of the launch is 16-byte aligned (see the header comment).
  const bool a_vec = VEC == 4 && lda % 4 == 0 && stride_a % 4 == 0 && ktune_gemm_aligned16(a);
  const bool b_vec = VEC == 4 && ldb % 4 == 0 && stride_b % 4 == 0 && ktune_gemm_aligned16(b);

  // Output: C itself, or this (batch, split)'s packed m x n slice of the workspace.
  const KtuneGemmOut out =
      ktune_gemm_out(c, ldc, stride_c, partial, m, n, z, batch_index, splits, alpha, beta);

  const long long row0 = (long long)blockIdx.x * BM;
  const long long rows_left = m - row0;
  const long long a_origin = TA ? row0 * lda + k_begin : row0 + k_begin * lda;
  const long long a_step = TA ? BK : BK * lda;  // elements between consecutive K tiles
  const long long b_step = TB ? BK * ldb : BK;

  const long long col_blocks = (n + BN - 1) / BN;
  for (long long col_block = blockIdx.y; col_block < col_blocks; col_block += gridDim.y) {
    const long long col0 = col_block * BN;
    const long long cols_left = n - col0;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    const float* a_tile = a + a_origin;
    const float* b_tile = b + (TB ? col0 + k_begin * ldb : col0 * ldb + k_begin);
    OperandA load_a;
    OperandB load_b;

    // acc += the shared tiles at (sa, sb).
    auto multiply = [&](const float* sa, const float* sb) {
#pragma unroll
      for (int p = 0; p < BK; ++p) {
        float af[TM], bf[TN];
#pragma unroll
        for (int g = 0; g < TM / 4; ++g) {
          const float4 x = *reinterpret_cast<const float4*>(sa + p * SA + g * SEG_M + tx * 4);
          af[4 * g] = x.x, af[4 * g + 1] = x.y, af[4 * g + 2] = x.z, af[4 * g + 3] = x.w;
        }
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
          const float4 x = *reinterpret_cast<const float4*>(sb + p * SB + g * SEG_N + ty * 4);
          bf[4 * g] = x.x, bf[4 * g + 1] = x.y, bf[4 * g + 2] = x.z, bf[4 * g + 3] = x.w;
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
      }
    };

    if (DB) {
      if (tiles > 0) {
        load_a.fetch(a_tile, lda, rows_left, k_end - k_begin, tid, a_vec);
        load_b.fetch(b_tile, ldb, cols_left, k_end - k_begin, tid, b_vec);
        load_a.store(as, tid);
        load_b.store(bs, tid);
      }
      __syncthreads();
      for (long long t = 0; t < tiles; ++t) {
        const int stage = int(t & 1);
        const bool more = t + 1 < tiles;
        if (more) {  // fetch the next K tile while this one is multiplied
          a_tile += a_step;
          b_tile += b_step;
          const long long k_left = k_end - k_begin - (t + 1) * BK;
          load_a.fetch(a_tile, lda, rows_left, k_left, tid, a_vec);
          load_b.fetch(b_tile, ldb, cols_left, k_left, tid, b_vec);
        }
        multiply(as + stage * BK * SA, bs + stage * BK * SB);
        if (more) {  // the other stage was last read before the previous barrier
          load_a.store(as + (stage ^ 1) * BK * SA, tid);
          load_b.store(bs + (stage ^ 1) * BK * SB, tid);
        }
        __syncthreads();
      }
    } else {
      for (long long t = 0; t < tiles; ++t) {
        const long long k_left = k_end - k_begin - t * BK;
        load_a.fetch(a_tile, lda, rows_left, k_left, tid, a_vec);
        load_b.fetch(b_tile, ldb, cols_left, k_left, tid, b_vec);
        load_a.store(as, tid);
        load_b.store(bs, tid);
        __syncthreads();
        multiply(as, bs);
        __syncthreads();
        a_tile += a_step;
        b_tile += b_step;
      }
    }

    // Epilogue: groups of 4 consecutive rows per column, 16-byte accesses where aligned.
#pragma unroll
    for (int gj = 0; gj < TN / 4; ++gj) {
#pragma unroll
      for (int f = 0; f < 4; ++f) {
        const int jl = gj * SEG_N + ty * 4 + f;
        if (jl >= cols_left) continue;
        float* column = out.out + (col0 + jl) * out.ldo + row0;
#pragma unroll
        for (int gi = 0; gi < TM / 4; ++gi) {
          const int il = gi * SEG_M + tx * 4;
          float v[4];
#pragma unroll
          for (int e = 0; e < 4; ++e) v[e] = out.alpha * acc[4 * gi + e][4 * gj + f];
          ktune_gemm_store4(column, il, rows_left, out.vec, out.beta, v);
        }
      }
    }
  }
}

// The split-K reduction's loop: for each of the batch * m * n elements, the sum over splits of its
// partial sums in index order (deterministic), handed to store(offset in C, sum) with offset
// batch_index * stride_c + j * ldc + i. partial holds batch * splits packed m x n slices, slice
// batch_index * splits + split. Any grid: blocks stride over the elements. (Also the loop of the
// 16-bit C reduction, kernels/gemm/cuda/gemm_out16.cuh.)
template <typename Store>
__device__ __forceinline__ void ktune_gemm_splitk_sums(long long m, long long n, long long batch,
                                                       int splits,
                                                       const float* __restrict__ partial,
                                                       long long ldc, long long stride_c,
                                                       Store store) {
  const long long mn = m * n;
  const long long total = mn * batch;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += step) {
    const long long batch_index = idx / mn;
    const long long rest = idx - batch_index * mn;
    const long long j = rest / m;
    const long long i = rest - j * m;
    const float* slices = partial + batch_index * splits * mn + rest;
    float sum = 0.0f;
#pragma unroll 4
    for (int s = 0; s < splits; ++s) sum += slices[s * mn];
    store(batch_index * stride_c + j * ldc + i, sum);
  }
}

// C = alpha * (sum over splits of the partial sums) + beta * C (ktune_gemm_splitk_sums). Blocks
// of THREADS threads, any grid. A template (instantiated with KTUNE_SPLITK_REDUCE_THREADS, name
// expression "ktune_gemm_splitk_reduce<256>") so that this header can be included by several
// translation units of one program without duplicate definitions.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    ktune_gemm_splitk_reduce(long long m, long long n, long long batch, int splits,
                             const float* __restrict__ partial, float alpha, float beta,
                             float* __restrict__ c, long long ldc, long long stride_c) {
  ktune_gemm_splitk_sums(m, n, batch, splits, partial, ldc, stride_c,
                         [&](long long offset, float sum) {
                           float* at = c + offset;
                           *at = beta == 0.0f ? alpha * sum : fmaf(beta, *at, alpha * sum);
                         });
}

#endif  // KTUNE_GEMM_TILED_CUH
