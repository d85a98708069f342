// Implicit-GEMM convolution on the tensor cores (kind cuda_igemm_mma, sm_80+): input NHWC and
// filter KRSC in bf16 / fp16 (raw 16-bit bits: PREC 2 bf16, PREC 3 fp16, mma.m16n8k16) or FP32
// (PREC 1 tf32: each FP32 word rounded to TF32, nearest with ties away, just before its
// mma.m16n8k8, as the GEMM family's mma kind does), FP32 accumulation, output NHWC
// of type Y: float (the sweep's and the default) or unsigned short, the bits of each FP32 sum in
// the data's 16-bit type (bf16 or fp16 by PREC) rounded once to nearest even at the store
// (ktune::conv2d_ex's 16-bit output); dilation 1,
// symmetric zero padding (the conv2d family's problem).
//
// The GEMM it computes without forming it: M = n·p·q output pixels (rows), N = k output channels,
// K = r·s·c, with kk = (r·S + s)·C + c (the KRSC filter order, so a filter row is contiguous):
//   A[m][kk] = x[img][p·stride − pad + r][q·stride − pad + s][c]  (zero outside the image)
//   B[j][kk] = w[j][r][s][c]                                      (row-major, K contiguous)
//   y[m][j]  = y[img][p][q][j]                                    (NHWC is row-major M x N)
// Both operands are K-contiguous, which is what mma.sync's row.col operands and a plain (not
// .trans) ldmatrix want.
//
// Hierarchy and main loop as the GEMM family's mma kind (kernels/gemm/cuda/gemm_mma.cuh): a block
// computes BM x BN of y with (BM/WM) x (BN/WN) warps, a warp WM x WN as (WM/16) x (WN/8)
// mma.m16n8k16 tiles; an ST-stage cp.async pipeline with one barrier per K tile; shared lines
// [rows][BK + CH] with CH the elements of one 16-byte chunk (8 halves or 4 floats: 16 bytes of
// padding put the 8 lines an ldmatrix reads in distinct banks); fragments of the next K step are
// loaded before the mma of this one issue. tf32 fragments are 32-bit words: an ldmatrix of 8 lines
// of 16 bytes gives lane (g, t) word t of line g, which is the m16n8k8 tf32 A / B fragment for
// these K-contiguous tiles, so both precisions load fragments alike.
//
// The im2col is in the loader: each thread copies fixed 16-byte chunks of the A tile (a fixed
// output pixel, decoded once) and, per K tile, maps the chunk's kk to (r, s, c) and the input
// pixel it reads. VEC = 8: c a multiple of the chunk (8 16-bit or 4 FP32 channels) and 16-byte
// aligned tensors, so a chunk never straddles a filter tap: one cp.async of 16 bytes, zero-filled
// without a read where the tap falls in the padding or past K. VEC = 1 (c = 3 stems, odd c):
// element by element with plain
// loads and shared stores, ordered by the same barriers. Rows past M and columns past N read
// zeros and are not stored.
//
// Launch (conv2d_cuda_launch.hpp, launch_igemm_mma): blockDim.x = 32 · (BM/WM) · (BN/WN); gridDim
// = (ceil(M/BM), ceil(N/BN)); dynamic shared memory ST · (BM + BN) · (BK · E + 16) bytes, E the
// element's bytes (opted in above 48 KiB). Compiled at run time by NVRTC (no standard headers).
#ifndef KTUNE_CONV2D_IGEMM_MMA_CUH
#define KTUNE_CONV2D_IGEMM_MMA_CUH

#include "../../common/cuda/mma_ptx.cuh"  // cp.async, ldmatrix, mma, KtuneMmaElem

template <int BM, int BN, int BK, int ST, int PREC>
__host__ __device__ constexpr int ktune_igemm_smem_bytes() {
  return ST * (BM + BN) * (BK * int(sizeof(typename KtuneMmaElem<PREC>::type)) + 16);
}

// The output pixel of GEMM row m, decoded once per thread: its image's first input element and
// the input coordinates of its window's top-left tap (negative inside the padding).
struct KtuneIgemmPixel {
  long long image;  // img · h · w · c
  int ih0, iw0;
  bool valid;  // m < M
};

// Output columns col and col + 1 (the second only when col + 1 < k) of one row: pairs as one
// 8-byte (float) or 4-byte (16-bit) store where k is even (the pair is then aligned; a 16-bit
// output only 2-byte aligned stores one by one), else one by one. 16 bits: PREC's type (bf16 or
// fp16; ktune_round16).
template <int PREC>
__device__ __forceinline__ void ktune_igemm_store(float* out, int col, int k, float v0, float v1) {
  if ((k & 1) == 0) {
    *reinterpret_cast<float2*>(out) = make_float2(v0, v1);
  } else {
    out[0] = v0;
    if (col + 1 < k) out[1] = v1;
  }
}
template <int PREC>
__device__ __forceinline__ void ktune_igemm_store(unsigned short* out, int col, int k, float v0,
                                                  float v1) {
  const unsigned lo = ktune_round16<PREC>(v0), hi = ktune_round16<PREC>(v1);
  if ((k & 1) == 0 && (reinterpret_cast<unsigned long long>(out) & 3u) == 0) {
    *reinterpret_cast<unsigned*>(out) = lo | (hi << 16);
  } else {
    out[0] = (unsigned short)lo;
    if (col + 1 < k) out[1] = (unsigned short)hi;
  }
}

// The fused epilogue's value of output column col at element `at` (row · k + col): act(v +
// bias[col] + residual[at]), act = ReLU when relu != 0; bias (FP32) and residual (NHWC in the
// output's type Y: float, or PREC's 16 bits) may be null. FP32 sums, before the store's one
// rounding.
template <int PREC>
__device__ __forceinline__ float ktune_igemm_widen(float v) {
  return v;
}
template <int PREC>
__device__ __forceinline__ float ktune_igemm_widen(unsigned short b) {
  return ktune_widen16<PREC>(b);
}
template <int PREC, class Y>
__device__ __forceinline__ float ktune_igemm_epilogue(float v, const float* bias, const Y* residual,
                                                      int relu, long long at, int col) {
  if (bias) v += bias[col];
  if (residual) v += ktune_igemm_widen<PREC>(residual[at]);
  return relu ? fmaxf(v, 0.0f) : v;
}

// EPI = 0 (the sweep's kernel): y = conv(x, w), the last three arguments unused (the launcher
// passes nulls and 0). EPI = 1 (ktune::conv2d_ex's fused epilogue): y = act(conv + bias +
// residual) as ktune_igemm_epilogue, residual of the same type and layout as y (read by the
// thread that writes the same element, so it may be y itself).
template <int BM, int BN, int BK, int WM, int WN, int ST, int PREC, int VEC, class Y = float,
          int EPI = 0>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN))
    ktune_conv2d_igemm_mma(const typename KtuneMmaElem<PREC>::type* __restrict__ x,
                           const typename KtuneMmaElem<PREC>::type* __restrict__ w,
                           Y* __restrict__ y, int n, int h, int wd, int c, int k, int r, int s,
                           int stride, int pad, int p, int q, const float* bias, const Y* residual,
                           int relu) {
  typedef typename KtuneMmaElem<PREC>::type T;
  constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
  constexpr int CH = 16 / int(sizeof(T));  // elements per 16-byte chunk
  constexpr int MK = PREC == 1 ? 8 : 16;   // k of one mma
  constexpr int LINE = BK + CH;            // shared elements per tile line
  constexpr int PER_LINE = BK / CH;        // 16-byte chunks per line
  constexpr int A_COPIES = BM * PER_LINE / THREADS, B_COPIES = BN * PER_LINE / THREADS;
  constexpr int MI = WM / 16, NI = WN / 8;
  static_assert(WM % 16 == 0 && WN % 16 == 0 && BM % WM == 0 && BN % WN == 0, "warp tiles");
  static_assert(BK % 16 == 0 && BK % MK == 0 && ST >= 2, "K tile and stages");
  static_assert((BM * PER_LINE) % THREADS == 0 && (BN * PER_LINE) % THREADS == 0,
                "whole chunks per thread");

  extern __shared__ __align__(16) unsigned char ktune_igemm_shared[];
  T* const smem_a = reinterpret_cast<T*>(ktune_igemm_shared);
  T* const smem_b = smem_a + ST * BM * LINE;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int warp_m = warp % (BM / WM), warp_n = warp / (BM / WM);
  const long long row0 = (long long)blockIdx.x * BM;
  const int col0 = blockIdx.y * BN;
  const long long rows = (long long)n * p * q;
  const int kdim = r * s * c;
  const int sc = s * c;

  // This thread's A chunks: line (output pixel) and offset along K are fixed for the whole loop.
  KtuneIgemmPixel pix[A_COPIES];
#pragma unroll
  for (int l = 0; l < A_COPIES; ++l) {
    const long long m = row0 + (tid + l * THREADS) / PER_LINE;
    pix[l].valid = m < rows;
    const long long mm = pix[l].valid ? m : 0;
    const long long img = mm / ((long long)p * q);
    const int pq = int(mm - img * p * q), op = pq / q, oq = pq - op * q;
    pix[l].image = img * h * wd * c;
    pix[l].ih0 = op * stride - pad;
    pix[l].iw0 = oq * stride - pad;
  }

  // A[m][kk] for this pixel, or zero (padding, past K).
  auto a_value = [&](const KtuneIgemmPixel& px, int kk) -> T {
    if (!px.valid || kk >= kdim) return T(0);
    const int tap = kk / c, ch = kk - tap * c, tr = tap / s, ts = tap - tr * s;
    const int ih = px.ih0 + tr, iw = px.iw0 + ts;
    if (ih < 0 || ih >= h || iw < 0 || iw >= wd) return T(0);
    return x[px.image + ((long long)ih * wd + iw) * c + ch];
  };

  // VEC = 8: every A chunk of this thread sits at the same K offset (THREADS is a multiple of
  // PER_LINE), whose filter tap (tr, ts) and channel ch advance by BK per stage without divisions
  // (stages are loaded in K order).
  int tap_k = (tid % PER_LINE) * CH;
  int tap_r = tap_k / sc, tap_s = (tap_k - tap_r * sc) / c, tap_c = tap_k - tap_r * sc - tap_s * c;

  auto load_stage = [&](int stage, int kt) {
    const int k0 = kt * BK;
    T* const sa = smem_a + stage * BM * LINE;
    T* const sb = smem_b + stage * BN * LINE;
#pragma unroll
    for (int l = 0; l < A_COPIES; ++l) {
      const int copy = tid + l * THREADS, line = copy / PER_LINE, e0 = (copy % PER_LINE) * CH;
      T* dst = sa + line * LINE + e0;
      const int kk = k0 + e0;
      if (VEC == 8) {
        // c % CH == 0: the chunk's CH channels share one filter tap.
        const KtuneIgemmPixel& px = pix[l];
        const T* src = x;
        int bytes = 0;
        if (px.valid && tap_k < kdim) {
          const int ih = px.ih0 + tap_r, iw = px.iw0 + tap_s;
          if (ih >= 0 && ih < h && iw >= 0 && iw < wd) {
            src = x + px.image + ((long long)ih * wd + iw) * c + tap_c;
            bytes = 16;
          }
        }
        ktune_cp_async16(ktune_smem_address(dst), src, bytes);
      } else {
#pragma unroll
        for (int e = 0; e < CH; ++e) dst[e] = a_value(pix[l], kk + e);
      }
    }
#pragma unroll
    for (int l = 0; l < B_COPIES; ++l) {
      const int copy = tid + l * THREADS, line = copy / PER_LINE, e0 = (copy % PER_LINE) * CH;
      T* dst = sb + line * LINE + e0;
      const int j = col0 + line, kk = k0 + e0;
      const T* src = w + (long long)j * kdim + kk;
      if (VEC == 8) {  // kdim % CH == 0: a chunk is all inside K or all past it
        const bool inside = j < k && kk < kdim;
        ktune_cp_async16(ktune_smem_address(dst), inside ? src : w, inside ? 16 : 0);
      } else {
#pragma unroll
        for (int e = 0; e < CH; ++e) dst[e] = j < k && kk + e < kdim ? src[e] : T(0);
      }
    }
    if (VEC == 8) {  // the next stage's tap
      tap_k += BK;
      for (tap_c += BK; tap_c >= c; tap_c -= c)
        if (++tap_s == s) tap_s = 0, ++tap_r;
    }
  };

  float acc[MI][NI][4] = {};  // FP32 accumulators, in registers

  const int k_tiles = (kdim + BK - 1) / BK;
#pragma unroll
  for (int st = 0; st < ST - 1; ++st) {
    if (st < k_tiles) load_stage(st, st);
    ktune_cp_async_commit();
  }

  const int g = lane >> 2, t = lane & 3;    // mma fragment coordinates
  const int mq = lane >> 3, r8 = lane & 7;  // ldmatrix: the matrix and line this lane addresses
  const int wr = warp_m * WM, wc = warp_n * WN;

  // A: matrices (rows 0-7, k 0-h), (rows 8-15, k 0-h), (rows 0-7, k h-2h), (rows 8-15, k h-2h)
  // -> a0..a3, h = one 16-byte chunk of k (CH elements); B: (cols 0-7, k 0-h), (cols 0-7,
  // k h-2h), (cols 8-15, k 0-h), (cols 8-15, k h-2h) -> b0, b1 of two n tiles.
  auto load_fragments = [&](unsigned(&af)[MI][4], unsigned(&bf)[NI][2], const T* sa, const T* sb,
                            int kk) {
#pragma unroll
    for (int i = 0; i < MI; ++i) {
      const int row = wr + i * 16 + (mq & 1) * 8 + r8;
      ktune_ldmatrix_x4<0>(af[i], ktune_smem_address(sa + row * LINE + kk + (mq >> 1) * CH));
    }
#pragma unroll
    for (int j = 0; j < NI; j += 2) {
      const int col = wc + j * 8 + (mq >> 1) * 8 + r8;
      unsigned v[4];
      ktune_ldmatrix_x4<0>(v, ktune_smem_address(sb + col * LINE + kk + (mq & 1) * CH));
      bf[j][0] = v[0], bf[j][1] = v[1], bf[j + 1][0] = v[2], bf[j + 1][1] = v[3];
    }
  };

  int read_stage = 0, write_stage = ST - 1;
  for (int kt = 0; kt < k_tiles; ++kt) {
    ktune_cp_async_wait<ST - 2>();  // this tile's copies landed
    __syncthreads();
    if (kt + ST - 1 < k_tiles) load_stage(write_stage, kt + ST - 1);
    write_stage = write_stage == ST - 1 ? 0 : write_stage + 1;
    ktune_cp_async_commit();

    const T* const sa = smem_a + read_stage * BM * LINE;
    const T* const sb = smem_b + read_stage * BN * LINE;
    read_stage = read_stage == ST - 1 ? 0 : read_stage + 1;
    unsigned af[2][MI][4], bf[2][NI][2];
    load_fragments(af[0], bf[0], sa, sb, 0);
#pragma unroll
    for (int step = 0; step < BK / MK; ++step) {
      if (step + 1 < BK / MK)
        load_fragments(af[(step + 1) & 1], bf[(step + 1) & 1], sa, sb, (step + 1) * MK);
      if (PREC == 1) ktune_mma_round_tf32(af[step & 1], bf[step & 1]);  // tf32
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) ktune_mma<PREC>(acc[i][j], af[step & 1][i], bf[step & 1][j]);
    }
  }
  ktune_cp_async_wait<0>();

  // Epilogue: c0, c1 at (g, 2t), (g, 2t + 1) of an mma tile, c2, c3 eight rows below, stored in
  // pairs (ktune_igemm_store).
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const long long row = row0 + wr + i * 16 + g + half * 8;
        const int col = col0 + wc + j * 8 + 2 * t;
        if (row >= rows || col >= k) continue;
        float v0 = acc[i][j][2 * half], v1 = acc[i][j][2 * half + 1];
        if constexpr (EPI != 0) {
          v0 = ktune_igemm_epilogue<PREC>(v0, bias, residual, relu, row * k + col, col);
          if (col + 1 < k)
            v1 = ktune_igemm_epilogue<PREC>(v1, bias, residual, relu, row * k + col + 1, col + 1);
        }
        ktune_igemm_store<PREC>(y + row * k + col, col, k, v0, v1);
      }
}

#endif  // KTUNE_CONV2D_IGEMM_MMA_CUH
