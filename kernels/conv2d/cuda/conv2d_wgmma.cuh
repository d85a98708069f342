// Implicit-GEMM convolution on the Hopper warpgroup MMAs (sm_90a only; the conv2d kind
// cuda_igemm_wgmma through conv2d_wgmma_launch.hpp, the network engine's ktune-cuda-bf16 through
// conv2d_wgmma_call.cu (ktune::conv2d_wgmma_bf16), and the standalone wgmma_conv_check.cu): bf16 /
// fp16 input NHWC and filter KRSC (PREC 2 bf16, PREC 3 fp16), or FP32 ones read as tf32 (PREC 1:
// the tensor cores ignore the low 13 mantissa bits, i.e. truncate, as the GEMM's wgmma tf32 kind;
// the family's tf32 bound covers it), FP32 accumulation, output NHWC by
// the epilogue EPI (default KtuneConvWgOutF32: FP32, as stored before epilogues existed;
// KtuneConvWgOutF32Epi: FP32 of act(acc + bias + residual); KtuneConvWgOutTf32Epi: the same
// rounded to TF32; KtuneConvWgOutBf16 / KtuneConvWgOutFp16: bf16 / fp16 of the same;
// KtuneConvWgOut16Plain: bf16 / fp16 of the accumulator),
// dilation 1, symmetric zero padding. A K tile is one filter tap's 128 bytes of channels: 64
// 16-bit ones (c % 64 == 0) or 32 tf32 ones (c % 32 == 0); a 128-byte row is a 128-byte row, so
// the swizzle, the boxes' bytes, the descriptors and the four 32-byte K steps (k16, or k8 in tf32)
// are the same in every precision.
//
// GEMM view as kind cuda_igemm_mma: M = output pixels, N = k, K = r·s·c in KRSC order. A block
// computes an output tile of NB images x HT rows x WT columns (HT·WT·NB = 128 GEMM rows) by BN
// channels. The im2col is done by the copy engine: A's tensor map is 4-d over the NHWC input
// {c, w, h, n} with box {CB, WT·stride, HT·stride, NB} (CB = 64, or 32 in tf32) and traversal
// strides {1, stride, stride, 1} (TMA loads ceil(box / stride) elements a dimension), so K tile
// (tap r, s; channel block cb) is the box at (CB·cb, q0·stride + s − pad, p0·stride + r − pad,
// img0): coordinates outside the tensor (the padding, negative ones included, and past the image)
// land as zeros. The box lands as [128 rows (nb, ht, wt)][CB channels], 128 bytes a row, 128-byte
// swizzled: exactly a K-major A tile. B's map is over the filter [k][r·s·c] (3-d, unit last
// dimension), box {CB, BN, 1}.
//
// Block: 3 warpgroups (384 threads), one producer thread (TMA into an ST-stage ring with full /
// empty mbarriers) and two consumer warpgroups of 64 rows each issuing wgmma m64nBNk16, one commit
// group in flight. Grid: (output tiles, ceil(k / BN)), or with PERSIST = 1 a persistent 1-d grid
// walking the same work items (below). Epilogue: rows whose pixel
// is past the output (p >= P, q >= Q, image >= n) and columns past k are not stored; EPI::store
// gets each thread's pairs of adjacent columns straight from the accumulator registers (no shared
// memory staging: the network's layers are small enough that the stores hide behind other blocks);
// the 16-bit outputs' EPI::store_blocks get two blocks' pairs and exchange them inside the
// quad so that each store writes whole 32-byte sectors (ktune_cwg_store16_quad).
#ifndef KTUNE_CONV2D_WGMMA_CUH
#define KTUNE_CONV2D_WGMMA_CUH

#include "../../common/cuda/mma_ptx.cuh"    // ktune_mma_tf32: cvt.rna to TF32
#include "../../common/cuda/wgmma_ptx.cuh"  // TMA, mbarriers, wgmma

template <int BN, int ST>
struct KtuneConvWgSmem {
  static constexpr int kA = 128 * 128, kB = BN * 128;  // bytes of one stage's tiles
  static constexpr int kBytes = ST * (kA + kB) + 16 * ST + 1024;
};

// The problem as the kernel sees it.
struct KtuneConvWgShape {
  int n, h, w, c, k, r, s, stride, pad, p, q;
  int tiles_p, tiles_q, tiles_n;  // output tiles along p, q and images
};

// Epilogues: `Params` is the kernel's last argument; store() writes output columns col and col + 1
// (col even, k even: the launchers refuse odd k) of the NHWC element offset `at` (pixel · k).
// FP32, no bias: the accumulator as it is (the kernel's first output, kept bit for bit).
struct KtuneConvWgOutF32 {
  typedef float* Params;
  static __device__ __forceinline__ void store(Params y, long long at, int col, int k, float v0,
                                               float v1) {
    if (col + 1 < k)
      *reinterpret_cast<float2*>(y + at + col) = make_float2(v0, v1);
    else if (col < k)
      y[at + col] = v0;
  }
};

// FP32 of act(acc + bias[col] + residual[at + col]), act = ReLU when relu != 0; bias and residual
// (FP32 NHWC like y, read by the thread that writes the same element) may be null:
// ktune::conv2d_ex's fused epilogue in FP32 output (KtuneConvWgOutF32 stays the sweep's plain
// store). The residual is fetched (fetch(), the kernel's step before a row's stores) rather than
// read in store(): see KtuneCwgFetches.
struct KtuneConvWgOutF32Epi {
  struct Params {
    float* y;
    const float* bias;
    const float* residual;
    int relu;
  };
  typedef float2 Fetched;  // the residual at columns col, col + 1; zeros without one
  static __device__ __forceinline__ Fetched fetch(const Params& o, long long at, bool valid,
                                                  int col, int k) {
    if (!o.residual || !valid || col >= k) return make_float2(0.0f, 0.0f);
    const float* r = o.residual + at + col;  // col + 1 < k too: k is even
    if ((reinterpret_cast<unsigned long long>(r) & 7) == 0)
      return *reinterpret_cast<const float2*>(r);
    return make_float2(r[0], r[1]);
  }
  static __device__ __forceinline__ float act(const Params& o, int col, float v, float residual) {
    if (o.bias) v += o.bias[col];
    if (o.residual) v += residual;
    return o.relu ? fmaxf(v, 0.0f) : v;
  }
  static __device__ __forceinline__ float stored(const Params& o, int col, float v,
                                                 float residual) {
    return act(o, col, v, residual);
  }
  static __device__ __forceinline__ void store(const Params& o, long long at, int col, int k,
                                               float v0, float v1, Fetched r) {
    store_pair<KtuneConvWgOutF32Epi>(o, at, col, k, v0, v1, r);
  }

 protected:
  // Columns col and col + 1 of FP32 output as EPI::stored makes them.
  template <class EPI>
  static __device__ __forceinline__ void store_pair(const Params& o, long long at, int col, int k,
                                                    float v0, float v1, Fetched r) {
    if (col + 1 < k)
      *reinterpret_cast<float2*>(o.y + at + col) =
          make_float2(EPI::stored(o, col, v0, r.x), EPI::stored(o, col + 1, v1, r.y));
    else if (col < k)
      o.y[at + col] = EPI::stored(o, col, v0, r.x);
  }
};

// KtuneConvWgOutF32Epi's result rounded to TF32 (nearest, ties away: cvt.rna) and stored as FP32:
// the network engine's tf32 layers (TF32 storage, nn/cuda/cuda_backend.hpp), whose next wgmma
// layer then reads its input exactly instead of truncating it.
struct KtuneConvWgOutTf32Epi : KtuneConvWgOutF32Epi {
  static __device__ __forceinline__ float stored(const Params& o, int col, float v,
                                                 float residual) {
    return __uint_as_float(ktune_mma_tf32(act(o, col, v, residual)));
  }
  static __device__ __forceinline__ void store(const Params& o, long long at, int col, int k,
                                               float v0, float v1, Fetched r) {
    store_pair<KtuneConvWgOutTf32Epi>(o, at, col, k, v0, v1, r);
  }
};

// Two adjacent columns of a 16-bit output as one 32-bit word (column col in the low half),
// each rounded once to nearest even in PREC16's type by one paired conversion (cvt.rn.bf16x2 /
// f16x2: the bits of ktune_round16 for every non-NaN value; a NaN stays NaN with cvt's payload).
// The plain bf16 store by ktune_round16's integer rounding measured 7 % slower (1.11x the FP32
// store's time against 1.04x; fp16 alike either way; H200, results/h200/conv-wgmma-out16).
template <int PREC16>
__device__ __forceinline__ unsigned ktune_cwg_pack16(float lo, float hi) {
  static_assert(PREC16 == 2 || PREC16 == 3, "16-bit outputs are bf16 (2) or fp16 (3)");
  unsigned w;
  if (PREC16 == 2)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
}

// Stores a quad's 16-bit words of two adjacent accumulator blocks j, j + 1 (columns c0 = k0 + 8j
// ... c0 + 15 of one output row) as whole 32-byte sectors: lane q of the quad holds w0 (columns
// c0 + 2q, + 1) and w1 (c0 + 8 + 2q, + 1); two exchanges inside the quad give lane q columns
// c0 + 4q ... c0 + 4q + 3, which it stores as 8 bytes. Storing the words as they are (4 bytes, half
// a sector a quad an instruction) measured 2 % slower geomean and 3 % time-weighted (H200, plain
// output, 186 fp16 and 124 bf16 layer x config pairs; single layers either way: the largest
// output, ResNet-50 conv2_1 b16, 1.4x slower, small batch-1 layers up to 1.2x faster, one bf16
// outlier 1.4x; ncu: warps stalled draining their stores at exit; results/h200/conv-wgmma-out16).
// Every lane of the warp must call it (shuffles); `valid` (uniform in a quad: one row) says
// whether the row is stored. Columns past k are not stored; k is even. Callers skip block pairs
// wholly past k (c0 >= k, uniform in the warp) before computing their words.
__device__ __forceinline__ void ktune_cwg_store16_quad(unsigned short* y, long long at, bool valid,
                                                       int c0, int k, unsigned w0, unsigned w1) {
  const int q = threadIdx.x & 3;
  // Exchange 1 (lanes q, q ^ 2): lanes 0, 1 keep block j's word and get lane q + 2's; lanes 2, 3
  // keep block j + 1's and get lane q - 2's. Then (lo, hi) are columns 2q', 2q' + 8 of one block.
  const unsigned got = __shfl_xor_sync(0xffffffffu, q < 2 ? w1 : w0, 2);
  const unsigned lo = q < 2 ? w0 : got, hi = q < 2 ? got : w1;
  // Exchange 2 (lanes q, q ^ 1): even lanes take the odd partner's lo, odd lanes the even
  // partner's hi: lane q now holds 4 consecutive columns.
  const unsigned other = __shfl_xor_sync(0xffffffffu, (q & 1) ? lo : hi, 1);
  const unsigned first = (q & 1) ? other : lo, second = (q & 1) ? hi : other;
  if (!valid) return;
  const int col = c0 + 4 * q;  // even, as k: whole column pairs
  unsigned short* p = y + at + col;
  if (col + 3 < k && (reinterpret_cast<unsigned long long>(p) & 7) == 0) {
    *reinterpret_cast<uint2*>(p) = make_uint2(first, second);
  } else {
    if (col < k) *reinterpret_cast<unsigned*>(p) = first;
    if (col + 2 < k) *reinterpret_cast<unsigned*>(p + 2) = second;
  }
}

// The data's 16-bit type (PREC16 2: bf16, 3: fp16, as raw bits: NVRTC has no cuda_bf16.h /
// cuda_fp16.h) of act(acc + bias[col] + residual[at + col]), act = ReLU when relu != 0; bias and
// residual (in the output's type) may be null. FP32 sums, one rounding to nearest even (the bits of
// nn/cuda/layer_kernels.cu's epilogue for every non-NaN value): what the network engine's bf16
// layers and conv2d_ex's fused 16-bit outputs store. Stored like KtuneConvWgOut16Plain, a block
// pair at a time (quad exchange, whole sectors, one paired cvt a column pair), the epilogue's
// tests once per four values. Until session 24 it stored a column pair (4 bytes) at a time with
// the tests per value: 1.32x the plain FP32 store's time with a bias and ReLU (H200,
// results/h200/conv-wgmma-out16); wgmma_conv_check's bench-out keeps that store
// (out16fusedword) to compare. The residual is fetched a word per column pair before the row's
// stores (fetch(), KtuneCwgFetches; out16fusedresinter keeps the reads between the stores).
template <int PREC16>
struct KtuneConvWgOut16 {
  struct Params {
    unsigned short* y;
    const float* bias;
    const unsigned short* residual;  // PREC16's bits, NHWC like y
    int relu;
  };
  // The residual words of this lane's column pairs (a, a + 1) and (b, b + 1) of the block pair at
  // c0 (a word: the low half column a); zeros without a residual or past k.
  typedef uint2 Fetched;
  static __device__ __forceinline__ Fetched fetch(const Params& o, long long at, bool valid, int c0,
                                                  int k) {
    Fetched r = make_uint2(0u, 0u);
    if (!o.residual || !valid || c0 >= k) return r;
    const int a = c0 + 2 * (threadIdx.x & 3), b = a + 8;
    const unsigned short* p = o.residual + at;  // at, a and b are even
    if ((reinterpret_cast<unsigned long long>(o.residual) & 3) == 0) {
      if (a < k) r.x = *reinterpret_cast<const unsigned*>(p + a);
      if (b < k) r.y = *reinterpret_cast<const unsigned*>(p + b);
    } else {
      if (a < k) r.x = p[a] | unsigned(p[a + 1]) << 16;
      if (b < k) r.y = p[b] | unsigned(p[b + 1]) << 16;
    }
    return r;
  }
  static __device__ __forceinline__ void store_blocks(const Params& o, long long at, bool valid,
                                                      int c0, int k, float v0, float v1, float v2,
                                                      float v3, Fetched r) {
    if (c0 >= k) return;
    // This lane's columns: (v0, v1) at a, a + 1 and (v2, v3) at b, b + 1 (a, b, k even).
    const int a = c0 + 2 * (threadIdx.x & 3), b = a + 8;
    if (o.bias) {
      if (a < k) v0 += o.bias[a], v1 += o.bias[a + 1];
      if (b < k) v2 += o.bias[b], v3 += o.bias[b + 1];
    }
    if (o.residual && valid) {  // columns past k are not stored: their zero words do no harm
      v0 += ktune_widen16<PREC16>((unsigned short)(r.x & 0xFFFFu));
      v1 += ktune_widen16<PREC16>((unsigned short)(r.x >> 16));
      v2 += ktune_widen16<PREC16>((unsigned short)(r.y & 0xFFFFu));
      v3 += ktune_widen16<PREC16>((unsigned short)(r.y >> 16));
    }
    if (o.relu)
      v0 = fmaxf(v0, 0.0f), v1 = fmaxf(v1, 0.0f), v2 = fmaxf(v2, 0.0f), v3 = fmaxf(v3, 0.0f);
    ktune_cwg_store16_quad(o.y, at, valid, c0, k, ktune_cwg_pack16<PREC16>(v0, v1),
                           ktune_cwg_pack16<PREC16>(v2, v3));
  }
};
typedef KtuneConvWgOut16<2> KtuneConvWgOutBf16;
typedef KtuneConvWgOut16<3> KtuneConvWgOutFp16;

// The data's 16-bit type of the accumulator as it is (no bias, residual or ReLU): the plain
// 16-bit output, as KtuneConvWgOutF32 is the plain FP32 one, stored a block pair at a time as
// whole sectors (ktune_cwg_store16_quad). Bit for bit KtuneConvWgOut16 with null bias and
// residual and relu 0, without their per-element tests.
template <int PREC16>
struct KtuneConvWgOut16Plain {
  typedef unsigned short* Params;
  static __device__ __forceinline__ void store_blocks(Params y, long long at, bool valid, int c0,
                                                      int k, float v0, float v1, float v2,
                                                      float v3) {
    if (c0 >= k) return;
    ktune_cwg_store16_quad(y, at, valid, c0, k, ktune_cwg_pack16<PREC16>(v0, v1),
                           ktune_cwg_pack16<PREC16>(v2, v3));
  }
};

// Whether EPI stores a block pair at a time (store_blocks: the plain 16-bit output) rather than a
// column pair (store).
template <class EPI, class = void>
struct KtuneCwgStoresBlocks {
  static constexpr bool value = false;
};
template <class EPI>
struct KtuneCwgStoresBlocks<EPI, decltype((void)&EPI::store_blocks)> {
  static constexpr bool value = true;
};

// Whether EPI reads memory besides its output (the residual): then it has `Fetched` and
// `fetch()`, and the kernel fetches a row's values for up to 8 column blocks (or block pairs)
// before it stores any of them. Read inside store(), each read waited for the previous column's
// store to complete: y and the residual may alias as far as the compiler knows, so it cannot
// move a read above a store, and a row paid one memory latency per block. Fetched, the fused
// epilogue with a residual takes 0.930 (16-bit, geomean; 0.880 time-weighted) and 0.874 (FP32;
// 0.778) of the time it took with the reads between the stores (H200, bf16 input, 124 layer x
// config pairs; results/h200/conv-wgmma-residual-fetch). Fetched after the main loop, the loads'
// latency was still the epilogue's time on short-K layers (ncu: long-scoreboard stalls, DRAM at
// 19 % of peak; ncu-shortk.md there), so the kernel now fetches both rows' values at the start of
// a work item, before its main loop, where that costs at most 64 registers a thread: 0.934 / 0.922
// (16-bit residual) and 0.926 / 0.901 (FP32) of the time of the after-the-loop fetch, which
// wgmma_conv_check keeps as out16fusedreslate / f32epireslate (H200, bf16 input, same 124 pairs;
// results/h200/conv-wgmma-residual-early).
template <class EPI, class = void>
struct KtuneCwgFetches {
  static constexpr bool value = false;
};
template <class EPI>
struct KtuneCwgFetches<EPI, decltype((void)&EPI::fetch)> {
  static constexpr bool value = true;
};
// Whether EPI asks for its fetch after the main loop even where registers allow it before (a
// member type `fetch_late`: wgmma_conv_check's twins of the session-25 epilogue, to compare).
template <class EPI, class = void>
struct KtuneCwgFetchesLate {
  static constexpr bool value = false;
};
template <class EPI>
struct KtuneCwgFetchesLate<EPI, typename EPI::fetch_late> {
  static constexpr bool value = true;
};
// EPI::Fetched where EPI fetches, else an empty type (what the kernel's fetch arrays hold).
template <class EPI, class = void>
struct KtuneCwgFetchedOf {
  struct type {};
};
template <class EPI>
struct KtuneCwgFetchedOf<EPI, decltype((void)&EPI::fetch)> {
  typedef typename EPI::Fetched type;
};

// A block's share of the work: output tile (p0, q0, img0) by channel block k0 of work item w
// (output tiles fastest, as the 2-d grid (output tiles, channel blocks) numbers them).
template <int HT, int WT, int NB, int BN>
__device__ __forceinline__ void ktune_conv_wg_work(const KtuneConvWgShape& sh, int w, int& p0,
                                                   int& q0, int& img0, int& k0) {
  const int tiles = sh.tiles_p * sh.tiles_q * sh.tiles_n;
  int t = w % tiles;
  k0 = (w / tiles) * BN;
  q0 = (t % sh.tiles_q) * WT;
  t /= sh.tiles_q;
  p0 = (t % sh.tiles_p) * HT;
  img0 = (t / sh.tiles_p) * NB;
}

// PERSIST 0: one work item a block, grid (output tiles, ceil(k / BN)). PERSIST 1: a 1-d grid of
// any size (the launcher's: one block an SM) walks the work items w = blockIdx.x, + gridDim.x, ...;
// the producer runs on into the next item's K tiles while the consumers store the last one (the
// ring's last stage is released before the epilogue), so the epilogue overlaps the next loads.
template <int HT, int WT, int NB, int BN, int ST, int PREC, class EPI = KtuneConvWgOutF32,
          int PERSIST = 0>
__global__ void __launch_bounds__(384, 1)
    ktune_conv2d_wgmma(const __grid_constant__ KtuneTmaMap map_x,
                       const __grid_constant__ KtuneTmaMap map_w, KtuneConvWgShape sh,
                       const typename EPI::Params y) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(HT * WT * NB == 128, "128 GEMM rows a block: two consumer warpgroups of 64");
  static_assert(BN == 64 || BN == 128 || BN == 256, "wgmma N");
  typedef KtuneConvWgSmem<BN, ST> S;
  extern __shared__ unsigned char ktune_cwg_smem[];
  const unsigned base = (ktune_wg_smem_address(ktune_cwg_smem) + 1023u) & ~1023u;
  const unsigned tiles_a = base, tiles_b = base + ST * S::kA, full = tiles_b + ST * S::kB;
  const unsigned empty = full + 8 * ST;
  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int st = 0; st < ST; ++st) {
      ktune_wg_bar_init(full + 8 * st, 1);
      ktune_wg_bar_init(empty + 8 * st, 8);  // 8 consumer warps
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int items = PERSIST ? sh.tiles_p * sh.tiles_q * sh.tiles_n * ((sh.k + BN - 1) / BN) : 0;
  const int first = PERSIST ? blockIdx.x : blockIdx.y * gridDim.x + blockIdx.x;
  const int step = PERSIST ? gridDim.x : 1, last = PERSIST ? items : first + 1;
  constexpr int CB = PREC == 1 ? 32 : 64;  // channels in a K tile's 128-byte rows
  const int c_blocks = sh.c / CB;
  const int k_tiles = sh.r * sh.s * c_blocks;

  if (tid < 128) {  // producer warpgroup
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0) {
      int it = 0;  // K tiles loaded by this block: the ring position
      for (int w = first; w < last; w += step) {
        int p0, q0, img0, k0;
        ktune_conv_wg_work<HT, WT, NB, BN>(sh, w, p0, q0, img0, k0);
        for (int tr = 0; tr < sh.r; ++tr)
          for (int ts = 0; ts < sh.s; ++ts)
            for (int cb = 0; cb < c_blocks; ++cb, ++it) {
              const unsigned st = it % ST, bar = full + 8 * st;
              ktune_wg_bar_wait(empty + 8 * st, ((it / ST) & 1) ^ 1);
              ktune_wg_bar_expect(bar, S::kA + S::kB);
              ktune_wg_tma_load_4d(tiles_a + st * S::kA, &map_x, cb * CB,
                                   q0 * sh.stride + ts - sh.pad, p0 * sh.stride + tr - sh.pad, img0,
                                   bar);
              ktune_wg_tma_load(tiles_b + st * S::kB, &map_w, (tr * sh.s + ts) * sh.c + cb * CB, k0,
                                0, bar);
            }
      }
    }
  } else {  // consumer warpgroups: 64 rows each
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int cw = tid / 128 - 1, warp = (tid / 32) & 3, lane = tid & 31;
    int g = 0;  // K tiles consumed by this block: the ring position
    // A row's stores go a unit at a time: a block pair (16 columns) for the 16-bit outputs'
    // store_blocks, a column pair of one block (8 columns apart) for store.
    constexpr bool kBlocks = KtuneCwgStoresBlocks<EPI>::value;
    constexpr int kUnits = kBlocks ? BN / 16 : BN / 8;  // a row's units
    typedef typename KtuneCwgFetchedOf<EPI>::type Fetched;
    // Fetch both rows' residual at the start of a work item, so that the loads overlap its main
    // loop, where that costs at most 64 registers a thread; else a row's up to 8 units at a time
    // after the main loop, before their stores (KtuneCwgFetches).
    constexpr bool kEarly = KtuneCwgFetches<EPI>::value && !KtuneCwgFetchesLate<EPI>::value &&
                            2 * kUnits * sizeof(Fetched) <= 256;
    for (int w = first; w < last; w += step) {
      int p0, q0, img0, k0;
      ktune_conv_wg_work<HT, WT, NB, BN>(sh, w, p0, q0, img0, k0);
      // This thread's two output rows (accumulator rows 16·warp + lane/4 and + 8 of its
      // warpgroup's 64; (nb, ht, wt), wt fastest): NHWC offsets, and whether they are stored.
      long long at[2];
      bool valid[2];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = cw * 64 + warp * 16 + lane / 4 + half * 8;
        const int wt = row % WT, ht = (row / WT) % HT, nb = row / (WT * HT);
        const int op = p0 + ht, oq = q0 + wt, img = img0 + nb;
        valid[half] = op < sh.p && oq < sh.q && img < sh.n;
        at[half] = valid[half] ? (((long long)img * sh.p + op) * sh.q + oq) * sh.k : 0;
      }
      // Column of unit u: the block pair's first column, or this lane's column pair.
      auto col_of = [&](int u) { return kBlocks ? k0 + u * 16 : k0 + u * 8 + (lane & 3) * 2; };
      Fetched early[2][kEarly ? kUnits : 1];
      if constexpr (kEarly) {
#pragma unroll
        for (int half = 0; half < 2; ++half)
#pragma unroll
          for (int u = 0; u < kUnits; ++u)
            early[half][u] = EPI::fetch(y, at[half], valid[half], col_of(u), sh.k);
      }
      float acc[BN / 2];
#pragma unroll
      for (int j = 0; j < BN / 2; ++j) acc[j] = 0.0f;
      for (int kt = 0; kt < k_tiles; ++kt, ++g) {
        const unsigned st = g % ST;
        ktune_wg_bar_wait(full + 8 * st, (g / ST) & 1);
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        const unsigned sa = tiles_a + st * S::kA + cw * 64 * 128, sb = tiles_b + st * S::kB;
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)  // k16 (tf32: k8) steps of 32 bytes inside the swizzle atom
          ktune_wgmma<BN, PREC, 0, 0>(acc, ktune_wg_desc(sa + kk * 32, 16, 1024),
                                      ktune_wg_desc(sb + kk * 32, 16, 1024));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
        if (kt > 0 && lane == 0) ktune_wg_bar_arrive(empty + 8 * ((g + ST - 1) % ST));
      }
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      // Pins every accumulator read after the wait: without it the compiler may hoist the
      // epilogue's register-only work (the 16-bit stores' conversions) above it, and ptxas then
      // serializes the wgmma pipeline to keep those reads safe (warnings C7514 / C7519).
#pragma unroll
      for (int j = 0; j < BN / 2; ++j) asm volatile("" : "+f"(acc[j])::"memory");
      // The last stage is free once its MMAs are done: the producer refills it while we store.
      if (PERSIST && lane == 0) ktune_wg_bar_arrive(empty + 8 * ((g + ST - 1) % ST));
      // Unit u of row `half`: accumulator blocks j = 2u, 2u + 1 (block pairs) or j = u; a block's
      // registers acc[4j + 2·half], + 1.
      auto store_unit = [&](int half, int u, const Fetched& f) {
        const int j = kBlocks ? 2 * u : u, a = j * 4 + half * 2;
        if constexpr (kBlocks) {  // shuffles: every lane takes part
          if constexpr (KtuneCwgFetches<EPI>::value)
            EPI::store_blocks(y, at[half], valid[half], col_of(u), sh.k, acc[a], acc[a + 1],
                              acc[a + 4], acc[a + 5], f);
          else
            EPI::store_blocks(y, at[half], valid[half], col_of(u), sh.k, acc[a], acc[a + 1],
                              acc[a + 4], acc[a + 5]);
        } else if (valid[half]) {
          if constexpr (KtuneCwgFetches<EPI>::value)
            EPI::store(y, at[half], col_of(u), sh.k, acc[a], acc[a + 1], f);
          else
            EPI::store(y, at[half], col_of(u), sh.k, acc[a], acc[a + 1]);
        }
      };
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        if constexpr (kEarly || !KtuneCwgFetches<EPI>::value) {
#pragma unroll
          for (int u = 0; u < kUnits; ++u) store_unit(half, u, early[half][kEarly ? u : 0]);
        } else {
          constexpr int kChunk = kUnits < 8 ? kUnits : 8;
#pragma unroll
          for (int u0 = 0; u0 < kUnits; u0 += kChunk) {
            Fetched f[kChunk];
#pragma unroll
            for (int i = 0; i < kChunk; ++i)
              f[i] = EPI::fetch(y, at[half], valid[half], col_of(u0 + i), sh.k);
#pragma unroll
            for (int i = 0; i < kChunk; ++i) store_unit(half, u0 + i, f[i]);
          }
        }
      }
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

#endif  // KTUNE_CONV2D_WGMMA_CUH
