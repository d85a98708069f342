// Tensor-core half of the CUDA tuned conv2d library: ktune::conv2d_ex in tf32, bf16 and fp16,
// each precision served by its own selector (NAMED_SELECTORS tf32 / bf16 / fp16 of
// ktune_add_tuned_library; a precision without one is refused; tf32: FP32 input and filter, TF32
// tensor-core math (cuda_igemm_mma rounds, cuda_igemm_wgmma truncates), FP32 output, cuDNN's tf32
// engines writing the caller's FP32 output), the shape of the GEMM family's
// deploy/tuned_cuda_tc.inl. Included by tuned_cuda.inl after its helpers (Launch, cuda_failure,
// acquire, release). The shipped configs are the kinds cuda_igemm_mma and cuda_igemm_wgmma,
// instantiated by nvcc from the headers the NVRTC sweep compiles, and the vendor candidate
// "vendor=cudnn" (ktune deploy --vendors: deploy/vendor_cudnn.hpp). wgmma kernels need the library
// built for sm_90a (their bodies are empty elsewhere; the launcher refuses devices other than
// compute capability 9.0, and the fallback order then serves the layer). Output FP32 or the
// data's 16-bit type (Conv2dOutput bf16 in bf16, fp16 in fp16; tf32 writes FP32 only): every
// config writes either itself, FP32 accumulation with one rounding at the store for a 16-bit
// output (the mma kernel's Y = unsigned short, the wgmma kernel's KtuneConvWgOut16Plain store, or
// KtuneConvWgOut16 with an epilogue, cuDNN's engines with a 16-bit output tensor): no widening or
// narrowing pass, except cuDNN's FP32 output from a 16-bit-output engine (vendor_cudnn.hpp:
// widened here, bf16 or fp16 bits by the precision). The selectors were trained on FP32-output rows
// and pick the same config for either output. Fused epilogue (Conv2dEpilogue: bias, residual,
// ReLU): ktune's kernels apply it in their stores (the mma kernel's EPI = 1 instantiation, the
// wgmma kernel's KtuneConvWgOutF32Epi / KtuneConvWgOut16 parameters; the plain call keeps the
// sweep's kernels, with the plain 16-bit store for a 16-bit output); cuDNN's output gets one
// elementwise pass after the engine (fused into the widening pass where there is one), as does
// precision fp32 (ktune::conv2d's kinds). The selector picks as for a plain convolution.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/conv2d/cuda/conv2d_igemm_mma.cuh"
#include "kernels/conv2d/cuda/conv2d_wgmma.cuh"
#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"
#ifdef KTUNE_TUNED_HAVE_CUDNN
#include "kernels/conv2d/deploy/vendor_cudnn.hpp"
#endif

namespace {

namespace kgm = ktune::kernels::gemm;

// The selector of precision PREC (1 tf32, 2 bf16, 3 fp16, as the sweep's precision=), or none.
// kUnsure: the header's, -1 when it states no kUnsure rule; kVersion: its hash (tune and remember
// keys its answers by both, per precision; KTUNE_TUNED_UNSURE_<NAME> / KTUNE_TUNED_VERSION_<NAME>
// come with the selector, cmake/KtuneTunedLibrary.cmake).
template <int PREC>
struct TcSelector {
  static constexpr int kNumConfigs = 0;
  static constexpr const char* const* kConfigs = nullptr;
  static constexpr int kBaseline = -1;
  static constexpr const int* kSafeOrder = nullptr;
  static constexpr int kUnsure = -1;
  static constexpr const char* kVersion = "";
  struct Features {
    double slots[ktune::kernels::conv2d::kProblemFeatures + 1 +
                 ktune::kernels::conv2d::kDerivedFeatures];
  };
  static int select(const Features&) { return -1; }
};
#ifdef KTUNE_TUNED_SELECTOR_BF16
template <>
struct TcSelector<2> {
  using Features = ktune_tuned_selector_bf16::Features;
  static constexpr int kNumConfigs = ktune_tuned_selector_bf16::kNumConfigs;
  static constexpr const char* const* kConfigs = ktune_tuned_selector_bf16::kConfigs;
  static constexpr int kBaseline = ktune_tuned_selector_bf16::kBaseline;
  static constexpr const int* kSafeOrder = ktune_tuned_selector_bf16::kSafeOrder;
  static constexpr int kUnsure = KTUNE_TUNED_UNSURE_BF16;
  static constexpr const char* kVersion = KTUNE_TUNED_VERSION_BF16;
  static int select(const Features& f) { return ktune_tuned_selector_bf16::select(f); }
};
#endif
#ifdef KTUNE_TUNED_SELECTOR_TF32
template <>
struct TcSelector<1> {
  using Features = ktune_tuned_selector_tf32::Features;
  static constexpr int kNumConfigs = ktune_tuned_selector_tf32::kNumConfigs;
  static constexpr const char* const* kConfigs = ktune_tuned_selector_tf32::kConfigs;
  static constexpr int kBaseline = ktune_tuned_selector_tf32::kBaseline;
  static constexpr const int* kSafeOrder = ktune_tuned_selector_tf32::kSafeOrder;
  static constexpr int kUnsure = KTUNE_TUNED_UNSURE_TF32;
  static constexpr const char* kVersion = KTUNE_TUNED_VERSION_TF32;
  static int select(const Features& f) { return ktune_tuned_selector_tf32::select(f); }
};
#endif
#ifdef KTUNE_TUNED_SELECTOR_FP16
template <>
struct TcSelector<3> {
  using Features = ktune_tuned_selector_fp16::Features;
  static constexpr int kNumConfigs = ktune_tuned_selector_fp16::kNumConfigs;
  static constexpr const char* const* kConfigs = ktune_tuned_selector_fp16::kConfigs;
  static constexpr int kBaseline = ktune_tuned_selector_fp16::kBaseline;
  static constexpr const int* kSafeOrder = ktune_tuned_selector_fp16::kSafeOrder;
  static constexpr int kUnsure = KTUNE_TUNED_UNSURE_FP16;
  static constexpr const char* kVersion = KTUNE_TUNED_VERSION_FP16;
  static int select(const Features& f) { return ktune_tuned_selector_fp16::select(f); }
};
#endif

// A tensor-core precision code's name (the sweep's codes are conv2d_ex's).
constexpr const char* tc_precision_name(int prec) {
  return kgm::precision_name(kgm::Precision(prec));
}

// f(std::integral_constant<int, PREC>{}) for a tensor-core precision checked before (tf32, bf16,
// fp16).
template <class F>
decltype(auto) with_tc_precision(ktune::Conv2dPrecision precision, F&& f) {
  if (precision == ktune::Conv2dPrecision::fp16) return f(std::integral_constant<int, 3>{});
  if (precision == ktune::Conv2dPrecision::tf32) return f(std::integral_constant<int, 1>{});
  return f(std::integral_constant<int, 2>{});
}

constexpr bool is_cudnn(const char* config) { return std::string_view(config) == "vendor=cudnn"; }

bool has_epilogue(const ktune::Conv2dEpilogue& e) { return e.bias || e.residual || e.relu; }

// out[i] = act(in[i] + bias[i % k] + residual[i]) for count elements (NHWC, k channels), FP32
// sums stored once in Out (float, or unsigned short: PREC's 16 bits, bf16 or fp16, rounded to
// nearest even); In, Out and the residual (Out's type): float / unsigned short (PREC's). Widens
// cuDNN's 16-bit output (bias, residual null, relu 0: the values as they are) and is the epilogue
// pass of the configs that have no fused one; in place when in == out (each thread reads its
// element before it writes it).
template <int PREC, class In, class Out>
__global__ void ktune_conv2d_ex_epilogue(const In* in, Out* out, const float* bias,
                                         const Out* residual, int relu, long long count, int k) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    float v = ktune_igemm_widen<PREC>(in[i]);
    if (bias) v += bias[i % k];
    if (residual) v += ktune_igemm_widen<PREC>(residual[i]);
    if (relu) v = fmaxf(v, 0.0f);
    if constexpr (std::is_same_v<Out, float>)
      out[i] = v;
    else
      out[i] = (unsigned short)ktune_round16<PREC>(v);
  }
}

template <int PREC = 2, class In, class Out>
void launch_epilogue(const In* in, Out* out, const ktune::Conv2dEpilogue& e, long long count,
                     long long k, cudaStream_t stream) {
  static_assert(PREC != 1 || (std::is_same_v<In, float> && std::is_same_v<Out, float>),
                "tf32 data and output are FP32");
  const long long blocks = (count + 255) / 256 < 65535 ? (count + 255) / 256 : 65535;
  ktune_conv2d_ex_epilogue<PREC, In, Out><<<unsigned(blocks), 256, 0, stream>>>(
      in, out, e.bias, static_cast<const Out*>(e.residual), e.relu ? 1 : 0, count, int(k));
  const cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) cuda_failure("launch of conv2d_ex's epilogue pass", launch);
}

// An epilogue whose residual is the output itself, for the configs that write the output before
// their epilogue pass: the residual copied to stream-ordered scratch first (else as it is).
template <class Scratch>
ktune::Conv2dEpilogue keep_residual(const ktune::Conv2dEpilogue& e, const void* y, size_t bytes,
                                    Scratch&& scratch_of, cudaStream_t stream) {
  if (e.residual == nullptr || e.residual != y) return e;
  ktune::Conv2dEpilogue kept = e;
  void* copy = scratch_of(bytes);
  const cudaError_t error = cudaMemcpyAsync(copy, y, bytes, cudaMemcpyDeviceToDevice, stream);
  if (error != cudaSuccess) cuda_failure("cudaMemcpyAsync (the in-place residual)", error);
  kept.residual = copy;
  return kept;
}

// The scratch a call holds around its kernels (the in-place residual's copy, cuDNN's 16-bit
// output and workspace): kept between calls in slots 1, 2, ... (tuned_cuda.inl, "The workspaces
// of one call"), in the order the call asks; transient() is per call (a cuDNN layer's first
// call searches with a large workspace, not worth keeping). Released by release_all(), after
// the work enqueued before it.
class CallScratch {
 public:
  explicit CallScratch(cudaStream_t stream) : stream_(stream) {}
  CallScratch(const CallScratch&) = delete;
  CallScratch& operator=(const CallScratch&) = delete;
  ~CallScratch() {
    for (float* p : transient_) cudaFreeAsync(p, stream_);  // not thrown from a destructor
  }
  void* get(size_t bytes) {
    if (used_ == kSlots) throw std::logic_error("ktune::conv2d_ex: more scratch than kSlots");
    void* data = held_[size_t(used_)]
                     .emplace(bytes, stream_, library_pool(), kKernelSlot + 1 + used_)
                     .data();
    ++used_;  // after the emplace: a throwing one leaves no empty slot for release_all()
    return data;
  }
  void* transient(size_t bytes) {
    transient_.push_back(acquire((bytes + 3) / 4, stream_));
    return transient_.back();
  }
  void release_all() {
    for (int i = 0; i < used_; ++i) held_[size_t(i)]->release();
    used_ = 0;
    for (float* p : transient_) release(p, stream_);
    transient_.clear();
  }

 private:
  static constexpr int kSlots = 4;
  cudaStream_t stream_;
  std::array<std::optional<kw::CallWorkspace>, kSlots> held_;
  int used_ = 0;
  std::vector<float*> transient_;
};

template <int PREC>
Launch run_tc_cudnn(const kc::ConvDims& d, const void* x, const void* w, void* y, bool out16,
                    const ktune::Conv2dEpilogue& epilogue, cudaStream_t stream) {
#ifdef KTUNE_TUNED_HAVE_CUDNN
  static_assert(PREC >= 1 && PREC <= 3, "the cudnn candidate is tf32, bf16 or fp16");
  int device = 0;
  const cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess) cuda_failure("cudaGetDevice", error);
  CallScratch scratch(stream);
  const long long count = output_count(d);
  const ktune::Conv2dEpilogue epi = keep_residual(
      epilogue, y, size_t(count) * (out16 ? 2 : 4), [&](size_t b) { return scratch.get(b); },
      stream);
  ktune::kernels::conv2d::Shape shape;
  shape.n = d.n, shape.h = d.h, shape.w = d.w, shape.c = d.c, shape.k = d.k, shape.r = d.r;
  shape.s = d.s, shape.stride = d.stride, shape.pad = d.pad;
  void* y16 = nullptr;
  namespace dp = ktune::kernels::conv2d::deploy;
  namespace kcu = ktune::kernels::conv2d::cuda;
  constexpr kcu::CudnnPrecision cudnn_precision = PREC == 1   ? kcu::CudnnPrecision::tf32
                                                  : PREC == 3 ? kcu::CudnnPrecision::fp16
                                                              : kcu::CudnnPrecision::bf16;
  // tf32: the data's type is FP32, so cuDNN writes the caller's output in it (run_cudnn's
  // "output in the data's type", output16): no scratch, no widening.
  const dp::CudnnWrote wrote = dp::run_cudnn(
      device, cudnn_precision, shape, x, w, y, PREC == 1 || out16, size_t(count) * 2, &y16, stream,
      [&](size_t bytes) { return scratch.get(bytes); },
      [&](size_t bytes) { return scratch.transient(bytes); });
  if constexpr (PREC == 1) {
    if (wrote == dp::CudnnWrote::output16 && has_epilogue(epi))
      launch_epilogue(static_cast<const float*>(y), static_cast<float*>(y), epi, count, d.k,
                      stream);
  } else if (wrote == dp::CudnnWrote::narrow)  // widened with the epilogue in one pass
    launch_epilogue<PREC>(static_cast<const unsigned short*>(y16), static_cast<float*>(y), epi,
                          count, d.k, stream);
  else if (wrote == dp::CudnnWrote::fp32 && has_epilogue(epi))
    launch_epilogue(static_cast<const float*>(y), static_cast<float*>(y), epi, count, d.k, stream);
  else if (wrote == dp::CudnnWrote::output16 && has_epilogue(epi))  // the data's 16 bits
    launch_epilogue<PREC>(static_cast<const unsigned short*>(y), static_cast<unsigned short*>(y),
                          epi, count, d.k, stream);
  if (wrote == dp::CudnnWrote::nothing && epi.residual != epilogue.residual) {
    // The first call's search wrote the output, which held the in-place residual: put it back
    // for the config the fallback order tries next.
    const cudaError_t error = cudaMemcpyAsync(y, epi.residual, size_t(count) * (out16 ? 2 : 4),
                                              cudaMemcpyDeviceToDevice, stream);
    if (error != cudaSuccess) cuda_failure("cudaMemcpyAsync (the in-place residual back)", error);
  }
  scratch.release_all();
  return wrote == dp::CudnnWrote::nothing ? Launch::refused : Launch::ok;
#else
  (void)d, (void)x, (void)w, (void)y, (void)out16, (void)epilogue, (void)stream;
  return Launch::refused;  // built without cuDNN (vendors.cmake): the fallback order serves
#endif
}

// The wgmma kernel of a precision's config I with output epilogue Out: its shared-memory opt-in
// once per kernel, then one launch with Out's parameters (a float* for the plain
// KtuneConvWgOutF32).
template <int PREC, size_t I, class Out, class Params>
Launch run_tc_wgmma(const kc::ConvDims& d, const kc::WgmmaConvMaps& maps, const Params& params,
                    cudaStream_t stream) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(TcSelector<PREC>::kConfigs[I]);
  const void* kernel =
      fn(&ktune_conv2d_wgmma<g.tp, g.tq, 128 / (g.tp * g.tq), g.bn, g.st, PREC, Out, g.persist>);
  static const kc::ConvLaunch opt_in = kc::igemm_wgmma_opt_in(g, kernel);
  if (outcome(opt_in) == Launch::refused) return Launch::refused;
  return outcome(kc::launch_igemm_wgmma(g, kernel, d, maps, params, stream));
}

// One of ktune's tensor-core kernels of a precision's selector, writing Y: float, or unsigned
// short (PREC's 16 bits, bf16 or fp16, rounded once at the store).
template <int PREC, size_t I, class Y>
Launch run_tc_kernel(const kc::ConvDims& d, const void* x, const void* w, Y* y,
                     const ktune::Conv2dEpilogue& epilogue, cudaStream_t stream) {
  constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(TcSelector<PREC>::kConfigs[I]);
  static_assert(g.valid, "a config of a tensor-core selector is not a CUDA conv2d config");
  static_assert(g.kind == kc::CudaKind::igemm_mma || g.kind == kc::CudaKind::igemm_wgmma,
                "a tensor-core conv selector ships a config of another kind than the 16-bit ones");
  constexpr bool out16 = std::is_same_v<Y, unsigned short>;
  if constexpr (g.kind == kc::CudaKind::igemm_mma) {
    const bool vec8 = kc::igemm_mma_vectorized(d, x, w);
    const void* kernel =
        !has_epilogue(epilogue)
            ? (vec8 ? fn(&ktune_conv2d_igemm_mma<g.bm, g.bn, g.bk, g.wm, g.wn, g.st, PREC, 8, Y>)
                    : fn(&ktune_conv2d_igemm_mma<g.bm, g.bn, g.bk, g.wm, g.wn, g.st, PREC, 1, Y>))
            : (vec8 ? fn(&ktune_conv2d_igemm_mma<g.bm, g.bn, g.bk, g.wm, g.wn, g.st, PREC, 8, Y, 1>)
                    : fn(&ktune_conv2d_igemm_mma<g.bm, g.bn, g.bk, g.wm, g.wn, g.st, PREC, 1, Y,
                                                 1>));
    const kc::IgemmEpilogue epi{epilogue.bias, epilogue.residual, epilogue.relu ? 1 : 0};
    // The block never exceeds the kernel's __launch_bounds__ (its own thread count).
    return outcome(kc::launch_igemm_mma(g, kernel, g.mma_threads(), d, x, w, y, stream, epi));
  } else {
    bool sm90 = false;
    const cudaError_t error = kc::igemm_wgmma_device_ok(sm90);
    if (error != cudaSuccess) cuda_failure("cudaDeviceGetAttribute", error);
    if (!sm90 || !kc::igemm_wgmma_refusal(g, d, x, w).empty()) return Launch::refused;
    // The 16-bit epilogue stores column pairs as 4 bytes: a 2-byte aligned output goes to mma.
    if (out16 && reinterpret_cast<uintptr_t>(y) % 4 != 0) return Launch::refused;
    kc::WgmmaConvMaps maps;
    if (!kc::encode_igemm_wgmma_maps(g, d, x, w, maps)) return Launch::refused;
    const int relu = epilogue.relu ? 1 : 0;
    if constexpr (out16) {
      // No epilogue: the plain 16-bit store (whole-sector stores, no per-element tests).
      if (!has_epilogue(epilogue))
        return run_tc_wgmma<PREC, I, KtuneConvWgOut16Plain<PREC>>(d, maps, y, stream);
      using Out16 = KtuneConvWgOut16<PREC>;
      return run_tc_wgmma<PREC, I, Out16>(
          d, maps,
          typename Out16::Params{y, epilogue.bias,
                                 static_cast<const unsigned short*>(epilogue.residual), relu},
          stream);
    } else if (has_epilogue(epilogue)) {
      return run_tc_wgmma<PREC, I, KtuneConvWgOutF32Epi>(
          d, maps,
          KtuneConvWgOutF32Epi::Params{y, epilogue.bias,
                                       static_cast<const float*>(epilogue.residual), relu},
          stream);
    } else {  // the sweep's kernel, bit for bit
      return run_tc_wgmma<PREC, I, KtuneConvWgOutF32>(d, maps, y, stream);
    }
  }
}

// y: FP32, or the data's 16 bits when out16 (bf16 or fp16; tf32 output is FP32 only).
template <int PREC, size_t I>
Launch run_tc_config(const kc::ConvDims& d, const void* x, const void* w, void* y, bool out16,
                     const ktune::Conv2dEpilogue& epilogue, cudaStream_t stream) {
  if constexpr (is_cudnn(TcSelector<PREC>::kConfigs[I])) {
    return run_tc_cudnn<PREC>(d, x, w, y, out16, epilogue, stream);
  } else {
    if constexpr (PREC != 1)
      if (out16)
        return run_tc_kernel<PREC, I>(d, x, w, static_cast<unsigned short*>(y), epilogue, stream);
    if (out16) return Launch::refused;  // not reached: tc_prepare refuses it
    return run_tc_kernel<PREC, I>(d, x, w, static_cast<float*>(y), epilogue, stream);
  }
}

using TcLaunchFn = Launch (*)(const kc::ConvDims&, const void*, const void*, void*, bool,
                              const ktune::Conv2dEpilogue&, cudaStream_t);

template <int PREC, size_t... I>
constexpr std::array<TcLaunchFn, sizeof...(I)> make_tc_launchers(std::index_sequence<I...>) {
  return {{&run_tc_config<PREC, I>...}};
}
template <int PREC>
constexpr auto kTcLaunchers =
    make_tc_launchers<PREC>(std::make_index_sequence<size_t(TcSelector<PREC>::kNumConfigs)>{});

// The selector's features: the family's, with the precision after the problem's nine (the
// order `ktune deploy` wrote for a dataset whose problems carry precision=).
template <int PREC>
int tc_choose(const kc::ConvDims& d) {
  if constexpr (TcSelector<PREC>::kNumConfigs == 0) {
    (void)d;
    return -1;
  } else {
    const auto v =
        ktune::kernels::conv2d::feature_values(d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad);
    typename TcSelector<PREC>::Features f{};
    static_assert(sizeof(f) == sizeof(v) + sizeof(double),
                  "a tensor-core selector's features are not the conv2d family's with precision");
    double* slots = reinterpret_cast<double*>(&f);
    constexpr size_t kProblem = size_t(ktune::kernels::conv2d::kProblemFeatures);
    for (size_t i = 0; i < kProblem; ++i) slots[i] = v[i];
    slots[kProblem] = double(PREC);
    for (size_t i = kProblem; i < v.size(); ++i) slots[i + 1] = v[i];
    const int pick = TcSelector<PREC>::select(f);
    return pick >= 0 && pick < TcSelector<PREC>::kNumConfigs ? pick : TcSelector<PREC>::kBaseline;
  }
}

template <int PREC>
Launch tc_launch(int config, const kc::ConvDims& d, const void* x, const void* w, void* y,
                 bool out16, const ktune::Conv2dEpilogue& epilogue, cudaStream_t stream) {
  if constexpr (TcSelector<PREC>::kNumConfigs == 0) {
    (void)config, (void)d, (void)x, (void)w, (void)y, (void)out16, (void)epilogue, (void)stream;
    return Launch::refused;
  } else {
    return kTcLaunchers<PREC>[size_t(config)](d, x, w, y, out16, epilogue, stream);
  }
}

// cuDNN's first call of a layer searches its engines (once per layer, output type and pointer
// alignment; tens to hundreds of ms), which would spend a first call's budget before one cuDNN
// run is timed. So a first call that will time the vendor call runs that search first, outside
// the budget (remember::Prepare), on the caller's input into scratch memory as aligned as the
// trials' scratch output (16 bytes): the trials then time runs, and later calls on 16-byte-aligned
// outputs reuse it. A failure here is left to the vendor call's trial to meet.
template <int PREC>
void search_vendor_first(int vendor, const int* timed, int count, const kc::ConvDims& d,
                         const void* x, const void* w, bool out16,
                         const ktune::Conv2dEpilogue& epilogue, cudaStream_t stream) {
  if (vendor < 0 || std::find(timed, timed + count, vendor) == timed + count) return;
  CallScratch scratch(stream);
  try {
    void* y = scratch.transient(size_t(output_count(d)) * (out16 ? 2 : 4));
    (void)tc_launch<PREC>(vendor, d, x, w, y, out16, epilogue, stream);
    scratch.release_all();
  } catch (const std::exception&) {
    (void)cudaGetLastError();  // not the pick's trial's to meet; a sticky one surfaces again
  }
}

// The config conv2d_ex serves in precision PREC: the pick, or with tune and remember on the
// remembered one (served() of tuned_cuda.inl). A first call times the pick, then the shipped
// cuDNN call, then the safe order, each on the caller's input, filter and epilogue into a scratch
// output (the epilogue's residual is read where the caller keeps it, its output included: the
// caller's output is written afterwards, once, by the config served). The cache keys each
// precision apart ("cuda-<precision>" with its selector's hash), the layer with its output type
// and epilogue (remember_conv2d.hpp).
template <int PREC>
int tc_served(int pick, const kc::ConvDims& d, const void* x, const void* w, void* y, bool out16,
              const ktune::Conv2dEpilogue& epilogue, cudaStream_t stream) {
  using S = TcSelector<PREC>;
  if constexpr (S::kNumConfigs == 0) {
    (void)d, (void)x, (void)w, (void)y, (void)out16, (void)epilogue, (void)stream;
    return pick;
  } else {
    namespace dp = ktune::kernels::conv2d::deploy;
    static const char* const kBackends[4] = {"", "cuda-tf32", "cuda-bf16", "cuda-fp16"};
    static const ktune::remember::Library library{"conv2d", kBackends[PREC], S::kVersion,
                                                  S::kNumConfigs, S::kConfigs};
    static const int vendor = dp::first_vendor_config(S::kConfigs, S::kNumConfigs);
    const bool unsure = S::kUnsure >= 0 && pick == S::kUnsure;
    dp::RememberKey key = remember_key(d);
    key.precision = PREC, key.out16 = out16;
    key.bias = epilogue.bias != nullptr, key.residual = epilogue.residual != nullptr;
    key.relu = epilogue.relu;
    return ktune::remember::cuda::served_config(
        library, pick, unsure, S::kSafeOrder, vendor, key.shape(), [&] { return key.problem(); },
        stream, y, size_t(output_count(d)) * (out16 ? 2 : 4), false,
        [&](int config, void* scratch) {
          return tc_launch<PREC>(config, d, x, w, scratch, out16, epilogue, stream) == Launch::ok;
        },
        [&](const int* timed, int count) {
          search_vendor_first<PREC>(vendor, timed, count, d, x, w, out16, epilogue, stream);
        });
  }
}

// The problem in tensor-core precision PREC (the TMA maps' element type follows it).
template <int PREC>
kc::ConvDims tc_dims(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                     int64_t stride, int64_t pad) {
  kc::ConvDims d{n, h, w, c, k, r, s, stride, pad};
  d.precision = kgm::Precision(PREC);  // 1 tf32, 2 bf16, 3 fp16: the sweep's codes
  return d;
}

bool is_tc_precision(ktune::Conv2dPrecision p) {
  return p == ktune::Conv2dPrecision::tf32 || p == ktune::Conv2dPrecision::bf16 ||
         p == ktune::Conv2dPrecision::fp16;
}

int tc_num_configs(ktune::Conv2dPrecision precision) {
  return with_tc_precision(
      precision, [](auto prec) { return TcSelector<decltype(prec)::value>::kNumConfigs; });
}

// Checks the precision, the output type, the precision's selector and the arguments
// (Conv2dError); false when there is nothing to do (n == 0).
bool tc_prepare(const char* function, ktune::Conv2dPrecision precision,
                ktune::Conv2dOutput output_type, int64_t n, int64_t h, int64_t w, int64_t c,
                int64_t k, int64_t r, int64_t s, int64_t stride, int64_t pad, const void* input,
                const void* filter, const void* output, const ktune::Conv2dEpilogue& epilogue) {
  namespace dp = ktune::kernels::conv2d::deploy;
  if (!is_tc_precision(precision))
    dp::argument_error(function, "precision " + std::to_string(int(precision)) +
                                     " is none of tf32 (1), bf16 (2), fp16 (3) (fp32 (0): "
                                     "ktune::conv2d)");
  const char* name = tc_precision_name(int(precision));
  if (output_type != ktune::Conv2dOutput::fp32 && output_type != ktune::Conv2dOutput::bf16 &&
      output_type != ktune::Conv2dOutput::fp16)
    dp::argument_error(function, "output type " + std::to_string(int(output_type)) +
                                     " is none of fp32 (0), bf16 (2), fp16 (3)");
  // A 16-bit output is the data's type (the kernels' stores round to it, cuDNN writes it).
  if (output_type != ktune::Conv2dOutput::fp32 && int(output_type) != int(precision)) {
    const char* out = tc_precision_name(int(output_type));
    dp::argument_error(
        function, std::string("output type ") + out + " (" + std::to_string(int(output_type)) +
                      ") needs precision " + out + " (" + name + ": output fp32" +
                      (precision == ktune::Conv2dPrecision::tf32 ? std::string()
                                                                 : std::string(" or ") + name) +
                      ")");
  }
  if (tc_num_configs(precision) == 0)
    dp::argument_error(function, std::string("this library ships no ") + name +
                                     " selector (NAMED_SELECTORS " + name + ")");
  if (!dp::check_conv2d_arguments(
          function, n, h, w, c, k, r, s, stride, pad, static_cast<const float*>(input),
          static_cast<const float*>(filter), static_cast<const float*>(output)))
    return false;
  dp::check_conv2d_epilogue(function, epilogue, output,
                            output_count(tc_dims<2>(n, h, w, c, k, r, s, stride, pad)),
                            output_type == ktune::Conv2dOutput::fp32 ? 4 : 2, k);
  return true;
}

}  // namespace

namespace ktune {

void conv2d_ex(Conv2dPrecision precision, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
               int64_t r, int64_t s, int64_t stride, int64_t pad, const void* input,
               const void* filter, float* output, cudaStream_t stream) {
  if (precision == Conv2dPrecision::fp32) {
    conv2d(n, h, w, c, k, r, s, stride, pad, static_cast<const float*>(input),
           static_cast<const float*>(filter), output, stream);
    return;
  }
  conv2d_ex(precision, Conv2dOutput::fp32, n, h, w, c, k, r, s, stride, pad, input, filter, output,
            stream);
}

void conv2d_ex(Conv2dPrecision precision, Conv2dOutput output_type, int64_t n, int64_t h, int64_t w,
               int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride, int64_t pad,
               const void* input, const void* filter, void* output, cudaStream_t stream) {
  conv2d_ex(precision, output_type, n, h, w, c, k, r, s, stride, pad, input, filter, output,
            Conv2dEpilogue{}, stream);
}

void conv2d_ex(Conv2dPrecision precision, Conv2dOutput output_type, int64_t n, int64_t h, int64_t w,
               int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride, int64_t pad,
               const void* input, const void* filter, void* output, const Conv2dEpilogue& epilogue,
               cudaStream_t stream) {
  if (precision == Conv2dPrecision::fp32 && output_type == Conv2dOutput::fp32) {
    namespace dp = kernels::conv2d::deploy;
    if (!has_epilogue(epilogue)) {
      conv2d(n, h, w, c, k, r, s, stride, pad, static_cast<const float*>(input),
             static_cast<const float*>(filter), static_cast<float*>(output), stream);
      return;
    }
    // ktune::conv2d's kinds have no fused epilogue: the convolution, then one pass.
    if (!dp::check_conv2d_arguments(
            "ktune::conv2d_ex", n, h, w, c, k, r, s, stride, pad, static_cast<const float*>(input),
            static_cast<const float*>(filter), static_cast<const float*>(output)))
      return;
    const long long count = output_count(tc_dims<2>(n, h, w, c, k, r, s, stride, pad));
    dp::check_conv2d_epilogue("ktune::conv2d_ex", epilogue, output, count, 4, k);
    auto* st = reinterpret_cast<::cudaStream_t>(stream);
    CallScratch scratch(st);
    const Conv2dEpilogue epi = keep_residual(
        epilogue, output, size_t(count) * 4, [&](size_t b) { return scratch.get(b); }, st);
    conv2d(n, h, w, c, k, r, s, stride, pad, static_cast<const float*>(input),
           static_cast<const float*>(filter), static_cast<float*>(output), stream);
    launch_epilogue(static_cast<const float*>(output), static_cast<float*>(output), epi, count, k,
                    st);
    scratch.release_all();
    return;
  }
  if (!tc_prepare("ktune::conv2d_ex", precision, output_type, n, h, w, c, k, r, s, stride, pad,
                  input, filter, output, epilogue))
    return;
  const bool out16 = output_type != Conv2dOutput::fp32;  // the data's 16 bits (tc_prepare)
  auto* st = reinterpret_cast<::cudaStream_t>(stream);
  with_tc_precision(precision, [&](auto prec) {
    constexpr int P = decltype(prec)::value;
    const kc::ConvDims d = tc_dims<P>(n, h, w, c, k, r, s, stride, pad);
    // The selector's pick (or the remembered answer) first; if it refuses the layer (wgmma off
    // c % 64, another device), the shipped configs in the order of how widely they ran in the
    // sweep.
    const int pick = tc_served<P>(tc_choose<P>(d), d, input, filter, output, out16, epilogue, st);
    if (tc_launch<P>(pick, d, input, filter, output, out16, epilogue, st) == Launch::ok) return;
    for (int i = 0; i < TcSelector<P>::kNumConfigs; ++i) {
      const int index = TcSelector<P>::kSafeOrder[i];
      if (index == pick) continue;
      if (tc_launch<P>(index, d, input, filter, output, out16, epilogue, st) == Launch::ok) return;
    }
    throw std::runtime_error(
        std::string("ktune::conv2d_ex: every shipped ") + tc_precision_name(P) +
        " config refused the layer (c = " + std::to_string(c) + ", k = " + std::to_string(k) + ")");
  });
}

const TunedConv2dInfo& tuned_conv2d_ex_info_cuda(Conv2dPrecision precision) {
  static const TunedConv2dInfo none{"cuda", 0, nullptr, -1};
  static const TunedConv2dInfo bf16{"cuda", TcSelector<2>::kNumConfigs, TcSelector<2>::kConfigs,
                                    TcSelector<2>::kBaseline};
  static const TunedConv2dInfo fp16{"cuda", TcSelector<3>::kNumConfigs, TcSelector<3>::kConfigs,
                                    TcSelector<3>::kBaseline};
  static const TunedConv2dInfo tf32{"cuda", TcSelector<1>::kNumConfigs, TcSelector<1>::kConfigs,
                                    TcSelector<1>::kBaseline};
  if (precision == Conv2dPrecision::fp32) return tuned_conv2d_info_cuda();
  if (precision == Conv2dPrecision::tf32) return tf32;
  if (precision == Conv2dPrecision::bf16) return bf16;
  return precision == Conv2dPrecision::fp16 ? fp16 : none;
}

int tuned_conv2d_ex_choice_cuda(Conv2dPrecision precision, int64_t n, int64_t h, int64_t w,
                                int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride,
                                int64_t pad) {
  if (precision == Conv2dPrecision::fp32)
    return tuned_conv2d_choice_cuda(n, h, w, c, k, r, s, stride, pad);
  if (!is_tc_precision(precision)) return -1;
  return with_tc_precision(precision, [&](auto prec) {
    return tc_choose<decltype(prec)::value>(
        tc_dims<decltype(prec)::value>(n, h, w, c, k, r, s, stride, pad));
  });
}

bool tuned_conv2d_ex_run_config_cuda(Conv2dPrecision precision, int index, int64_t n, int64_t h,
                                     int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                                     int64_t stride, int64_t pad, const void* input,
                                     const void* filter, float* output, cudaStream_t stream) {
  return tuned_conv2d_ex_run_config_cuda(precision, Conv2dOutput::fp32, index, n, h, w, c, k, r, s,
                                         stride, pad, input, filter, output, stream);
}

bool tuned_conv2d_ex_run_config_cuda(Conv2dPrecision precision, Conv2dOutput output_type, int index,
                                     int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                     int64_t r, int64_t s, int64_t stride, int64_t pad,
                                     const void* input, const void* filter, void* output,
                                     cudaStream_t stream) {
  return tuned_conv2d_ex_run_config_cuda(precision, output_type, index, n, h, w, c, k, r, s, stride,
                                         pad, input, filter, output, Conv2dEpilogue{}, stream);
}

bool tuned_conv2d_ex_run_config_cuda(Conv2dPrecision precision, Conv2dOutput output_type, int index,
                                     int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                     int64_t r, int64_t s, int64_t stride, int64_t pad,
                                     const void* input, const void* filter, void* output,
                                     const Conv2dEpilogue& epilogue, cudaStream_t stream) {
  if (!tc_prepare("ktune::tuned_conv2d_ex_run_config_cuda", precision, output_type, n, h, w, c, k,
                  r, s, stride, pad, input, filter, output, epilogue))
    return true;
  return with_tc_precision(precision, [&](auto prec) {
    constexpr int P = decltype(prec)::value;
    if (index < 0 || index >= TcSelector<P>::kNumConfigs)
      kernels::conv2d::deploy::argument_error(
          "ktune::tuned_conv2d_ex_run_config_cuda",
          "index = " + std::to_string(index) + " is not a shipped " + tc_precision_name(P) +
              " config (0.." + std::to_string(TcSelector<P>::kNumConfigs - 1) + ")");
    return tc_launch<P>(index, tc_dims<P>(n, h, w, c, k, r, s, stride, pad), input, filter, output,
                        output_type != Conv2dOutput::fp32, epilogue,
                        reinterpret_cast<::cudaStream_t>(stream)) == Launch::ok;
  });
}

}  // namespace ktune
