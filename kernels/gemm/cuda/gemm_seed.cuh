// The seed GEMM kernel of the tuning space: FP32, column-major BLAS semantics
//   C = alpha * op(A) * op(B) + beta * C   (C is not read when beta == 0),
// strided batches over gridDim.z. Each thread computes an R x C tile of C held in registers,
// stepping along K by A: it loads an R x A tile of op(A) and an A x C tile of op(B) into
// registers, then does R*A*C FMAs. No shared memory: register tiling is what the space tunes.
//
// Thread (tx, ty) of block (bx, by) owns rows  bx*blockDim.x*R + tx + r*blockDim.x  (r < R)
// and columns  by*blockDim.y*C + ty + j*blockDim.y  (j < C): the tile is interleaved with the
// other threads' tiles so that neighbouring threads touch neighbouring addresses (coalesced
// loads of non-transposed A and stores of C) while keeping the same register reuse.
//
// Compiled at run time by NVRTC (so: no standard headers, built-ins only) and ahead of time by
// nvcc in the deployed library (explicit instantiations of a few <R, A, C>).
// Launch: blockDim = (wg_x, wg_y); gridDim = (ceil(m / (wg_x*R)), min(ceil(n / (wg_y*C)),
// 65535), batch) with batch <= 65535; the kernel strides over column blocks beyond gridDim.y.
// Requires m, n, batch >= 1 (the host skips empty launches); k may be 0 (C = beta * C), and
// alpha == 0 gives C = beta * C without reading A or B.
#ifndef KTUNE_GEMM_SEED_CUH
#define KTUNE_GEMM_SEED_CUH

template <int R, int A, int C>
__global__ void ktune_gemm_seed(int transa, int transb, long long m, long long n, long long k,
                                float alpha, const float* __restrict__ a, long long lda,
                                long long stride_a, const float* __restrict__ b, long long ldb,
                                long long stride_b, float beta, float* __restrict__ c,
                                long long ldc, long long stride_c) {
  if (alpha == 0.0f) k = 0;  // BLAS reads neither A nor B then: a NaN in them must not reach C
  // op(A)(i, p) = a[i * a_row + p * a_k];  op(B)(p, j) = b[p * b_k + j * b_col].
  const long long a_row = transa ? lda : 1;
  const long long a_k = transa ? 1 : lda;
  const long long b_k = transb ? ldb : 1;
  const long long b_col = transb ? 1 : ldb;

  const long long bx = blockDim.x, by = blockDim.y;
  const long long row0 = (long long)blockIdx.x * bx * R + threadIdx.x;
  if (row0 >= m) return;  // every row of this thread's tile is past the edge

  const long long batch_index = blockIdx.z;
  a += batch_index * stride_a;
  b += batch_index * stride_b;
  c += batch_index * stride_c;

  // Rows past the edge re-read row m-1 (valid memory, no branch in the K loop); their results
  // are never stored. Columns likewise.
  const float* a_rows[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    long long i = row0 + r * bx;
    if (i > m - 1) i = m - 1;
    a_rows[r] = a + i * a_row;
  }

  const long long tile_n = by * C;
  const long long col_blocks = (n + tile_n - 1) / tile_n;
  for (long long col_block = blockIdx.y; col_block < col_blocks; col_block += gridDim.y) {
    const long long col0 = col_block * tile_n + threadIdx.y;
    if (col0 >= n) continue;

    const float* b_cols[C];
#pragma unroll
    for (int j = 0; j < C; ++j) {
      long long jj = col0 + j * by;
      if (jj > n - 1) jj = n - 1;
      b_cols[j] = b + jj * b_col;
    }

    float acc[R][C];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int j = 0; j < C; ++j) acc[r][j] = 0.0f;

    float a_tile[R][A];
    float b_tile[A][C];
    long long p = 0;
    for (; p + A <= k; p += A) {
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int q = 0; q < A; ++q) a_tile[r][q] = a_rows[r][(p + q) * a_k];
#pragma unroll
      for (int q = 0; q < A; ++q)
#pragma unroll
        for (int j = 0; j < C; ++j) b_tile[q][j] = b_cols[j][(p + q) * b_k];
#pragma unroll
      for (int q = 0; q < A; ++q)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
          for (int j = 0; j < C; ++j) acc[r][j] = fmaf(a_tile[r][q], b_tile[q][j], acc[r][j]);
    }
    if (p < k) {  // K tail shorter than A: missing terms contribute zero
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int q = 0; q < A; ++q) a_tile[r][q] = (p + q < k) ? a_rows[r][(p + q) * a_k] : 0.0f;
#pragma unroll
      for (int q = 0; q < A; ++q)
#pragma unroll
        for (int j = 0; j < C; ++j) b_tile[q][j] = (p + q < k) ? b_cols[j][(p + q) * b_k] : 0.0f;
#pragma unroll
      for (int q = 0; q < A; ++q)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
          for (int j = 0; j < C; ++j) acc[r][j] = fmaf(a_tile[r][q], b_tile[q][j], acc[r][j]);
    }

#pragma unroll
    for (int j = 0; j < C; ++j) {
      const long long jj = col0 + j * by;
      if (jj >= n) continue;
      float* c_col = c + jj * ldc;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const long long i = row0 + r * bx;
        if (i >= m) continue;
        // beta == 0: C is not read (it may hold NaN), as in BLAS.
        c_col[i] = beta == 0.0f ? alpha * acc[r][j] : alpha * acc[r][j] + beta * c_col[i];
      }
    }
  }
}

#endif  // KTUNE_GEMM_SEED_CUH
