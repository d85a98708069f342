// CUDA half of a tuned GEMM library (ktune_add_tuned_library ... BACKENDS cuda), compiled by
// nvcc. Included by the generated source after the selector header, with the namespace alias
// ktune_tuned_selector naming the header's namespace. Each shipped config is parsed at compile
// time into the template arguments of its kernel from the same headers the NVRTC sweep
// compiles (gemm_seed.cuh, gemm_tiled.cuh), and launched with the same geometry code. With
// tune-and-remember on (ktune/remember.hpp), a shape the selector answers kUnsure for is timed on
// its first call, on the GPU (remembered_or_pick, ktune/cuda/remember_cuda.hpp).
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cuda/call_workspace.hpp"
#include "kernels/common/cuda/gemm_tiled.cuh"
#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/gemm_config.hpp"
#include "kernels/gemm/cuda/gemm_seed.cuh"
#include "kernels/gemm/cuda/gemm_seed_launch.hpp"
#include "kernels/gemm/cuda/gemm_warp.cuh"
#include "kernels/gemm/cuda/gemm_warp_launch.hpp"
#include "kernels/gemm/deploy/gemm_validate.hpp"
#include "kernels/gemm/deploy/remember_gemm.hpp"
#include "kernels/gemm/deploy/vendor_cuda.hpp"
#include "kernels/gemm/gemm_vendor_config.hpp"
#include "ktune/cuda/remember_cuda.hpp"
#include "ktune/gemm.hpp"
#include "ktune/remember.hpp"

namespace {

namespace sel = ktune_tuned_selector;

struct CudaArgs {
  bool transa, transb;
  long long m, n, k, batch;
  float alpha, beta;
  const float* a;
  long long lda, stride_a;
  const float* b;
  long long ldb, stride_b;
  float* c;
  long long ldc, stride_c;
  cudaStream_t stream;
};

enum class Launch { ok, refused };
using LaunchFn = Launch (*)(const CudaArgs&);

[[noreturn]] void cuda_failure(const std::string& what, cudaError_t error) {
  throw std::runtime_error("ktune::gemm: " + what + ": " + cudaGetErrorName(error) + ": " +
                           cudaGetErrorString(error));
}

// Resource and configuration errors at launch mean this config cannot run the problem: the
// caller tries the next shipped config. They are not sticky, so clear them.
Launch classify(cudaError_t error, const char* what) {
  if (error == cudaSuccess) error = cudaGetLastError();
  if (error == cudaSuccess) return Launch::ok;
  if (error == cudaErrorLaunchOutOfResources || error == cudaErrorInvalidConfiguration) {
    (void)cudaGetLastError();
    return Launch::refused;
  }
  cuda_failure(what, error);
}

// Split-K and cuBLASLt workspaces come from a memory pool of ktune's own per device that keeps
// its memory (release threshold: never), so stream-ordered allocation costs no trip to the driver
// after the first call (and kernels/common/cuda/call_workspace.hpp keeps one per stream between
// calls). The default pool would return memory at every synchronization and make each split-K call
// pay a fresh allocation (~0.1 ms, measured), and changing its threshold would change the caller's
// process.
cudaMemPool_t workspace_pool_of(int device) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  std::lock_guard lock(mutex);
  auto it = pools.find(device);
  if (it != pools.end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  cudaError_t error = cudaMemPoolCreate(&pool, &props);
  if (error != cudaSuccess) cuda_failure("cudaMemPoolCreate(split-K workspace)", error);
  uint64_t keep_everything = UINT64_MAX;
  error = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything);
  if (error != cudaSuccess) cuda_failure("cudaMemPoolSetAttribute(split-K workspace)", error);
  pools.emplace(device, pool);
  return pool;
}

// A kernel call's workspace (split-K partial sums, tf32's K-major copies) from that pool, kept per
// stream between calls (kernels/common/cuda/call_workspace.hpp): safe with concurrent calls on
// other streams. The caller releases it after the launch.
ktune::kernels::cuda_workspace::CallWorkspace stream_workspace(size_t bytes, cudaStream_t stream) {
  return ktune::kernels::cuda_workspace::CallWorkspace(
      bytes, stream, ktune::kernels::cuda_workspace::WorkspacePool{nullptr, &workspace_pool_of});
}

template <int R, int A, int C>
Launch launch_seed(const ktune::kernels::gemm::SeedParams& p, const CudaArgs& g) {
  // The grid holds at most 65535 batch entries: launch larger batches in chunks.
  for (long long first = 0; first < g.batch; first += 65535) {
    const long long count = g.batch - first < 65535 ? g.batch - first : 65535;
    const auto geometry = ktune::kernels::gemm::cuda::seed_geometry(p, g.m, g.n, count);
    if (geometry.refusal) return Launch::refused;
    const Launch outcome =
        classify(ktune::kernels::gemm::cuda::launch_seed_kernel(
                     reinterpret_cast<const void*>(&ktune_gemm_seed<R, A, C>), geometry, g.transa,
                     g.transb, g.m, g.n, g.k, g.alpha, g.a + first * g.stride_a, g.lda, g.stride_a,
                     g.b + first * g.stride_b, g.ldb, g.stride_b, g.beta, g.c + first * g.stride_c,
                     g.ldc, g.stride_c, g.stream),
                 "launch of the seed kernel");
    if (outcome != Launch::ok) return outcome;
  }
  return Launch::ok;
}

// Shared-memory limit of the current device for kernels that opt in (warp kind); cached per
// device because the query costs more than a launch.
int max_shared_bytes() {
  int device = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess) cuda_failure("cudaGetDevice", error);
  static std::mutex mutex;
  static std::map<int, int> limits;
  std::lock_guard lock(mutex);
  auto it = limits.find(device);
  if (it != limits.end()) return it->second;
  int bytes = 0;
  error = cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (error != cudaSuccess) cuda_failure("cudaDeviceGetAttribute(shared memory opt-in)", error);
  limits.emplace(device, bytes);
  return bytes;
}

// A tiled, split-K, warp or mma kernel over the batch in chunks of at most 65535 grid z entries.
// launch(count, first, workspace) launches the kernel for batch entries [first, first + count).
// Args: CudaArgs, or the tensor-core half's TcArgs (m, n, batch and stream are what it reads).
template <typename Args, typename LaunchChunk>
Launch launch_chunks(const ktune::kernels::gemm::BlockedParams& p, const Args& g,
                     LaunchChunk launch_chunk) {
  const long long chunk = 65535 / p.splits;  // grid z = batch entries * splits
  for (long long first = 0; first < g.batch; first += chunk) {
    const long long count = g.batch - first < chunk ? g.batch - first : chunk;
    const size_t floats = ktune::kernels::gemm::cuda::tiled_workspace_floats(p, g.m, g.n, count);
    auto workspace = stream_workspace(floats * sizeof(float), g.stream);
    const ktune::kernels::gemm::cuda::TiledLaunch launch =
        launch_chunk(count, first, static_cast<float*>(workspace.data()));
    workspace.release();
    if (launch.error != cudaSuccess) cuda_failure(launch.message, launch.error);
    if (launch.refused) return Launch::refused;
  }
  return Launch::ok;
}

const void* reduce_kernel() {
  return reinterpret_cast<const void*>(&ktune_gemm_splitk_reduce<KTUNE_SPLITK_REDUCE_THREADS>);
}

template <int BM, int BN, int BK, int TM, int TN, int VEC, int DB, int TA, int TB>
Launch launch_blocked(const ktune::kernels::gemm::BlockedParams& p, const CudaArgs& g) {
  const void* kernel =
      reinterpret_cast<const void*>(&ktune_gemm_tiled<BM, BN, BK, TM, TN, VEC, DB, TA, TB>);
  return launch_chunks(p, g, [&](long long count, long long first, float* workspace) {
    return ktune::kernels::gemm::cuda::launch_tiled(
        kernel, 1024, reduce_kernel(), p, g.transa, g.transb, g.m, g.n, g.k, count, g.alpha,
        g.a + first * g.stride_a, g.lda, g.stride_a, g.b + first * g.stride_b, g.ldb, g.stride_b,
        g.beta, g.c + first * g.stride_c, g.ldc, g.stride_c, workspace, g.stream);
  });
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int GR, int TA, int TB>
Launch launch_warp(const ktune::kernels::gemm::BlockedParams& p, const CudaArgs& g) {
  const void* kernel =
      reinterpret_cast<const void*>(&ktune_gemm_warp<BM, BN, BK, WM, WN, TM, TN, ST, GR, TA, TB>);
  return launch_chunks(p, g, [&](long long count, long long first, float* workspace) {
    return ktune::kernels::gemm::cuda::launch_warp(
        kernel, 1024, max_shared_bytes(), reduce_kernel(), p, g.transa, g.transb, g.m, g.n, g.k,
        count, g.alpha, g.a + first * g.stride_a, g.lda, g.stride_a, g.b + first * g.stride_b,
        g.ldb, g.stride_b, g.beta, g.c + first * g.stride_c, g.ldc, g.stride_c, workspace,
        g.stream);
  });
}

template <size_t I, bool TA, bool TB>
Launch run_kernel(const CudaArgs& args) {
  constexpr ktune::kernels::gemm::GemmConfig g =
      ktune::kernels::gemm::parse_gemm_config(sel::kConfigs[I]);
  static_assert(g.valid, "a config of the selector header does not parse as a GEMM config");
  static_assert(ktune::kernels::gemm::runs_on_cuda(g.kind),
                "the selector header ships a config whose kind has no CUDA kernel");
  if constexpr (g.kind == ktune::kernels::gemm::Kind::seed) {
    return launch_seed<g.seed.r, g.seed.a, g.seed.c>(g.seed, args);
  } else if constexpr (ktune::kernels::gemm::runs_warp_kernel(g.kind)) {
    constexpr ktune::kernels::gemm::BlockedParams p = g.blocked;
    return launch_warp < p.bm, p.bn, p.bk, p.wm, p.wn, p.tm, p.tn, p.st, p.gr, TA ? 1 : 0,
           TB ? 1 : 0 > (p, args);
  } else {
    constexpr ktune::kernels::gemm::BlockedParams p = g.blocked;
    return launch_blocked < p.bm, p.bn, p.bk, p.tm, p.tn, p.vec, p.db, TA ? 1 : 0,
           TB ? 1 : 0 > (p, args);
  }
}

// A vendor candidate ("vendor=cublas", "vendor=cublaslt", "vendor=cublaslt;heuristic=<i>") is
// that vendor's FP32 call; the rest are ktune's kernels.
template <size_t I, bool TA, bool TB>
Launch run_config(const CudaArgs& g) {
  namespace kg = ktune::kernels::gemm;
  constexpr auto vendor = kg::parse_vendor_call(sel::kConfigs[I]);
  static_assert(vendor == kg::VendorCall::none || kg::vendor_on_cuda(vendor),
                "the CUDA library's selector ships a CPU vendor");
  if constexpr (vendor == kg::VendorCall::cublas) {
    kg::deploy::run_cublas_sgemm(g.transa, g.transb, g.m, g.n, g.k, g.batch, g.alpha, g.a, g.lda,
                                 g.stride_a, g.b, g.ldb, g.stride_b, g.beta, g.c, g.ldc, g.stride_c,
                                 g.stream);
    return Launch::ok;
  } else if constexpr (vendor == kg::VendorCall::cublaslt) {
    // As the FP32 sweep's "cublaslt" rows timed it (CUBLAS_COMPUTE_32F): the workspace from the
    // split-K kernels' pool.
    const kg::cuda::LtProblem p{
        kg::Precision::fp32, g.transa, g.transb,   g.m,   g.n,        g.k,  g.batch, g.lda,
        g.stride_a,          g.ldb,    g.stride_b, g.ldc, g.stride_c, false};
    return kg::deploy::run_cublaslt_candidate(
               p, kg::lt_heuristic_of(sel::kConfigs[I]), "ktune::gemm", g.alpha, g.a, g.b, g.beta,
               g.c, g.stream,
               ktune::kernels::cuda_workspace::WorkspacePool{nullptr, &workspace_pool_of}) ==
                   kg::deploy::VendorOutcome::ok
               ? Launch::ok
               : Launch::refused;
  } else {
    return run_kernel<I, TA, TB>(g);
  }
}

// kLaunchers[config][transa * 2 + transb]
template <size_t... I>
constexpr std::array<std::array<LaunchFn, 4>, sizeof...(I)> make_launchers(
    std::index_sequence<I...>) {
  return {{{&run_config<I, false, false>, &run_config<I, false, true>, &run_config<I, true, false>,
            &run_config<I, true, true>}...}};
}
constexpr auto kLaunchers = make_launchers(std::make_index_sequence<size_t(sel::kNumConfigs)>{});

int choose(ktune::Trans transa, ktune::Trans transb, int64_t m, int64_t n, int64_t k,
           int64_t batch) {
  const int pick = sel::select(transa == ktune::Trans::yes ? 1 : 0,
                               transb == ktune::Trans::yes ? 1 : 0, m, n, k, batch);
  return pick >= 0 && pick < sel::kNumConfigs ? pick : sel::kBaseline;
}

// The config to serve (docs/deploy.md, "Tune and remember"): the selector's pick, or with
// tune-and-remember on and the selector unsure (or KTUNE_REMEMBER_SHAPES=all) the remembered
// one. A first call times the pick, then the shipped safe order, on the caller's A and B into a
// scratch copy of C (C copied in when beta != 0), on the caller's stream with CUDA events, and
// stores the winner; the caller's C is written afterwards, once, by the config served.
// launch(config, c) runs config with C at c (Launch::refused: it cannot). c_bytes: C's span.
template <typename LaunchAt>
int remembered_or_pick(const ktune::remember::Library& lib, int pick, bool unsure,
                       const int* safe_order, const ktune::kernels::gemm::deploy::RememberKey& key,
                       cudaStream_t stream, const void* c, size_t c_bytes, bool reads_c,
                       LaunchAt&& launch) {
  return ktune::remember::cuda::served_config(
      lib, pick, unsure, safe_order, -1, key.shape(), [&] { return key.problem(); }, stream, c,
      c_bytes, reads_c,
      [&](int config, void* scratch) { return launch(config, scratch) == Launch::ok; });
}

// Bytes from C's first element to its last, batch entries included.
size_t c_span_bytes(long long m, long long n, long long batch, long long ldc, long long stride_c,
                    size_t element_bytes) {
  return size_t(ktune::kernels::gemm::deploy::c_span_elements(m, n, batch, ldc, stride_c)) *
         element_bytes;
}

// The FP32 library as the tune-and-remember cache keys it (KTUNE_TUNED_VERSION: the selector's
// hash, set by ktune_add_tuned_library).
#ifndef KTUNE_TUNED_VERSION
#define KTUNE_TUNED_VERSION "unversioned"
#endif
const ktune::remember::Library kRememberLibrary{"gemm", "cuda", KTUNE_TUNED_VERSION,
                                                sel::kNumConfigs, sel::kConfigs};

CudaArgs cuda_args(ktune::Trans transa, ktune::Trans transb, int64_t m, int64_t n, int64_t k,
                   float alpha, const float* a, int64_t lda, int64_t stride_a, const float* b,
                   int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                   int64_t stride_c, int64_t batch, cudaStream_t stream) {
  return {transa == ktune::Trans::yes,
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
          reinterpret_cast<::cudaStream_t>(stream)};
}

// Shipped config `config` on the problem, no fallback: gemm_ex_config's FP32 form (in
// tuned_cuda_tc.inl, the same translation unit), for tests of every shipped config.
Launch launch_fp32_config(int config, const CudaArgs& args) {
  return kLaunchers[size_t(config)][size_t((args.transa ? 2 : 0) + (args.transb ? 1 : 0))](args);
}

}  // namespace

namespace ktune {

void gemm_strided_batched(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, int64_t stride_a, const float* b,
                          int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                          int64_t stride_c, int64_t batch, cudaStream_t stream) {
  kernels::gemm::deploy::check_gemm_arguments("ktune::gemm", transa, transb, m, n, k, a, lda,
                                              stride_a, b, ldb, stride_b, c, ldc, stride_c, batch);
  if (m == 0 || n == 0 || batch == 0) return;
  const CudaArgs args = cuda_args(transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb,
                                  stride_b, beta, c, ldc, stride_c, batch, stream);
  const size_t transposes = size_t((args.transa ? 2 : 0) + (args.transb ? 1 : 0));
  // The selector's pick (or the remembered answer) first; if the device refuses it, the shipped
  // configs in the order of how widely they ran in the sweep.
  const int selected = choose(transa, transb, m, n, k, batch);
#if defined(KTUNE_TUNED_HAS_UNSURE)
  const bool unsure = selected == sel::kUnsure;
#else
  const bool unsure = false;
#endif
  ktune::kernels::gemm::deploy::RememberKey key;
  key.transa = args.transa, key.transb = args.transb;
  key.m = m, key.n = n, key.k = k, key.batch = batch;
  const int pick =
      remembered_or_pick(kRememberLibrary, selected, unsure, sel::kSafeOrder, key, args.stream, c,
                         c_span_bytes(m, n, batch, ldc, stride_c, sizeof(float)), beta != 0.0f,
                         [&](int config, void* scratch) {
                           CudaArgs at = args;
                           at.c = static_cast<float*>(scratch);
                           return kLaunchers[size_t(config)][transposes](at);
                         });
  if (kLaunchers[size_t(pick)][transposes](args) == Launch::ok) return;
  for (int index : sel::kSafeOrder) {
    if (index == pick) continue;
    if (kLaunchers[size_t(index)][transposes](args) == Launch::ok) return;
  }
  throw std::runtime_error(
      "ktune::gemm: the device refused every shipped config for m = " + std::to_string(m) +
      ", n = " + std::to_string(n) + ", k = " + std::to_string(k));
}

void gemm(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
          cudaStream_t stream) {
  gemm_strided_batched(transa, transb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1,
                       stream);
}

const TunedGemmInfo& tuned_gemm_info_cuda() {
  static const TunedGemmInfo info{"cuda", sel::kNumConfigs, sel::kConfigs, sel::kBaseline};
  return info;
}

int tuned_gemm_choice_cuda(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                           int64_t batch) {
  return choose(transa, transb, m, n, k, batch);
}

}  // namespace ktune

// ktune::gemm_ex: the tensor-core precisions, each with its own selector.
#include "kernels/gemm/deploy/tuned_cuda_tc.inl"
