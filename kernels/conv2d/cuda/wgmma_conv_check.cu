// Device check and bench of conv2d_wgmma.cuh (standalone, nvcc -gencode=arch=compute_90a,
// code=sm_90a; the kernel's older bench: the family kind cuda_igemm_wgmma is checked by
// tests/gpu/test_conv2d_igemm_wgmma.cpp). `test`: every config, one block a work item and
// persistent (3 blocks walking all work items), x bf16 / fp16 x edge shapes (odd h / w, stride
// 1 / 2, pad 0..3, r 1 / 3 / 7, batch 1 and 3, k not a multiple of BN) against a float64
// reference of the same rounded inputs, output poisoned with NaN, every element checked, then a
// planted error that the check must catch. `bench LAYERS.csv [CONFIG...]`: every config (or
// those whose name contains a CONFIG; persistent ones on one block an SM) per layer
// (median of 7 event-timed batches of 20 launches after 3 warm-ups, rotating among input copies
// that together exceed twice the L2), 1024 sampled outputs of each config's
// result checked against float64; one CSV row a layer and config on stdout.
// `bench-out LAYERS.csv [CONFIG...]`: the same timing (one block a work item; fp16, or bf16 with
// KTUNE_PREC=2) of each config with each output epilogue — f32 (KtuneConvWgOutF32), f32epi
// (KtuneConvWgOutF32Epi with no bias, residual or ReLU), out16 (KtuneConvWgOut16 likewise),
// out16plain (KtuneConvWgOut16Plain), out16word (the same stored 4 bytes a lane, as before the
// quad exchange), out16fused (KtuneConvWgOut16 with a bias and ReLU), out16plainint
// (out16plain rounding by ktune_round16, as before the paired cvt), out16fusedword (out16fused
// stored 4 bytes a lane with per-value tests, as before session 24), out16fusedres /
// out16fusedresword (the same two with a residual too), out16fusedresinter (out16fusedres
// reading the residual between the stores, as before the fetch step), f32epires /
// f32epiresinter (KtuneConvWgOutF32Epi with a bias, ReLU and an FP32 residual, and the same
// reading it between the stores), out16fusedreslate / f32epireslate (out16fusedres / f32epires
// fetching after the main loop, as in session 25) and none (no store: the main loop's time) — one
// CSV row each;
// f32epi checked equal to f32, f32epires* to f32's values plus bias and residual, and the 16-bit
// outputs to f32's values rounded once (bit for bit). KTUNE_BATCHES / KTUNE_REPS (default 7 / 20)
// shrink it for a profiler; KTUNE_EPILOGUES=a,b,... times only those (and f32, which the others
// are checked against).
//
// Error bound per element (the inputs are exact in both 16-bit formats, products are exact in
// FP32, so the only error is FP32 accumulation over K = r·s·c terms): |y − ref| <= K · 2^-22 ·
// sum |x·w|, i.e. 4x the textbook gamma_K = K · u (u = 2^-24) for the tensor cores' unspecified
// summation order.
//
// `test` also runs every config with the bf16 epilogue (KtuneConvWgOutBf16: y = bf16(act(acc +
// bias + residual))), ReLU and the residual each on for half the configs, random bias and
// residual, output poisoned with bf16 NaN, every element checked against t = act(ref + bias +
// residual) in float64 with |y − t| <= 2^-8 · |t| + 1.01 · (K · 2^-22 · sum |x·w| + 2^-23 · (|ref|
// + |bias| + |residual|)): one bf16 rounding (unit 2^-8) of an FP32 value that carries the
// accumulation bound above plus two FP32 additions (ReLU does not enlarge an error), then a
// planted error that the check must catch. And every config with the plain 16-bit output
// (KtuneConvWgOut16Plain, quad-exchanged stores) into an 8-byte and a 4-byte aligned buffer, bit
// for bit the FP32 output rounded once, nothing written outside the output, a planted error.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../common/cuda/tma_encode.hpp"
#include "conv2d_wgmma.cuh"

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace {

struct Problem {
  int n, h, w, c, k, r, s, stride, pad;
  int p() const { return (h + 2 * pad - r) / stride + 1; }
  int q() const { return (w + 2 * pad - s) / stride + 1; }
};

struct Config {
  int ht, wt, nb, bn, st;
};

// Launches `reps` times, input copy i % copies on launch i (tensor maps encoded up front); with
// events, records `start` after the host work and before the first launch, `stop` after the last.
using Launch = cudaError_t (*)(const Problem&, void* const* x, void* const* w, int copies, float* y,
                               int reps, cudaEvent_t start, cudaEvent_t stop);
// One launch with the bf16 epilogue.
using LaunchBf16 = cudaError_t (*)(const Problem&, void* x, void* w,
                                   const KtuneConvWgOutBf16::Params& y);

// The tensor maps of one call: 4-d over the NHWC input (box {64, WT·stride, HT·stride, NB},
// traversal strides {1, stride, stride, 1}), 3-d over the KRSC filter {r·s·c, k, 1} (box {64, BN,
// 1}).
bool encode_maps(const Problem& pb, const Config& cf, int prec, const void* x, const void* w,
                 CUtensorMap* mx, CUtensorMap* mw) {
  auto enc = ktune::kernels::tma::encoder();
  if (!enc) return false;
  const CUtensorMapDataType dt =
      prec == 2 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const cuuint64_t dx[4] = {cuuint64_t(pb.c), cuuint64_t(pb.w), cuuint64_t(pb.h), cuuint64_t(pb.n)};
  const cuuint64_t sx[3] = {cuuint64_t(pb.c) * 2, cuuint64_t(pb.w) * pb.c * 2,
                            cuuint64_t(pb.h) * pb.w * pb.c * 2};
  const cuuint32_t bx[4] = {64, cuuint32_t(cf.wt * pb.stride), cuuint32_t(cf.ht * pb.stride),
                            cuuint32_t(cf.nb)};
  const cuuint32_t ex[4] = {1, cuuint32_t(pb.stride), cuuint32_t(pb.stride), 1};
  if (enc(mx, dt, 4, const_cast<void*>(x), dx, sx, bx, ex, CU_TENSOR_MAP_INTERLEAVE_NONE,
          CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  // 3-d (a unit batch dimension): the 3-d copy wrapper of wgmma_ptx.cuh loads it.
  const long long kd = (long long)pb.r * pb.s * pb.c;
  const cuuint64_t dw[3] = {cuuint64_t(kd), cuuint64_t(pb.k), 1};
  const cuuint64_t sw[2] = {cuuint64_t(kd) * 2, cuuint64_t(kd) * 2 * pb.k};
  const cuuint32_t bw[3] = {64, cuuint32_t(cf.bn), 1};
  const cuuint32_t ew[3] = {1, 1, 1};
  return enc(mw, dt, 3, const_cast<void*>(w), dw, sw, bw, ew, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Why a problem is refused ("" when it runs).
std::string refusal(const Problem& pb, const Config& cf) {
  if (pb.c % 64 != 0) return "c % 64 != 0";
  if (pb.k % 2 != 0) return "k odd";
  if (cf.wt * pb.stride > 256 || cf.ht * pb.stride > 256) return "box past 256";
  if (pb.p() <= 0 || pb.q() <= 0) return "empty output";
  return "";
}

// The persistent variants' grid: this many blocks, 0 for one an SM (the tests set a few, so that
// every block walks several work items and the ring runs on across them).
int g_persistent_blocks = 0;

template <int HT, int WT, int NB, int BN, int ST, int PREC, class EPI, int PERSIST>
cudaError_t launch_epi(const Problem& pb, void* const* x, void* const* w, int copies,
                       const typename EPI::Params& y, int reps, cudaEvent_t start,
                       cudaEvent_t stop) {
  const Config cf{HT, WT, NB, BN, ST};
  std::vector<KtuneTmaMap> kx(copies), kw(copies);
  for (int i = 0; i < copies; ++i) {
    CUtensorMap mx, mw;
    if (!encode_maps(pb, cf, PREC, x[i], w[i], &mx, &mw)) return cudaErrorInvalidValue;
    std::memcpy(&kx[i], &mx, sizeof mx);
    std::memcpy(&kw[i], &mw, sizeof mw);
  }
  KtuneConvWgShape sh{pb.n,      pb.h,   pb.w,   pb.c,   pb.k, pb.r, pb.s,
                      pb.stride, pb.pad, pb.p(), pb.q(), 0,    0,    0};
  sh.tiles_p = (sh.p + HT - 1) / HT;
  sh.tiles_q = (sh.q + WT - 1) / WT;
  sh.tiles_n = (pb.n + NB - 1) / NB;
  auto kernel = ktune_conv2d_wgmma<HT, WT, NB, BN, ST, PREC, EPI, PERSIST>;
  const int smem = KtuneConvWgSmem<BN, ST>::kBytes;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e != cudaSuccess) return e;
  dim3 grid(sh.tiles_p * sh.tiles_q * sh.tiles_n, (pb.k + BN - 1) / BN);
  if (PERSIST) {
    int sms = g_persistent_blocks, device;
    if (sms <= 0 &&
        ((e = cudaGetDevice(&device)) != cudaSuccess ||
         (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess))
      return e;
    grid = dim3(std::min(unsigned(sms), grid.x * grid.y), 1);
  }
  if (start && (e = cudaEventRecord(start)) != cudaSuccess) return e;
  for (int i = 0; i < reps; ++i) {
    kernel<<<grid, 384, smem>>>(kx[i % copies], kw[i % copies], sh, y);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return stop ? cudaEventRecord(stop) : cudaSuccess;
}

template <int HT, int WT, int NB, int BN, int ST, int PREC, int PERSIST>
cudaError_t launch(const Problem& pb, void* const* x, void* const* w, int copies, float* y,
                   int reps, cudaEvent_t start, cudaEvent_t stop) {
  return launch_epi<HT, WT, NB, BN, ST, PREC, KtuneConvWgOutF32, PERSIST>(pb, x, w, copies, y, reps,
                                                                          start, stop);
}

template <int HT, int WT, int NB, int BN, int ST, int PREC, int PERSIST>
cudaError_t launch_bf16(const Problem& pb, void* x, void* w, const KtuneConvWgOutBf16::Params& y) {
  return launch_epi<HT, WT, NB, BN, ST, PREC, KtuneConvWgOutBf16, PERSIST>(pb, &x, &w, 1, y, 1,
                                                                           nullptr, nullptr);
}

// One launch with the plain 16-bit output (KtuneConvWgOut16Plain of the input's precision).
template <int HT, int WT, int NB, int BN, int ST, int PREC, int PERSIST>
cudaError_t launch_plain16(const Problem& pb, void* x, void* w, unsigned short* y) {
  return launch_epi<HT, WT, NB, BN, ST, PREC, KtuneConvWgOut16Plain<PREC>, PERSIST>(
      pb, &x, &w, 1, y, 1, nullptr, nullptr);
}

struct Variant {
  Config cf;
  int prec, persist;
  Launch fn;
  LaunchBf16 bf16_fn;
  cudaError_t (*plain16_fn)(const Problem&, void*, void*, unsigned short*);
};

#define KTUNE_CWG_VARIANT(HT, WT, NB, BN, ST, P, PS)                                      \
  Variant {                                                                               \
    {HT, WT, NB, BN, ST}, P, PS, launch<HT, WT, NB, BN, ST, P, PS>,                       \
        launch_bf16<HT, WT, NB, BN, ST, P, PS>, launch_plain16<HT, WT, NB, BN, ST, P, PS> \
  }
#define KTUNE_CWG_VARIANTS(P, PS)                                                            \
  KTUNE_CWG_VARIANT(8, 16, 1, 128, 4, P, PS), KTUNE_CWG_VARIANT(16, 8, 1, 128, 4, P, PS),    \
      KTUNE_CWG_VARIANT(8, 8, 2, 128, 4, P, PS), KTUNE_CWG_VARIANT(4, 8, 4, 128, 4, P, PS),  \
      KTUNE_CWG_VARIANT(8, 16, 1, 256, 3, P, PS), KTUNE_CWG_VARIANT(8, 8, 2, 256, 3, P, PS), \
      KTUNE_CWG_VARIANT(4, 8, 4, 256, 3, P, PS), KTUNE_CWG_VARIANT(8, 16, 1, 64, 6, P, PS)

// Each config one block a work item and persistent (PERSIST 1), in both input precisions.
const Variant kVariants[] = {KTUNE_CWG_VARIANTS(2, 0), KTUNE_CWG_VARIANTS(3, 0),
                             KTUNE_CWG_VARIANTS(2, 1), KTUNE_CWG_VARIANTS(3, 1)};

float to_float(unsigned short bits, int prec) {
  if (prec == 2) {
    unsigned u = unsigned(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

unsigned short from_float(float f, int prec) {
  if (prec == 2) {
    __nv_bfloat16 b = __float2bfloat16(f);
    __nv_bfloat16_raw raw = b;
    return raw.x;
  }
  __half_raw raw = __half(__float2half(f));
  return raw.x;
}

struct Data {
  std::vector<unsigned short> x, w;  // bits
  std::vector<float> xf, wf;         // their values
};

Data random_data(const Problem& pb, int prec, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Data d;
  const size_t nx = size_t(pb.n) * pb.h * pb.w * pb.c, nw = size_t(pb.k) * pb.r * pb.s * pb.c;
  d.x.resize(nx), d.xf.resize(nx), d.w.resize(nw), d.wf.resize(nw);
  for (size_t i = 0; i < nx; ++i)
    d.x[i] = from_float(u(rng), prec), d.xf[i] = to_float(d.x[i], prec);
  for (size_t i = 0; i < nw; ++i)
    d.w[i] = from_float(u(rng), prec), d.wf[i] = to_float(d.w[i], prec);
  return d;
}

// float64 reference of output (img, op, oq, j) and sum |x·w| (for the bound).
void reference(const Problem& pb, const Data& d, int img, int op, int oq, int j, double& ref,
               double& mag) {
  ref = 0, mag = 0;
  for (int tr = 0; tr < pb.r; ++tr) {
    const int ih = op * pb.stride - pb.pad + tr;
    if (ih < 0 || ih >= pb.h) continue;
    for (int ts = 0; ts < pb.s; ++ts) {
      const int iw = oq * pb.stride - pb.pad + ts;
      if (iw < 0 || iw >= pb.w) continue;
      const float* xp = &d.xf[((size_t(img) * pb.h + ih) * pb.w + iw) * pb.c];
      const float* wp = &d.wf[((size_t(j) * pb.r + tr) * pb.s + ts) * pb.c];
      for (int ch = 0; ch < pb.c; ++ch) {
        const double v = double(xp[ch]) * wp[ch];
        ref += v, mag += std::fabs(v);
      }
    }
  }
}

// Checks `samples` outputs (all when samples <= 0); returns the number failing, worst ratio of
// error to bound in `worst`.
long long check(const Problem& pb, const Data& d, const std::vector<float>& y, long long samples,
                std::mt19937& rng, double& worst) {
  const long long total = (long long)pb.n * pb.p() * pb.q() * pb.k;
  const double gamma = double(pb.r) * pb.s * pb.c * std::ldexp(1.0, -22);
  long long bad = 0;
  worst = 0;
  const long long count = samples <= 0 ? total : std::min(samples, total);
  std::uniform_int_distribution<long long> pick(0, total - 1);
  for (long long t = 0; t < count; ++t) {
    const long long e = samples <= 0 ? t : pick(rng);
    const int j = int(e % pb.k);
    long long rest = e / pb.k;
    const int oq = int(rest % pb.q());
    rest /= pb.q();
    const int op = int(rest % pb.p()), img = int(rest / pb.p());
    double ref, mag;
    reference(pb, d, img, op, oq, j, ref, mag);
    const double err = std::fabs(double(y[e]) - ref), bound = gamma * mag + 1e-30;
    if (!(err <= bound)) ++bad;  // NaN fails
    if (std::isfinite(err))
      worst = std::max(worst, err / bound);
    else
      worst = INFINITY;
  }
  return bad;
}

std::string name(const Variant& v) {
  char b[96];
  std::snprintf(b, sizeof b, "%s:ht=%d;wt=%d;nb=%d;bn=%d;st=%d%s", v.prec == 2 ? "bf16" : "fp16",
                v.cf.ht, v.cf.wt, v.cf.nb, v.cf.bn, v.cf.st, v.persist ? ";persist=1" : "");
  return b;
}

// float64 reference and sum |x·w| of every output, NHWC.
void reference_all(const Problem& pb, const Data& d, std::vector<double>& ref,
                   std::vector<double>& mag) {
  const long long total = (long long)pb.n * pb.p() * pb.q() * pb.k;
  ref.resize(total), mag.resize(total);
  for (long long e = 0; e < total; ++e) {
    const long long px = e / pb.k;
    reference(pb, d, int(px / ((long long)pb.p() * pb.q())), int(px / pb.q() % pb.p()),
              int(px % pb.q()), int(e % pb.k), ref[e], mag[e]);
  }
}

// Every FP32 output against the precomputed float64 reference (the bound above); returns the
// number failing, worst ratio of error to bound in `worst`.
long long check_all(const Problem& pb, const std::vector<double>& ref,
                    const std::vector<double>& mag, const std::vector<float>& y, double& worst) {
  const double gamma = double(pb.r) * pb.s * pb.c * std::ldexp(1.0, -22);
  long long bad = 0;
  worst = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    const double err = std::fabs(double(y[e]) - ref[e]), bound = gamma * mag[e] + 1e-30;
    if (!(err <= bound)) ++bad;  // NaN fails
    worst = std::isfinite(err) ? std::max(worst, err / bound) : INFINITY;
  }
  return bad;
}

// The bf16 epilogue's outputs y (widened) against t = act(ref + bias + residual) with the bound
// of the header comment; `residual` empty: none. Returns the number failing, worst err / bound.
long long check_bf16(const Problem& pb, const std::vector<double>& ref,
                     const std::vector<double>& mag, const std::vector<float>& bias,
                     const std::vector<float>& residual, bool relu, const std::vector<float>& y,
                     double& worst) {
  const double gamma = double(pb.r) * pb.s * pb.c * std::ldexp(1.0, -22);
  long long bad = 0;
  worst = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    const double b = bias[e % pb.k], res = residual.empty() ? 0.0 : residual[e];
    const double sum = ref[e] + b + res, t = relu ? std::max(sum, 0.0) : sum;
    const double fp32 =
        gamma * mag[e] + std::ldexp(1.0, -23) * (std::fabs(ref[e]) + std::fabs(b) + std::fabs(res));
    const double err = std::fabs(double(y[e]) - t),
                 bound = std::ldexp(1.0, -8) * std::fabs(t) + 1.01 * fp32 + 1e-30;
    if (!(err <= bound)) ++bad;  // NaN fails
    worst = std::isfinite(err) ? std::max(worst, err / bound) : INFINITY;
  }
  return bad;
}

// Runs variant v with the bf16 epilogue (ReLU and residual as given) on poisoned output and checks
// every element, then a planted error; prints one line, returns whether both held.
bool test_bf16_epilogue(const Problem& pb, const Data& d, const Variant& v, void* x, void* w,
                        const std::vector<double>& ref, const std::vector<double>& mag,
                        std::mt19937& rng, bool relu, bool with_residual, bool res_shifted) {
  const size_t ny = ref.size();
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> bias(pb.k), residual;
  for (float& b : bias) b = u(rng);
  std::vector<unsigned short> res_bits;
  if (with_residual) {
    res_bits.resize(ny), residual.resize(ny);
    for (size_t i = 0; i < ny; ++i)
      res_bits[i] = from_float(u(rng), 2), residual[i] = to_float(res_bits[i], 2);
  }
  float* dbias;
  unsigned short *dy, *dres = nullptr;
  CK(cudaMalloc(&dbias, pb.k * 4));
  CK(cudaMalloc(&dy, ny * 2));
  CK(cudaMemcpy(dbias, bias.data(), pb.k * 4, cudaMemcpyHostToDevice));
  // res_shifted: the residual one element into its allocation (2-byte aligned only: the
  // epilogue's 2-byte reads instead of whole words).
  const int shift = res_shifted ? 1 : 0;
  if (with_residual) {
    CK(cudaMalloc(&dres, (ny + shift) * 2));
    CK(cudaMemcpy(dres + shift, res_bits.data(), ny * 2, cudaMemcpyHostToDevice));
  }
  CK(cudaMemset(dy, 0xFF, ny * 2));  // bf16 NaN
  CK(v.bf16_fn(pb, x, w,
               KtuneConvWgOutBf16::Params{dy, dbias, dres ? dres + shift : nullptr, relu ? 1 : 0}));
  CK(cudaDeviceSynchronize());
  std::vector<unsigned short> bits(ny);
  CK(cudaMemcpy(bits.data(), dy, ny * 2, cudaMemcpyDeviceToHost));
  cudaFree(dbias), cudaFree(dy), cudaFree(dres);
  std::vector<float> y(ny);
  for (size_t i = 0; i < ny; ++i) y[i] = to_float(bits[i], 2);
  double worst, worst_planted;
  const long long bad = check_bf16(pb, ref, mag, bias, residual, relu, y, worst);
  y[ny / 2] += 1.0f + 0.1f * std::sqrt(float(pb.r * pb.s * pb.c));
  const long long caught = check_bf16(pb, ref, mag, bias, residual, relu, y, worst_planted);
  const bool ok = bad == 0 && caught == 1;
  std::printf(
      "%s %s bf16-out relu=%d residual=%d n=%d h=%d w=%d c=%d k=%d r=%d s=%d stride=%d pad=%d "
      "bad=%lld worst_err/bound=%.3g planted_caught=%lld\n",
      ok ? "PASS" : "FAIL", name(v).c_str(), relu, with_residual ? 1 + shift : 0, pb.n, pb.h, pb.w,
      pb.c, pb.k, pb.r, pb.s, pb.stride, pb.pad, bad, worst, caught);
  return ok;
}

// Runs variant v with the plain 16-bit output (the quad-exchanged stores) on poisoned output
// into a buffer offset by `shift` elements (0: 8-byte aligned; 2: 4-byte aligned only, the 4-byte
// stores' path) and checks every element bit for bit against the FP32 output y32 rounded once,
// then a planted error (one flipped bit) that the check must catch; prints one line.
bool test_plain16(const Problem& pb, const Variant& v, void* x, void* w,
                  const std::vector<float>& y32) {
  const size_t ny = y32.size();
  bool ok = true;
  for (int shift : {0, 2}) {
    unsigned short* buf;
    CK(cudaMalloc(&buf, (ny + 4) * 2));
    CK(cudaMemset(buf, 0xFF, (ny + 4) * 2));  // NaN in both 16-bit types
    CK(v.plain16_fn(pb, x, w, buf + shift));
    CK(cudaDeviceSynchronize());
    std::vector<unsigned short> bits(ny + 4);
    CK(cudaMemcpy(bits.data(), buf, (ny + 4) * 2, cudaMemcpyDeviceToHost));
    cudaFree(buf);
    auto mismatches = [&](const std::vector<unsigned short>& b) {
      long long bad = 0;
      for (size_t i = 0; i < ny; ++i) bad += b[shift + i] != from_float(y32[i], v.prec);
      for (int i = 0; i < shift; ++i) bad += b[i] != 0xFFFF;  // nothing written before y
      for (size_t i = shift + ny; i < ny + 4; ++i) bad += b[i] != 0xFFFF;  // nor past it
      return bad;
    };
    const long long bad = mismatches(bits);
    bits[shift + ny / 2] ^= 1;
    const long long caught = mismatches(bits);
    const bool pass = bad == 0 && caught == 1;
    ok = ok && pass;
    std::printf(
        "%s %s plain16-out shift=%d n=%d h=%d w=%d c=%d k=%d r=%d s=%d stride=%d pad=%d "
        "bad=%lld planted_caught=%lld\n",
        pass ? "PASS" : "FAIL", name(v).c_str(), shift, pb.n, pb.h, pb.w, pb.c, pb.k, pb.r, pb.s,
        pb.stride, pb.pad, bad, caught);
  }
  return ok;
}

// Device buffers: `copies` copies of x and w (the bench rotates among them so that, as in
// cudnn_precisions.py, the inputs of consecutive launches do not all sit in L2), one y.
struct Device {
  std::vector<void*> x, w;
  float* y = nullptr;
  size_t ny = 0;
  Device(const Problem& pb, const Data& d, int copies) : x(copies), w(copies) {
    ny = size_t(pb.n) * pb.p() * pb.q() * pb.k;
    for (int i = 0; i < copies; ++i) {
      CK(cudaMalloc(&x[i], d.x.size() * 2));
      CK(cudaMalloc(&w[i], d.w.size() * 2));
      CK(cudaMemcpy(x[i], d.x.data(), d.x.size() * 2, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(w[i], d.w.data(), d.w.size() * 2, cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&y, ny * 4));
  }
  ~Device() {
    for (void* p : x) cudaFree(p);
    for (void* p : w) cudaFree(p);
    cudaFree(y);
  }
  void poison() { CK(cudaMemset(y, 0xFF, ny * 4)); }  // all-ones bits: NaN
  std::vector<float> fetch() {
    std::vector<float> h(ny);
    CK(cudaMemcpy(h.data(), y, ny * 4, cudaMemcpyDeviceToHost));
    return h;
  }
};

int run_tests() {
  g_persistent_blocks = 3;  // several work items a block wherever a shape has more than 3
  const Problem shapes[] = {
      {1, 13, 17, 64, 64, 3, 3, 1, 1},  {3, 9, 11, 128, 96, 3, 3, 1, 1},
      {1, 15, 15, 64, 128, 3, 3, 2, 1}, {3, 14, 14, 64, 200, 1, 1, 1, 0},
      {3, 15, 13, 128, 64, 1, 1, 2, 0}, {1, 21, 19, 64, 64, 7, 7, 2, 3},
      {3, 7, 7, 192, 66, 3, 3, 1, 1},   {1, 5, 6, 64, 256, 3, 3, 1, 2},
      {3, 28, 28, 64, 320, 3, 3, 2, 1}, {2, 33, 31, 64, 64, 1, 1, 1, 0},
  };
  std::mt19937 rng(12345);
  int failures = 0;
  for (const Problem& pb : shapes) {
    for (int prec : {2, 3}) {
      const Data d = random_data(pb, prec, rng);
      Device dev(pb, d, 1);
      std::vector<double> ref, mag;
      reference_all(pb, d, ref, mag);
      int index = 0;
      for (const Variant& v : kVariants) {
        if (v.prec != prec) continue;
        ++index;
        const std::string why = refusal(pb, v.cf);
        if (!why.empty()) {
          std::printf("refused %s n=%d h=%d w=%d c=%d: %s\n", name(v).c_str(), pb.n, pb.h, pb.w,
                      pb.c, why.c_str());
          continue;
        }
        dev.poison();
        CK(v.fn(pb, dev.x.data(), dev.w.data(), 1, dev.y, 1, nullptr, nullptr));
        CK(cudaDeviceSynchronize());
        std::vector<float> y = dev.fetch();
        double worst;
        const long long bad = check_all(pb, ref, mag, y, worst);
        // A planted error (one output off by 0.1·sqrt(K), far past the bound) must be caught.
        std::vector<float> planted = y;
        planted[planted.size() / 2] += 0.1f * std::sqrt(float(pb.r * pb.s * pb.c));
        double worst_planted;
        const long long caught = check_all(pb, ref, mag, planted, worst_planted);
        const bool ok = bad == 0 && caught == 1;
        failures += !ok;
        std::printf(
            "%s %s n=%d h=%d w=%d c=%d k=%d r=%d s=%d stride=%d pad=%d bad=%lld "
            "worst_err/bound=%.3g planted_caught=%lld\n",
            ok ? "PASS" : "FAIL", name(v).c_str(), pb.n, pb.h, pb.w, pb.c, pb.k, pb.r, pb.s,
            pb.stride, pb.pad, bad, worst, caught);
        // The bf16 epilogue: ReLU on every other config, the residual on every other pair (every
        // other time 2-byte aligned only; printed as residual=2).
        failures += !test_bf16_epilogue(pb, d, v, dev.x[0], dev.w[0], ref, mag, rng, index & 1,
                                        (index >> 1) & 1, (index >> 2) & 1);
        failures += !test_plain16(pb, v, dev.x[0], dev.w[0], y);
      }
    }
  }
  std::printf("tests: %d failures\n", failures);
  return failures == 0 ? 0 : 1;
}

// One row of a layers file: network,layer,count,n,h,w,c,k,r,s,stride,pad.
struct LayerRow {
  char net[64], layer[64];
  int count;
  Problem pb;
};

// The rows of a layers file after its header; false (one line on stderr) when the file cannot be
// read or a line does not parse.
bool read_layers(const char* path, std::vector<LayerRow>& rows) {
  FILE* f = std::fopen(path, "r");
  if (!f) {
    std::fprintf(stderr, "cannot read layers file %s\n", path);
    return false;
  }
  char line[512];
  bool ok = std::fgets(line, sizeof line, f) != nullptr;  // header
  while (ok && std::fgets(line, sizeof line, f)) {
    LayerRow r;
    Problem& pb = r.pb;
    if (std::sscanf(line, "%63[^,],%63[^,],%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", r.net, r.layer, &r.count,
                    &pb.n, &pb.h, &pb.w, &pb.c, &pb.k, &pb.r, &pb.s, &pb.stride, &pb.pad) != 12) {
      std::fprintf(stderr, "bad layers line: %s", line);
      ok = false;
    } else {
      rows.push_back(r);
    }
  }
  std::fclose(f);
  return ok;
}

// Input copies the benches rotate among: together at least twice a 50 MB L2 (the H100's), at
// most 16.
int rotation_copies(const Data& d) {
  const double bytes = (d.x.size() + d.w.size()) * 2.0, l2 = 50e6;
  return int(std::max(1.0, std::min(16.0, std::ceil(2 * l2 / bytes))));
}

// The median over `batches` of the per-launch time of `reps` back-to-back launches (the host work
// of a launch overlaps the kernel before it): launch(reps, start, stop) records the events.
template <class Launch>
double median_launch_ms(Launch&& launch, int batches, int reps, cudaEvent_t a, cudaEvent_t b) {
  std::vector<float> ms;
  for (int i = 0; i < batches; ++i) {
    CK(launch(reps, a, b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t / reps);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Runs body(row, data, device, copies, rng, start, stop) on each row of a layers file: `header`
// printed once the file is read, the layer's data random in precision prec (one generator for the
// whole run, seed 777), on the device in `copies` rotated copies, two events for its timings.
// 2 when the file cannot be read, else 0.
template <class Body>
int for_each_layer(const char* path, const char* header, int prec, Body&& body) {
  std::vector<LayerRow> layers;
  if (!read_layers(path, layers)) return 2;
  std::mt19937 rng(777);
  std::printf("%s\n", header);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (const LayerRow& row : layers) {
    const Data d = random_data(row.pb, prec, rng);
    const int copies = rotation_copies(d);
    Device dev(row.pb, d, copies);
    body(row, d, dev, copies, rng, a, b);
  }
  return 0;
}

// `only`: configs whose name contains one of these (all when empty).
int run_bench(const char* path, const std::vector<std::string>& only) {
  const char* header =
      "network,layer,count,n,h,w,c,k,r,s,stride,pad,config,status,median_ms,tflops,"
      "sample_bad,worst_err_over_bound";
  return for_each_layer(
      path, header, 2,
      [&](const LayerRow& row, const Data& d, Device& dev, int copies, std::mt19937& rng,
          cudaEvent_t a, cudaEvent_t b) {
        const Problem& pb = row.pb;
        const char *net = row.net, *layer = row.layer;
        const int count = row.count;
        const double flops = 2.0 * pb.n * pb.p() * pb.q() * pb.k * pb.r * pb.s * pb.c;
        for (const Variant& v : kVariants) {
          if (v.prec != 2) continue;
          if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& o) {
                return name(v).find(o) != std::string::npos;
              }))
            continue;
          const std::string why = refusal(pb, v.cf);
          std::printf("%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,\"%s\",", net, layer, count, pb.n, pb.h,
                      pb.w, pb.c, pb.k, pb.r, pb.s, pb.stride, pb.pad, name(v).c_str());
          if (!why.empty()) {
            std::printf("refused: %s,,,,\n", why.c_str());
            continue;
          }
          dev.poison();
          CK(v.fn(pb, dev.x.data(), dev.w.data(), copies, dev.y, 3, nullptr, nullptr));  // warm-up
          CK(cudaDeviceSynchronize());
          const double med = median_launch_ms(
              [&](int reps, cudaEvent_t s, cudaEvent_t e) {
                return v.fn(pb, dev.x.data(), dev.w.data(), copies, dev.y, reps, s, e);
              },
              7, 20, a, b);
          double worst;
          const long long bad = check(pb, d, dev.fetch(), 1024, rng, worst);
          std::printf("%s,%.6f,%.1f,%lld,%.3g\n", bad ? "wrong" : "ok", med, flops / med * 1e-9,
                      bad, worst);
          std::fflush(stdout);
        }
      });
}

// The plain 16-bit output stored a column pair (4 bytes) at a time, as the 16-bit epilogues did
// before ktune_cwg_store16_quad (bench-out's `out16word`: the comparison that chose it).
template <int PREC>
struct Out16Word {
  typedef unsigned short* Params;
  static __device__ __forceinline__ void store(Params y, long long at, int col, int k, float v0,
                                               float v1) {
    if (col + 1 < k)
      *reinterpret_cast<unsigned*>(y + at + col) = ktune_cwg_pack16<PREC>(v0, v1);
    else if (col < k)
      y[at + col] = (unsigned short)ktune_round16<PREC>(v0);
  }
};

// KtuneConvWgOut16Plain rounding each value by ktune_round16 (bf16: integer rounding) instead of
// the paired cvt (bench-out's `out16plainint`: the comparison that chose the cvt).
template <int PREC>
struct Out16PlainInt {
  typedef unsigned short* Params;
  static __device__ __forceinline__ void store_blocks(Params y, long long at, bool valid, int c0,
                                                      int k, float v0, float v1, float v2,
                                                      float v3) {
    if (c0 >= k) return;
    ktune_cwg_store16_quad(y, at, valid, c0, k,
                           ktune_round16<PREC>(v0) | (ktune_round16<PREC>(v1) << 16),
                           ktune_round16<PREC>(v2) | (ktune_round16<PREC>(v3) << 16));
  }
};

// KtuneConvWgOut16 as it was until session 24: a column pair (4 bytes) a store, the bias,
// residual and ReLU tests per value (bench-out's out16fusedword / out16fusedresword: the
// comparison that chose the block-pair store).
template <int PREC>
struct Out16FusedWord {
  typedef typename KtuneConvWgOut16<PREC>::Params Params;
  static __device__ __forceinline__ float act(const Params& o, long long at, int col, float v) {
    if (o.bias) v += o.bias[col];
    if (o.residual) v += ktune_widen16<PREC>(o.residual[at + col]);
    return o.relu ? fmaxf(v, 0.0f) : v;
  }
  static __device__ __forceinline__ void store(const Params& o, long long at, int col, int k,
                                               float v0, float v1) {
    if (col + 1 < k)
      *reinterpret_cast<unsigned*>(o.y + at + col) =
          ktune_cwg_pack16<PREC>(act(o, at, col, v0), act(o, at, col + 1, v1));
    else if (col < k)
      o.y[at + col] = (unsigned short)ktune_round16<PREC>(act(o, at, col, v0));
  }
};

// KtuneConvWgOut16 as it was in session 24: the block-pair store reading the residual (2 bytes a
// value) inside store_blocks, between the stores (bench-out's out16fusedresinter: the comparison
// for the fetch step, KtuneCwgFetches).
template <int PREC>
struct Out16FusedInterleaved {
  typedef typename KtuneConvWgOut16<PREC>::Params Params;
  static __device__ __forceinline__ void store_blocks(const Params& o, long long at, bool valid,
                                                      int c0, int k, float v0, float v1, float v2,
                                                      float v3) {
    if (c0 >= k) return;
    const int a = c0 + 2 * (threadIdx.x & 3), b = a + 8;
    if (o.bias) {
      if (a < k) v0 += o.bias[a], v1 += o.bias[a + 1];
      if (b < k) v2 += o.bias[b], v3 += o.bias[b + 1];
    }
    if (o.residual && valid) {
      if (a < k)
        v0 += ktune_widen16<PREC>(o.residual[at + a]),
            v1 += ktune_widen16<PREC>(o.residual[at + a + 1]);
      if (b < k)
        v2 += ktune_widen16<PREC>(o.residual[at + b]),
            v3 += ktune_widen16<PREC>(o.residual[at + b + 1]);
    }
    if (o.relu)
      v0 = fmaxf(v0, 0.0f), v1 = fmaxf(v1, 0.0f), v2 = fmaxf(v2, 0.0f), v3 = fmaxf(v3, 0.0f);
    ktune_cwg_store16_quad(o.y, at, valid, c0, k, ktune_cwg_pack16<PREC>(v0, v1),
                           ktune_cwg_pack16<PREC>(v2, v3));
  }
};

// The two residual epilogues fetching after the main loop, a row's up to 8 units before their
// stores, as in session 25 (bench-out's out16fusedreslate / f32epireslate): the kernel fetches
// before the main loop where registers allow, unless an epilogue has `fetch_late`.
template <int PREC>
struct Out16FusedLate : KtuneConvWgOut16<PREC> {
  typedef void fetch_late;
};
struct F32EpiLate : KtuneConvWgOutF32Epi {
  typedef void fetch_late;
};
static_assert(KtuneCwgFetchesLate<F32EpiLate>::value &&
                  KtuneCwgFetchesLate<Out16FusedLate<2>>::value,
              "the twins fetch late");
static_assert(!KtuneCwgFetchesLate<KtuneConvWgOutF32Epi>::value &&
                  !KtuneCwgFetchesLate<KtuneConvWgOut16<2>>::value &&
                  KtuneCwgFetches<KtuneConvWgOutF32Epi>::value &&
                  !KtuneCwgFetches<KtuneConvWgOutF32>::value,
              "the shipped epilogues fetch early, the plain ones not at all");

// KtuneConvWgOutF32Epi reading its residual inside store(), between the stores, as before the
// fetch step (bench-out's f32epiresinter).
struct F32EpiInterleaved {
  typedef KtuneConvWgOutF32Epi::Params Params;
  static __device__ __forceinline__ float act(const Params& o, long long at, int col, float v) {
    if (o.bias) v += o.bias[col];
    if (o.residual) v += o.residual[at + col];
    return o.relu ? fmaxf(v, 0.0f) : v;
  }
  static __device__ __forceinline__ void store(const Params& o, long long at, int col, int k,
                                               float v0, float v1) {
    if (col + 1 < k)
      *reinterpret_cast<float2*>(o.y + at + col) =
          make_float2(act(o, at, col, v0), act(o, at, col + 1, v1));
    else if (col < k)
      o.y[at + col] = act(o, at, col, v0);
  }
};

// Stores nothing unless an accumulator equals a value random data never sums to: the main loop
// and the accumulator's reads stay, the stores go (bench-out's `none`).
struct OutNone {
  typedef float* Params;
  static __device__ __forceinline__ void store(Params y, long long at, int col, int, float v0,
                                               float v1) {
    if (v0 == 1234.5f && v1 == -4321.5f) y[at + col] = v0;
  }
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

// bench-out's epilogues, in the order of OutputEpilogues::launch's cases: what each stores (FP32,
// 16-bit, or nothing) and adds before that (a bias and ReLU; a residual too), which is what its
// output is checked against: f32's values with the same FP32 additions, bit for bit (rounded once
// where 16-bit).
enum class Stores { f32, out16, nothing };
struct BenchEpilogue {
  const char* name;
  Stores stores;
  bool bias_relu, residual;
};
constexpr BenchEpilogue kBenchEpilogues[] = {{"f32", Stores::f32, false, false},
                                             {"f32epi", Stores::f32, false, false},
                                             {"out16", Stores::out16, false, false},
                                             {"out16plain", Stores::out16, false, false},
                                             {"out16word", Stores::out16, false, false},
                                             {"out16fused", Stores::out16, true, false},
                                             {"out16plainint", Stores::out16, false, false},
                                             {"out16fusedword", Stores::out16, true, false},
                                             {"out16fusedres", Stores::out16, true, true},
                                             {"out16fusedresword", Stores::out16, true, true},
                                             {"out16fusedresinter", Stores::out16, true, true},
                                             {"f32epires", Stores::f32, true, true},
                                             {"f32epiresinter", Stores::f32, true, true},
                                             {"out16fusedreslate", Stores::out16, true, true},
                                             {"f32epireslate", Stores::f32, true, true},
                                             {"none", Stores::nothing, false, false}};
constexpr int kBenchEpilogueCount = int(sizeof(kBenchEpilogues) / sizeof(kBenchEpilogues[0]));

template <int HT, int WT, int NB, int BN, int ST, int PREC>
struct OutputEpilogues {
  typedef KtuneConvWgOut16<PREC> Fused;
  template <class EPI>
  static cudaError_t run(const Problem& pb, void* const* x, void* const* w, int copies,
                         const typename EPI::Params& y, int reps, cudaEvent_t a, cudaEvent_t b) {
    return launch_epi<HT, WT, NB, BN, ST, PREC, EPI, 0>(pb, x, w, copies, y, reps, a, b);
  }
  // epilogue e of kBenchEpilogues, writing y32 (FP32) or y16 (PREC's 16-bit bits).
  static cudaError_t launch(int e, const Problem& pb, void* const* x, void* const* w, int copies,
                            float* y32, unsigned short* y16, const float* bias,
                            const unsigned short* res, const float* res32, int reps, cudaEvent_t a,
                            cudaEvent_t b) {
    typedef typename Fused::Params P;
    typedef KtuneConvWgOutF32Epi::Params P32;
    switch (e) {
      case 0:
        return run<KtuneConvWgOutF32>(pb, x, w, copies, y32, reps, a, b);
      case 1:
        return run<KtuneConvWgOutF32Epi>(
            pb, x, w, copies, KtuneConvWgOutF32Epi::Params{y32, nullptr, nullptr, 0}, reps, a, b);
      case 2:
        return run<Fused>(pb, x, w, copies, typename Fused::Params{y16, nullptr, nullptr, 0}, reps,
                          a, b);
      case 3:
        return run<KtuneConvWgOut16Plain<PREC>>(pb, x, w, copies, y16, reps, a, b);
      case 4:
        return run<Out16Word<PREC>>(pb, x, w, copies, y16, reps, a, b);
      case 5:
        return run<Fused>(pb, x, w, copies, typename Fused::Params{y16, bias, nullptr, 1}, reps, a,
                          b);
      case 6:
        return run<Out16PlainInt<PREC>>(pb, x, w, copies, y16, reps, a, b);
      case 7:
        return run<Out16FusedWord<PREC>>(pb, x, w, copies, P{y16, bias, nullptr, 1}, reps, a, b);
      case 8:
        return run<Fused>(pb, x, w, copies, P{y16, bias, res, 1}, reps, a, b);
      case 9:
        return run<Out16FusedWord<PREC>>(pb, x, w, copies, P{y16, bias, res, 1}, reps, a, b);
      case 10:
        return run<Out16FusedInterleaved<PREC>>(pb, x, w, copies, P{y16, bias, res, 1}, reps, a, b);
      case 11:
        return run<KtuneConvWgOutF32Epi>(pb, x, w, copies, P32{y32, bias, res32, 1}, reps, a, b);
      case 12:
        return run<F32EpiInterleaved>(pb, x, w, copies, P32{y32, bias, res32, 1}, reps, a, b);
      case 13:
        return run<Out16FusedLate<PREC>>(pb, x, w, copies, P{y16, bias, res, 1}, reps, a, b);
      case 14:
        return run<F32EpiLate>(pb, x, w, copies, P32{y32, bias, res32, 1}, reps, a, b);
      default:
        return run<OutNone>(pb, x, w, copies, y32, reps, a, b);
    }
  }
};

using OutputLaunch = cudaError_t (*)(int, const Problem&, void* const*, void* const*, int, float*,
                                     unsigned short*, const float*, const unsigned short*,
                                     const float*, int, cudaEvent_t, cudaEvent_t);
struct OutputVariant {
  Config cf;
  OutputLaunch bf16, fp16;
};
#define KTUNE_CWG_OUT(HT, WT, NB, BN, ST)                                 \
  OutputVariant {                                                         \
    {HT, WT, NB, BN, ST}, OutputEpilogues<HT, WT, NB, BN, ST, 2>::launch, \
        OutputEpilogues<HT, WT, NB, BN, ST, 3>::launch                    \
  }
const OutputVariant kOutputVariants[] = {
    KTUNE_CWG_OUT(8, 16, 1, 64, 6),  KTUNE_CWG_OUT(8, 16, 1, 64, 4),
    KTUNE_CWG_OUT(8, 8, 2, 64, 6),   KTUNE_CWG_OUT(8, 8, 2, 128, 4),
    KTUNE_CWG_OUT(4, 16, 2, 128, 4), KTUNE_CWG_OUT(8, 16, 1, 128, 4)};

int run_bench_out(const char* path, const std::vector<std::string>& only) {
  const int batches = env_int("KTUNE_BATCHES", 7), reps = env_int("KTUNE_REPS", 20);
  const int prec = env_int("KTUNE_PREC", 3) == 2 ? 2 : 3;  // the input's and 16-bit output's type
  // KTUNE_EPILOGUES: a comma-separated list of the epilogues to time (default all).
  const char* list = std::getenv("KTUNE_EPILOGUES");
  const std::string wanted_list = list ? "," + std::string(list) + "," : "";
  auto wanted = [&](const char* e) {
    return wanted_list.empty() || wanted_list.find("," + std::string(e) + ",") != std::string::npos;
  };
  const char* header = "network,layer,n,h,w,c,k,r,s,stride,pad,config,epilogue,median_us,status";
  return for_each_layer(
      path, header, prec,
      [&](const LayerRow& row, const Data& d, Device& dev, int copies, std::mt19937& rng,
          cudaEvent_t a, cudaEvent_t b) {
        const Problem& pb = row.pb;
        const char *net = row.net, *layer = row.layer;
        unsigned short* y16;
        CK(cudaMalloc(&y16, dev.ny * 2));
        std::vector<float> bias(pb.k);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (float& v : bias) v = u(rng);
        float* dbias;
        CK(cudaMalloc(&dbias, pb.k * 4));
        CK(cudaMemcpy(dbias, bias.data(), pb.k * 4, cudaMemcpyHostToDevice));
        std::vector<unsigned short> res_bits(dev.ny);  // the residual, in the output's type
        for (unsigned short& r : res_bits) r = from_float(u(rng), prec);
        unsigned short* dres;
        CK(cudaMalloc(&dres, dev.ny * 2));
        CK(cudaMemcpy(dres, res_bits.data(), dev.ny * 2, cudaMemcpyHostToDevice));
        std::vector<float> res32(dev.ny);  // the same residual in FP32, for the FP32 outputs
        for (size_t i = 0; i < dev.ny; ++i) res32[i] = to_float(res_bits[i], prec);
        float* dres32;
        CK(cudaMalloc(&dres32, dev.ny * 4));
        CK(cudaMemcpy(dres32, res32.data(), dev.ny * 4, cudaMemcpyHostToDevice));
        for (const OutputVariant& v : kOutputVariants) {
          const std::string config = name(Variant{v.cf, prec, 0, nullptr, nullptr, nullptr});
          const OutputLaunch fn = prec == 2 ? v.bf16 : v.fp16;
          if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& o) {
                return config.find(o) != std::string::npos;
              }))
            continue;
          if (!refusal(pb, v.cf).empty()) continue;
          std::vector<float> y32;
          for (int e = 0; e < kBenchEpilogueCount; ++e) {
            const BenchEpilogue& epi = kBenchEpilogues[e];
            // f32 always runs: the others are checked against its output.
            if (e > 0 && !wanted(epi.name)) continue;
            dev.poison();
            CK(cudaMemset(y16, 0xFF, dev.ny * 2));
            CK(fn(e, pb, dev.x.data(), dev.w.data(), copies, dev.y, y16, dbias, dres, dres32, 3,
                  nullptr, nullptr));
            CK(cudaDeviceSynchronize());
            const double ms = median_launch_ms(
                [&](int n, cudaEvent_t s, cudaEvent_t t) {
                  return fn(e, pb, dev.x.data(), dev.w.data(), copies, dev.y, y16, dbias, dres,
                            dres32, n, s, t);
                },
                batches, reps, a, b);
            // f32 first, against float64; every other output bit for bit against f32's values
            // with the epilogue's FP32 additions in its order, rounded once where 16-bit.
            const char* status = "ok";
            const auto expected = [&](size_t i) {
              float v = y32[i];
              if (epi.bias_relu) {
                v += bias[i % pb.k];
                if (epi.residual) v += res32[i];
                v = std::fmax(v, 0.0f);
              }
              return v;
            };
            if (e == 0) {
              y32 = dev.fetch();
              double worst;
              if (check(pb, d, y32, 1024, rng, worst) != 0) status = "wrong";
            } else if (epi.stores == Stores::f32) {
              const std::vector<float> got = dev.fetch();
              for (size_t i = 0; i < dev.ny; ++i)
                if (got[i] != expected(i)) {
                  status = "wrong";
                  break;
                }
            } else if (epi.stores == Stores::out16) {
              std::vector<unsigned short> bits(dev.ny);
              CK(cudaMemcpy(bits.data(), y16, dev.ny * 2, cudaMemcpyDeviceToHost));
              for (size_t i = 0; i < dev.ny; ++i)
                if (bits[i] != from_float(expected(i), prec)) {
                  status = "wrong";
                  break;
                }
            }
            std::printf("%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,\"%s\",%s,%.3f,%s\n", net, layer, pb.n,
                        pb.h, pb.w, pb.c, pb.k, pb.r, pb.s, pb.stride, pb.pad, config.c_str(),
                        epi.name, ms * 1e3, status);
            std::fflush(stdout);
          }
        }
        cudaFree(y16), cudaFree(dbias), cudaFree(dres), cudaFree(dres32);
      });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "bench-out") == 0)
    return run_bench_out(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  if (argc >= 2 && std::strcmp(argv[1], "test") == 0) return run_tests();
  if (argc >= 3 && std::strcmp(argv[1], "bench") == 0)
    return run_bench(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  std::fprintf(stderr,
               "usage: %s test | bench LAYERS.csv [CONFIG...] | bench-out LAYERS.csv [CONFIG...]\n",
               argv[0]);
  return 2;
}
