// Tensor-core half of the CUDA tuned GEMM library: ktune::gemm_ex in tf32 / bf16 / fp16, each
// (precision, C type) served by its own selector: NAMED_SELECTORS tf32 / bf16 / fp16 of
// ktune_add_tuned_library for FP32 C (a precision without one is refused), bf16_c16 / fp16_c16
// for C in the inputs' 16-bit type (GemmOutput), trained on rows that timed 16-bit C; a library
// without the c16 selector of a precision serves 16-bit C with that precision's selector (the
// kernels store 16-bit C themselves, gemm_out16.cuh). Included by tuned_cuda.inl after
// its helpers (Launch, cuda_failure, max_shared_bytes, launch_chunks, reduce_kernel). The shipped
// configs are the `mma`, `mmasplit` and wgmma kinds (`wgmma`, `wgmmatf32`, `wgmmapp`, `wgmmamc`,
// `wgmmats`, `wgmmacs`, `wgmmasplit`),
// instantiated by nvcc from the headers the NVRTC sweep compiles (and the vendor candidates,
// "vendor=cublas" / "vendor=cublaslt", a selector ships with `ktune deploy --vendors`:
// deploy/vendor_cuda.hpp); wgmma kernels need the library built for sm_90a (their bodies are empty
// elsewhere, and the launcher refuses devices other than compute capability 9.0).
#include "kernels/gemm/cuda/gemm_mma.cuh"
#include "kernels/gemm/cuda/gemm_mma_launch.hpp"
#include "kernels/gemm/cuda/gemm_wgmma.cuh"
#include "kernels/gemm/cuda/gemm_wgmma_launch.hpp"

namespace {

namespace kg = ktune::kernels::gemm;

// A selector slot: 1 tf32, 2 bf16, 3 fp16 (as kg::Precision) with FP32 C; 4 bf16, 5 fp16 with C
// in the inputs' 16-bit type (the c16 selectors).
constexpr int slot_precision(int slot) { return slot <= 3 ? slot : slot - 2; }
constexpr bool slot_c16(int slot) { return slot >= 4; }

// The selector of slot SLOT, or none. kUnsure: the header's, -1 when it states no kUnsure rule;
// kVersion: its hash (tune and remember keys its answers by both, per selector).
template <int SLOT>
struct TcSelector {
  static constexpr int kSlot = SLOT;
  static constexpr int kNumConfigs = 0;
  static constexpr const char* const* kConfigs = nullptr;
  static constexpr int kBaseline = -1;
  static constexpr const int* kSafeOrder = nullptr;
  static constexpr int kUnsure = -1;
  static constexpr const char* kVersion = "";
  static int select(long long, long long, long long, long long, long long, long long) { return -1; }
};

// A selector trained on one precision's dataset takes the precision as its seventh argument
// (the variadic tail); one trained on 16-bit-C rows (a constant c16 column) also c16 = 1 as its
// eighth. NAME: its NAMED_SELECTORS name in capitals (KTUNE_TUNED_UNSURE_<NAME> and
// KTUNE_TUNED_VERSION_<NAME> come with the selector, cmake/KtuneTunedLibrary.cmake).
#define KTUNE_TC_SELECTOR(SLOT, NS, NAME, ...)                                           \
  template <>                                                                            \
  struct TcSelector<SLOT> {                                                              \
    static constexpr int kSlot = SLOT;                                                   \
    static constexpr int kNumConfigs = NS::kNumConfigs;                                  \
    static constexpr const char* const* kConfigs = NS::kConfigs;                         \
    static constexpr int kBaseline = NS::kBaseline;                                      \
    static constexpr const int* kSafeOrder = NS::kSafeOrder;                             \
    static constexpr int kUnsure = KTUNE_TUNED_UNSURE_##NAME;                            \
    static constexpr const char* kVersion = KTUNE_TUNED_VERSION_##NAME;                  \
    static int select(long long ta, long long tb, long long m, long long n, long long k, \
                      long long batch) {                                                 \
      return NS::select(ta, tb, m, n, k, batch, __VA_ARGS__);                            \
    }                                                                                    \
  };
#ifdef KTUNE_TUNED_SELECTOR_TF32
KTUNE_TC_SELECTOR(1, ktune_tuned_selector_tf32, TF32, 1)
#endif
#ifdef KTUNE_TUNED_SELECTOR_BF16
KTUNE_TC_SELECTOR(2, ktune_tuned_selector_bf16, BF16, 2)
#endif
#ifdef KTUNE_TUNED_SELECTOR_FP16
KTUNE_TC_SELECTOR(3, ktune_tuned_selector_fp16, FP16, 3)
#endif
#ifdef KTUNE_TUNED_SELECTOR_BF16_C16
KTUNE_TC_SELECTOR(4, ktune_tuned_selector_bf16_c16, BF16_C16, 2, 1)
#endif
#ifdef KTUNE_TUNED_SELECTOR_FP16_C16
KTUNE_TC_SELECTOR(5, ktune_tuned_selector_fp16_c16, FP16_C16, 3, 1)
#endif
#undef KTUNE_TC_SELECTOR

struct TcArgs {
  bool transa, transb;
  long long m, n, k, batch;
  float alpha, beta;
  const void* a;
  long long lda, stride_a;
  const void* b;
  long long ldb, stride_b;
  void* c;  // floats, or with c16 the input's 16-bit type
  long long ldc, stride_c;
  cudaStream_t stream;
  bool c16;
};
using TcLaunchFn = Launch (*)(const TcArgs&);

constexpr size_t input_bytes(int prec) { return prec == 1 ? 4 : 2; }
size_t output_bytes(const TcArgs& g) { return g.c16 ? 2 : 4; }

Launch tc_outcome(const ktune::kernels::gemm::cuda::TiledLaunch& launch) {
  if (launch.error != cudaSuccess) cuda_failure(launch.message, launch.error);
  return launch.refused ? Launch::refused : Launch::ok;
}

// The C types a slot's configs serve, each its own kernel instantiation (C16: a run-time test in
// the epilogue cost the mma kernel registers and the wgmma ones instructions, gemm_mma.cuh,
// gemm_wgmma.cuh): a c16 selector's 16-bit C only; a 16-bit precision's plain one FP32 C, and
// 16-bit C too where no c16 selector is shipped (tc_slot).
template <int SLOT>
constexpr bool kSlotServesFloatC = !slot_c16(SLOT);
template <int SLOT>
constexpr bool kSlotServesHalfC = slot_precision(SLOT) != 1 &&
                                  (slot_c16(SLOT) || TcSelector<SLOT + 2>::kNumConfigs == 0);

// The kernel of config I of slot SLOT (mma, mmasplit, wgmma: its ping-pong, cluster, staged or
// split-K form, tf32's K-major one) for these transposes, storing C as FP32 or (C16) the input
// type (split-K: one instantiation for both, its FP32 partials reduced into C's type).
template <int SLOT, size_t I, bool TA, bool TB, int C16>
const void* tc_kernel() {
  constexpr int PREC = slot_precision(SLOT);
  constexpr kg::GemmConfig c = kg::parse_gemm_config(TcSelector<SLOT>::kConfigs[I]);
  constexpr kg::BlockedParams p = c.blocked;
  constexpr int ta = TA ? 1 : 0, tb = TB ? 1 : 0;
  if constexpr (kg::runs_mma_kernel(c.kind)) {
    static_assert(kg::cuda::mma_supported_params(p), "an mma config outside the kernel template");
    return reinterpret_cast<const void*>(
        &ktune_gemm_mma<p.bm, p.bn, p.bk, p.wm, p.wn, p.st, PREC, ta, tb, C16>);
  } else {
    static_assert(kg::cuda::wgmma_supported_params(p), "a wgmma config outside the template");
    // tf32: the K-major instantiation (the launcher copies other operands K-major first).
    if constexpr (PREC == 1)
      return reinterpret_cast<const void*>(&ktune_gemm_wgmma<p.bm, p.bn, p.st, p.gr, 1, 1, 0, C16>);
    else if constexpr (p.splits > 1)
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma_sk<p.bm, p.bn, p.st, p.gr, PREC, ta, tb>);
    else if constexpr (p.pp)
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma_pp<p.bm, p.bn, p.st, p.gr, PREC, ta, tb, C16>);
    else if constexpr (p.ts == 2 && p.cl == 2)
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma_mccs<p.bm, p.bn, p.st, p.gr, PREC, ta, tb, C16>);
    else if constexpr (p.ts == 2)
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma_cs<p.bm, p.bn, p.st, p.gr, PREC, ta, tb, C16>);
    else if constexpr (p.ts && p.cl == 2)
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma_mcts<p.bm, p.bn, p.st, p.gr, PREC, ta, tb, C16>);
    else if constexpr (p.ts)
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma_ts<p.bm, p.bn, p.st, p.gr, PREC, ta, tb, C16>);
    else if constexpr (p.cl == 2)
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma_mc<p.bm, p.bn, p.st, p.gr, PREC, ta, tb, C16>);
    else
      return reinterpret_cast<const void*>(
          &ktune_gemm_wgmma<p.bm, p.bn, p.st, p.gr, PREC, ta, tb, C16>);
  }
}
// That kernel for the C type c16 asks for; null for a C type the slot does not serve (not
// instantiated).
template <int SLOT, size_t I, bool TA, bool TB>
const void* tc_kernel(bool c16) {
  if constexpr (kSlotServesHalfC<SLOT>)
    if (c16) return tc_kernel<SLOT, I, TA, TB, 1>();
  if constexpr (kSlotServesFloatC<SLOT>)
    if (!c16) return tc_kernel<SLOT, I, TA, TB, 0>();
  return nullptr;
}

// The split-K reduction of mmasplit and wgmmasplit into C's type: FP32 C, or with 16-bit C the
// one that rounds into the input type (gemm_out16.cuh).
template <int PREC>
const void* split_reduce_kernel(bool c16) {
  if constexpr (PREC != 1)
    if (c16)
      return reinterpret_cast<const void*>(
          &ktune_gemm_splitk_reduce16<PREC, KTUNE_SPLITK_REDUCE_THREADS>);
  return reduce_kernel();
}

// One of ktune's tensor-core kernels (mma, mmasplit, the wgmma kinds) of a selector slot's configs.
template <int SLOT, size_t I, bool TA, bool TB>
Launch run_tc_kernel(const TcArgs& g) {
  constexpr int PREC = slot_precision(SLOT);
  constexpr kg::GemmConfig c = kg::parse_gemm_config(TcSelector<SLOT>::kConfigs[I]);
  static_assert(c.valid, "a config of a tensor-core selector does not parse as a GEMM config");
  static_assert(kg::runs_mma_kernel(c.kind) || kg::runs_wgmma_kernel(c.kind),
                "a tensor-core selector ships a config of another kind than mma(split) or "
                "wgmma(tf32)");
  static_assert(kg::kind_serves(c.kind, kg::Precision(PREC)),
                "a selector ships a config whose kind does not serve its precision");
  static_assert(!slot_c16(SLOT) || kg::kind_serves_c16(c.kind),
                "a 16-bit-C selector ships a kind that does not store 16-bit C (wgmmats, wgmmacs)");
  constexpr kg::BlockedParams p = c.blocked;
  const void* kernel = tc_kernel<SLOT, I, TA, TB>(g.c16);
  if (kernel == nullptr) return Launch::refused;
  if constexpr (kg::runs_mma_kernel(c.kind)) {
    // The grid's z holds at most 65535 batch entries x splits: larger batches go in chunks,
    // each with its split-K workspace from the pool (mmasplit).
    const auto* a = static_cast<const unsigned char*>(g.a);
    const auto* b = static_cast<const unsigned char*>(g.b);
    auto* c = static_cast<unsigned char*>(g.c);
    const void* reduce = split_reduce_kernel<PREC>(g.c16);
    // Refused before the pool allocates a workspace over the launcher's limit (the fallback
    // order serves the shape).
    const long long chunk = 65535 / p.splits;
    if ((long long)kg::cuda::tiled_workspace_floats(
            p, g.m, g.n, g.batch < chunk ? g.batch : chunk) > kg::cuda::kMmaMaxWorkspaceFloats)
      return Launch::refused;
    return launch_chunks(p, g, [&](long long count, long long first, float* workspace) {
      return kg::cuda::launch_mma(
          kernel, p.threads(), max_shared_bytes(), reduce, p, kg::Precision(PREC), TA, TB, g.m, g.n,
          g.k, count, g.alpha, a + first * g.stride_a * long(input_bytes(PREC)), g.lda, g.stride_a,
          b + first * g.stride_b * long(input_bytes(PREC)), g.ldb, g.stride_b, g.beta,
          c + first * g.stride_c * long(output_bytes(g)), g.ldc, g.stride_c, workspace, g.stream,
          g.c16);
    });
  } else if constexpr (PREC == 1) {
    // tf32: operands MN-major or misaligned are first copied K-major into a workspace kept per
    // stream like the split-K kernels' (refused over the mma kinds' workspace limit: the
    // fallback order serves the shape).
    const long long floats = kg::cuda::wgmma_tf32_workspace_floats(
        TA, TB, g.m, g.n, g.k, g.batch, g.a, g.lda, g.stride_a, g.b, g.ldb, g.stride_b);
    if (floats > kg::cuda::kMmaMaxWorkspaceFloats) return Launch::refused;
    auto workspace = stream_workspace(size_t(floats) * sizeof(float), g.stream);
    const kg::cuda::WgmmaTf32Pack pack{reinterpret_cast<const void*>(&ktune_wgmma_pack_tf32<0>),
                                       reinterpret_cast<const void*>(&ktune_wgmma_pack_tf32<1>),
                                       static_cast<float*>(workspace.data()), floats};
    const Launch outcome = tc_outcome(
        kg::cuda::launch_wgmma(kernel, max_shared_bytes(), p, kg::Precision(PREC), TA, TB, g.m, g.n,
                               g.k, g.batch, g.alpha, g.a, g.lda, g.stride_a, g.b, g.ldb,
                               g.stride_b, g.beta, g.c, g.ldc, g.stride_c, g.stream, pack));
    workspace.release();
    return outcome;
  } else if constexpr (p.splits > 1) {
    // wgmmasplit: FP32 partial sums in a workspace kept per stream like mmasplit's (refused over
    // the launcher's limit before the pool allocates it), then the reduction into C's type.
    const long long floats = (long long)kg::cuda::tiled_workspace_floats(p, g.m, g.n, g.batch);
    if (floats > kg::cuda::kMmaMaxWorkspaceFloats) return Launch::refused;
    auto workspace = stream_workspace(size_t(floats) * sizeof(float), g.stream);
    const kg::cuda::WgmmaSplitK split{split_reduce_kernel<PREC>(g.c16),
                                      static_cast<float*>(workspace.data())};
    const Launch outcome = tc_outcome(kg::cuda::launch_wgmma(
        kernel, max_shared_bytes(), p, kg::Precision(PREC), TA, TB, g.m, g.n, g.k, g.batch, g.alpha,
        g.a, g.lda, g.stride_a, g.b, g.ldb, g.stride_b, g.beta, g.c, g.ldc, g.stride_c, g.stream,
        {}, g.c16, split));
    workspace.release();
    return outcome;
  } else {
    return tc_outcome(kg::cuda::launch_wgmma(kernel, max_shared_bytes(), p, kg::Precision(PREC), TA,
                                             TB, g.m, g.n, g.k, g.batch, g.alpha, g.a, g.lda,
                                             g.stride_a, g.b, g.ldb, g.stride_b, g.beta, g.c, g.ldc,
                                             g.stride_c, g.stream, {}, g.c16));
  }
}

// A vendor candidate of a precision's selector ("vendor=cublas", "vendor=cublaslt",
// "vendor=cublaslt;heuristic=<H>"): the vendor's call in that precision, as the sweep timed it
// (deploy/vendor_cuda.hpp).
template <int PREC, kg::VendorCall V, int H>
Launch run_tc_vendor(const TcArgs& g) {
  static_assert(kg::vendor_on_cuda(V), "a tensor-core selector ships a CPU vendor");
  namespace kd = kg::deploy;
  namespace kw = ktune::kernels::cuda_workspace;
  const kg::cuda::LtProblem p{
      kg::Precision(PREC), g.transa, g.transb,   g.m,   g.n,        g.k,  g.batch, g.lda,
      g.stride_a,          g.ldb,    g.stride_b, g.ldc, g.stride_c, g.c16};
  if constexpr (V == kg::VendorCall::cublas) {
    return kd::run_cublas_ex(p, g.alpha, g.a, g.b, g.beta, g.c, g.stream) == kd::VendorOutcome::ok
               ? Launch::ok
               : Launch::refused;
  } else {
    return kd::run_cublaslt_candidate(p, H, "ktune::gemm_ex", g.alpha, g.a, g.b, g.beta, g.c,
                                      g.stream, kw::WorkspacePool{nullptr, &workspace_pool_of}) ==
                   kd::VendorOutcome::ok
               ? Launch::ok
               : Launch::refused;
  }
}

template <int SLOT, size_t I, bool TA, bool TB>
Launch run_tc_config(const TcArgs& g) {
  constexpr const char* config = TcSelector<SLOT>::kConfigs[I];
  constexpr kg::VendorCall vendor = kg::parse_vendor_call(config);
  if constexpr (vendor != kg::VendorCall::none) {
    constexpr int heuristic = vendor == kg::VendorCall::cublaslt ? kg::lt_heuristic_of(config) : 0;
    return run_tc_vendor<slot_precision(SLOT), vendor, heuristic>(g);
  } else {
    return run_tc_kernel<SLOT, I, TA, TB>(g);
  }
}

// kTcLaunchers<SLOT>[config][transa * 2 + transb]
template <int SLOT, size_t... I>
constexpr std::array<std::array<TcLaunchFn, 4>, sizeof...(I)> make_tc_launchers(
    std::index_sequence<I...>) {
  return {{{&run_tc_config<SLOT, I, false, false>, &run_tc_config<SLOT, I, false, true>,
            &run_tc_config<SLOT, I, true, false>, &run_tc_config<SLOT, I, true, true>}...}};
}
template <int SLOT>
constexpr auto kTcLaunchers =
    make_tc_launchers<SLOT>(std::make_index_sequence<size_t(TcSelector<SLOT>::kNumConfigs)>{});

// C = beta * C (k == 0 or alpha == 0: BLAS reads neither A nor B, so a NaN in them must not reach
// C; beta == 0 writes zeros without reading C). The tensor-core kernels would read both. C of
// floats, or with c16 of PREC's 16-bit type (gemm_out16.cuh's store, one rounding).
template <int PREC>
__global__ void ktune_gemm_ex_scale(long long m, long long n, long long batch, float beta, void* c,
                                    long long ldc, long long stride_c, int c16) {
  const long long total = m * n * batch;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long row = i % m, col = (i / m) % n, entry = i / (m * n);
    const long long at = entry * stride_c + col * ldc + row;
    if (c16) {
      ktune_out_store<PREC>(c, at, 1, beta, 0.0f);
    } else {
      float* x = static_cast<float*>(c) + at;
      *x = beta == 0.0f ? 0.0f : beta * *x;
    }
  }
}

void scale_c(int prec, const TcArgs& g) {
  const long long total = g.m * g.n * g.batch;
  const unsigned blocks = unsigned((total + 255) / 256 < 65535 ? (total + 255) / 256 : 65535);
  const int c16 = g.c16 ? 1 : 0;
  if (prec == 2)
    ktune_gemm_ex_scale<2>
        <<<blocks, 256, 0, g.stream>>>(g.m, g.n, g.batch, g.beta, g.c, g.ldc, g.stride_c, c16);
  else if (prec == 3)
    ktune_gemm_ex_scale<3>
        <<<blocks, 256, 0, g.stream>>>(g.m, g.n, g.batch, g.beta, g.c, g.ldc, g.stride_c, c16);
  else  // tf32: FP32 C only
    ktune_gemm_ex_scale<1>
        <<<blocks, 256, 0, g.stream>>>(g.m, g.n, g.batch, g.beta, g.c, g.ldc, g.stride_c, 0);
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) cuda_failure("launch of the C = beta * C kernel", error);
}

const char* precision_text(int prec) {
  return prec == 1 ? "tf32" : prec == 2 ? "bf16" : prec == 3 ? "fp16" : "fp32";
}

// Calls f(TcSelector<SLOT>{}) for slot 1..5.
template <class F>
auto with_slot(int slot, F f) {
  switch (slot) {
    case 1:
      return f(TcSelector<1>{});
    case 2:
      return f(TcSelector<2>{});
    case 3:
      return f(TcSelector<3>{});
    case 4:
      return f(TcSelector<4>{});
    default:
      return f(TcSelector<5>{});
  }
}

int tc_num_configs(int slot) {
  return with_slot(slot, [](auto s) { return decltype(s)::kNumConfigs; });
}

// The rule of gemm_ex: C in FP32 is served by the precision's selector; C in the inputs' 16-bit
// type by the precision's c16 selector (slot + 2) where the library ships one, else by the
// precision's selector as well.
int tc_slot(int prec, bool c16) {
  return c16 && prec != 1 && tc_num_configs(prec + 2) > 0 ? prec + 2 : prec;
}

int tc_choose(int slot, const TcArgs& g) {
  return with_slot(slot, [&](auto selector) {
    using S = decltype(selector);
    const int pick = S::select(g.transa, g.transb, g.m, g.n, g.k, g.batch);
    return pick >= 0 && pick < S::kNumConfigs ? pick : S::kBaseline;
  });
}

template <int SLOT>
Launch tc_launch_of(int config, const TcArgs& g) {
  if constexpr (TcSelector<SLOT>::kNumConfigs == 0) {
    (void)config, (void)g;
    return Launch::refused;
  } else {
    const size_t transposes = size_t((g.transa ? 2 : 0) + (g.transb ? 1 : 0));
    return kTcLaunchers<SLOT>[size_t(config)][transposes](g);
  }
}

Launch tc_launch(int slot, int config, const TcArgs& g) {
  switch (slot) {
    case 1:
      return tc_launch_of<1>(config, g);
    case 2:
      return tc_launch_of<2>(config, g);
    case 3:
      return tc_launch_of<3>(config, g);
    case 4:
      return tc_launch_of<4>(config, g);
    default:
      return tc_launch_of<5>(config, g);
  }
}

const int* tc_safe_order(int slot) {
  return with_slot(slot, [](auto s) { return decltype(s)::kSafeOrder; });
}

// The config gemm_ex serves: the pick, or the remembered answer (remembered_or_pick of
// tuned_cuda.inl). The cache keys each (precision, C type) apart, "cuda-<precision>[-c16]" with
// the serving selector's hash, and the problem by the family's key with precision (and c16).
int tc_served(int slot, int pick, const TcArgs& g) {
  return with_slot(slot, [&](auto selector) {
    using S = decltype(selector);
    if constexpr (S::kNumConfigs == 0) {
      return pick;
    } else {
      constexpr int prec = slot_precision(S::kSlot);
      static const char* const kBackends[2][4] = {{"", "cuda-tf32", "cuda-bf16", "cuda-fp16"},
                                                  {"", "", "cuda-bf16-c16", "cuda-fp16-c16"}};
      // One library per C type: a precision without its 16-bit-C selector serves both.
      static const ktune::remember::Library libraries[2] = {
          {"gemm", kBackends[0][prec], S::kVersion, S::kNumConfigs, S::kConfigs},
          {"gemm", kBackends[1][prec], S::kVersion, S::kNumConfigs, S::kConfigs}};
      ktune::kernels::gemm::deploy::RememberKey key;
      key.transa = g.transa, key.transb = g.transb;
      key.m = g.m, key.n = g.n, key.k = g.k, key.batch = g.batch;
      key.precision = prec;
      key.c16 = g.c16;
      return remembered_or_pick(
          libraries[g.c16 ? 1 : 0], pick, S::kUnsure >= 0 && pick == S::kUnsure, S::kSafeOrder, key,
          g.stream, g.c, c_span_bytes(g.m, g.n, g.batch, g.ldc, g.stride_c, output_bytes(g)),
          g.beta != 0.0f, [&](int config, void* scratch) {
            TcArgs at = g;
            at.c = scratch;
            return tc_launch_of<S::kSlot>(config, at);
          });
    }
  });
}

const char* output_text(ktune::GemmOutput output) {
  return output == ktune::GemmOutput::fp32   ? "fp32"
         : output == ktune::GemmOutput::bf16 ? "bf16"
         : output == ktune::GemmOutput::fp16 ? "fp16"
                                             : "?";
}

// Whether C is in the inputs' 16-bit type; GemmError for an output type the precision does not
// produce (FP32 always; bf16 from bf16 inputs, fp16 from fp16).
bool c_is_16bit(const char* function, int prec, ktune::GemmOutput output) {
  if (output == ktune::GemmOutput::fp32) return false;
  const int out = int(output);
  if (out < 0 || out > 2)
    kg::deploy::argument_error(function,
                               "output " + std::to_string(out) + " is not one of fp32, bf16, fp16");
  if (out != prec - 1)
    kg::deploy::argument_error(function, std::string("output ") + output_text(output) +
                                             " is neither fp32 nor the " + precision_text(prec) +
                                             " inputs' type");
  return true;
}

// Checks the arguments (GemmError), then the selector slot serving (precision, output) (slot);
// returns the arguments, or nothing to do (empty problem, or C = beta * C done).
bool tc_prepare(const char* function, ktune::GemmPrecision precision, ktune::GemmOutput output,
                ktune::Trans transa, ktune::Trans transb, int64_t m, int64_t n, int64_t k,
                float alpha, const void* a, int64_t lda, int64_t stride_a, const void* b,
                int64_t ldb, int64_t stride_b, float beta, void* c, int64_t ldc, int64_t stride_c,
                int64_t batch, ktune::cudaStream_t stream, TcArgs& args, int& slot) {
  const int prec = int(precision);
  if (prec < 1 || prec > 3)
    kg::deploy::argument_error(function, "precision " + std::to_string(prec) +
                                             " is not one of tf32, bf16, fp16 (fp32: gemm)");
  const bool c16 = c_is_16bit(function, prec, output);
  kg::deploy::check_gemm_arguments(function, transa, transb, m, n, k, a, lda, stride_a, b, ldb,
                                   stride_b, c, ldc, stride_c, batch, input_bytes(prec),
                                   c16 ? 2 : 4);
  slot = tc_slot(prec, c16);
  if (tc_num_configs(slot) == 0)
    kg::deploy::argument_error(function, std::string("this library ships no ") +
                                             precision_text(prec) +
                                             " selector (NAMED_SELECTORS of the library)");
  args = TcArgs{transa == ktune::Trans::yes,
                transb == ktune::Trans::yes,
                m,
                n,
                k,
                batch,
                alpha,
                beta,
                a,
                lda,
                stride_a,
                b,
                ldb,
                stride_b,
                c,
                ldc,
                stride_c,
                reinterpret_cast<::cudaStream_t>(stream),
                c16};
  if (m == 0 || n == 0 || batch == 0) return false;
  if (k == 0 || alpha == 0.0f) {
    scale_c(prec, args);
    return false;
  }
  return true;
}

}  // namespace

namespace ktune {

void gemm_ex(GemmPrecision precision, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
             float alpha, const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb,
             int64_t stride_b, float beta, float* c, int64_t ldc, int64_t stride_c, int64_t batch,
             cudaStream_t stream) {
  gemm_ex(precision, GemmOutput::fp32, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb,
          stride_b, beta, c, ldc, stride_c, batch, stream);
}

void gemm_ex(GemmPrecision precision, GemmOutput output, Trans transa, Trans transb, int64_t m,
             int64_t n, int64_t k, float alpha, const void* a, int64_t lda, int64_t stride_a,
             const void* b, int64_t ldb, int64_t stride_b, float beta, void* c, int64_t ldc,
             int64_t stride_c, int64_t batch, cudaStream_t stream) {
  if (precision == GemmPrecision::fp32 && output == GemmOutput::fp32) {
    gemm_strided_batched(transa, transb, m, n, k, alpha, static_cast<const float*>(a), lda,
                         stride_a, static_cast<const float*>(b), ldb, stride_b, beta,
                         static_cast<float*>(c), ldc, stride_c, batch, stream);
    return;
  }
  TcArgs args{};
  int slot = 0;
  if (!tc_prepare("ktune::gemm_ex", precision, output, transa, transb, m, n, k, alpha, a, lda,
                  stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch, stream, args, slot))
    return;
  const int prec = int(precision);
  // The selector's pick (or the remembered answer) first; if the device refuses it (wgmma:
  // operands off TMA's 16-byte grid, another device), the shipped configs in the order of how
  // widely they ran in the sweep.
  const int pick = tc_served(slot, tc_choose(slot, args), args);
  if (tc_launch(slot, pick, args) == Launch::ok) return;
  const int* order = tc_safe_order(slot);
  for (int i = 0; i < tc_num_configs(slot); ++i) {
    if (order[i] == pick) continue;
    if (tc_launch(slot, order[i], args) == Launch::ok) return;
  }
  throw std::runtime_error(std::string("ktune::gemm_ex: the device refused every shipped ") +
                           precision_text(prec) + " config for m = " + std::to_string(m) +
                           ", n = " + std::to_string(n) + ", k = " + std::to_string(k));
}

bool gemm_ex_config(int config, GemmPrecision precision, Trans transa, Trans transb, int64_t m,
                    int64_t n, int64_t k, float alpha, const void* a, int64_t lda, int64_t stride_a,
                    const void* b, int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                    int64_t stride_c, int64_t batch, cudaStream_t stream) {
  return gemm_ex_config(config, precision, GemmOutput::fp32, transa, transb, m, n, k, alpha, a, lda,
                        stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch, stream);
}

bool gemm_ex_config(int config, GemmPrecision precision, GemmOutput output, Trans transa,
                    Trans transb, int64_t m, int64_t n, int64_t k, float alpha, const void* a,
                    int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
                    float beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch,
                    cudaStream_t stream) {
  if (precision == GemmPrecision::fp32 && output == GemmOutput::fp32) {  // the FP32 library's
    const auto *fa = static_cast<const float*>(a), *fb = static_cast<const float*>(b);
    auto* fc = static_cast<float*>(c);
    kg::deploy::check_gemm_arguments("ktune::gemm_ex_config", transa, transb, m, n, k, fa, lda,
                                     stride_a, fb, ldb, stride_b, fc, ldc, stride_c, batch);
    const int shipped = tuned_gemm_info_cuda().num_configs;
    if (config < 0 || config >= shipped)
      kg::deploy::argument_error("ktune::gemm_ex_config",
                                 "config " + std::to_string(config) + " is not one of the " +
                                     std::to_string(shipped) + " shipped fp32 configs");
    if (m == 0 || n == 0 || batch == 0) return true;
    return launch_fp32_config(
               config, cuda_args(transa, transb, m, n, k, alpha, fa, lda, stride_a, fb, ldb,
                                 stride_b, beta, fc, ldc, stride_c, batch, stream)) == Launch::ok;
  }
  TcArgs args{};
  int slot = 0;
  if (!tc_prepare("ktune::gemm_ex_config", precision, output, transa, transb, m, n, k, alpha, a,
                  lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch, stream, args,
                  slot))
    return true;
  if (config < 0 || config >= tc_num_configs(slot))
    kg::deploy::argument_error("ktune::gemm_ex_config",
                               "config " + std::to_string(config) + " is not one of the " +
                                   std::to_string(tc_num_configs(slot)) + " shipped " +
                                   precision_text(int(precision)) +
                                   (slot_c16(slot) ? " 16-bit-C" : "") + " configs");
  return tc_launch(slot, config, args) == Launch::ok;
}

const TunedGemmInfo& tuned_gemm_ex_info_cuda(GemmPrecision precision) {
  return tuned_gemm_ex_info_cuda(precision, GemmOutput::fp32);
}

// The slot serving (precision, output), 0 for fp32 (the FP32 library), -1 for none (an unknown
// precision or output, or a pairing gemm_ex refuses).
namespace {
int info_slot(GemmPrecision precision, GemmOutput output) {
  const int prec = int(precision), out = int(output);
  if (prec == 0) return output == GemmOutput::fp32 ? 0 : -1;
  if (prec < 1 || prec > 3 || out < 0 || out > 2) return -1;
  if (out == 0) return prec;
  return out == prec - 1 ? tc_slot(prec, true) : -1;
}
}  // namespace

const TunedGemmInfo& tuned_gemm_ex_info_cuda(GemmPrecision precision, GemmOutput output) {
  static const TunedGemmInfo none{"cuda", 0, nullptr, -1};
  static const TunedGemmInfo infos[5] = {
      {"cuda", TcSelector<1>::kNumConfigs, TcSelector<1>::kConfigs, TcSelector<1>::kBaseline},
      {"cuda", TcSelector<2>::kNumConfigs, TcSelector<2>::kConfigs, TcSelector<2>::kBaseline},
      {"cuda", TcSelector<3>::kNumConfigs, TcSelector<3>::kConfigs, TcSelector<3>::kBaseline},
      {"cuda", TcSelector<4>::kNumConfigs, TcSelector<4>::kConfigs, TcSelector<4>::kBaseline},
      {"cuda", TcSelector<5>::kNumConfigs, TcSelector<5>::kConfigs, TcSelector<5>::kBaseline}};
  const int slot = info_slot(precision, output);
  if (slot == 0) return tuned_gemm_info_cuda();
  return slot > 0 ? infos[slot - 1] : none;
}

int tuned_gemm_ex_choice_cuda(GemmPrecision precision, Trans transa, Trans transb, int64_t m,
                              int64_t n, int64_t k, int64_t batch) {
  return tuned_gemm_ex_choice_cuda(precision, GemmOutput::fp32, transa, transb, m, n, k, batch);
}

int tuned_gemm_ex_choice_cuda(GemmPrecision precision, GemmOutput output, Trans transa,
                              Trans transb, int64_t m, int64_t n, int64_t k, int64_t batch) {
  const int slot = info_slot(precision, output);
  if (slot == 0) return tuned_gemm_choice_cuda(transa, transb, m, n, k, batch);
  if (slot < 0 || tc_num_configs(slot) == 0) return -1;
  TcArgs args{};
  args.transa = transa == Trans::yes;
  args.transb = transb == Trans::yes;
  args.m = m;
  args.n = n;
  args.k = k;
  args.batch = batch;
  return tc_choose(slot, args);
}

}  // namespace ktune
