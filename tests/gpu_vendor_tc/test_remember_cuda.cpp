// Tune and remember in the CUDA tuned GEMM library (ktune_tuned_gemm_vendor_tc_test: the FP32
// selector vendor-wins-gpu-k2 and the bf16 / fp16 / bf16_c16 selectors, all with a range guard:
// a non-square shape is unsure). On a GPU: an unsure shape is timed once, on the device, and the
// remembered answer is served bit for bit as a direct call of that config (planted answers too;
// FP32: cuBLAS's SGEMM for vendor=cublas); sure shapes add no row; the cache's device is the GPU;
// beta != 0 reads the caller's C and writes it once (float64 reference, guards); two processes on
// one cache serve the same bits; planted failing candidates do not win and leave no CUDA error
// behind; nothing is timed while the stream is captured. Skips without a GPU.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/gemm/deploy/remember_gemm.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/remember_cuda.hpp"
#include "ktune/remember.hpp"
#include "tests/gpu_vendor_tc/remember_cuda_case.hpp"
#include "tests/remember/remember_cache_util.hpp"
#include "tests/remember/remember_test_util.hpp"

namespace {

using ktune::GemmOutput;
using ktune::GemmPrecision;
namespace kg = ktune::kernels::gemm;
using ktune::test::DeviceCase;
using ktune::test::run_bytes;

struct Served {
  GemmPrecision q;
  GemmOutput out;
  const char* backend;  // the cache's library is gemm/<backend>/<hash>
};
const Served kServed[] = {{GemmPrecision::fp32, GemmOutput::fp32, "cuda"},
                          {GemmPrecision::bf16, GemmOutput::fp32, "cuda-bf16"},
                          {GemmPrecision::bf16, GemmOutput::bf16, "cuda-bf16-c16"},
                          {GemmPrecision::fp16, GemmOutput::fp16, "cuda-fp16-c16"}};

const ktune::TunedGemmInfo& info_of(const Served& s) {
  return s.q == GemmPrecision::fp32 ? ktune::tuned_gemm_info_cuda()
                                    : ktune::tuned_gemm_ex_info_cuda(s.q, s.out);
}

DeviceCase case_of(const Served& s, int64_t m, int64_t n, int64_t k, float alpha = 1,
                   float beta = 0) {
  return ktune::test::make_case(kg::Precision(int(s.q)), false, false, m, n, k, 1, true, alpha,
                                beta, s.out != GemmOutput::fp32);
}

std::string key_of(const Served& s, int64_t m, int64_t n, int64_t k) {
  kg::deploy::RememberKey key;
  key.m = m, key.n = n, key.k = k;
  key.precision = int(s.q);
  key.c16 = s.out != GemmOutput::fp32;
  return key.problem();
}

using ktune_test::index_of;
using ktune_test::plant_answer;
using ktune_test::timings_of;
using ktune_test::winner_of;

ktune::RememberSettings settings_for(const std::string& cache, bool all_shapes = false,
                                     int candidates = 3) {
  ktune::RememberSettings s;
  s.cache = cache;
  s.budget_ms = 2000;  // every candidate timed
  s.all_shapes = all_shapes;
  s.candidates = candidates;
  return s;
}

// The GPU as the cache must key it, from the properties of device 0.
std::string gpu_key() {
  cudaDeviceProp p{};
  EXPECT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  return ktune::remember::cuda_device(p.name, p.multiProcessorCount, p.major, p.minor);
}

// A direct call of a config of what s serves: gemm_ex_config; for FP32 (no such call) cuBLAS's
// own SGEMM where the config is vendor=cublas (the library's call: default math, strided batched,
// the default stream), else nothing (empty).
std::vector<unsigned char> direct_call(const Served& s, const DeviceCase& d,
                                       const std::string& config, float alpha, float beta) {
  if (s.q != GemmPrecision::fp32)
    return run_bytes(d, s.q, s.out, index_of(info_of(s), config), alpha, beta);
  if (config != "vendor=cublas") return {};
  cublasHandle_t handle = nullptr;
  EXPECT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  const kg::Shape& g = d.shape;
  auto bytes = ktune::test::bytes_after(d, s.out, beta, [&](void* c) {
    return cublasSgemmStridedBatched_64(
               handle, g.transa ? CUBLAS_OP_T : CUBLAS_OP_N, g.transb ? CUBLAS_OP_T : CUBLAS_OP_N,
               g.m, g.n, g.k, &alpha, static_cast<const float*>(d.da), g.lda, g.stride_a(),
               static_cast<const float*>(d.db), g.ldb, g.stride_b(), &beta, static_cast<float*>(c),
               g.ldc, g.stride_c(), g.batch) == CUBLAS_STATUS_SUCCESS;
  });
  cublasDestroy(handle);
  return bytes;
}

constexpr int64_t kM = 96, kN = 80, kK = 72;  // not square: every selector here is unsure

TEST(TunedGemmRememberCuda, AnUnsureShapeIsTimedOnTheGpuOnceAndServedBitForBit) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  for (const Served& s : kServed) {
    SCOPED_TRACE(s.backend);
    const std::string cache = ktune_test::fresh_path(std::string(s.backend) + ".sqlite");
    ktune::remember_enable(settings_for(cache));
    DeviceCase d = case_of(s, kM, kN, kK);
    const std::string problem = key_of(s, kM, kN, kK);
    const auto first = run_bytes(d, s.q, s.out, -1, 1, 0);
    ASSERT_FALSE(first.empty());
    const auto rows = timings_of(cache, problem);
    const auto& info = info_of(s);
    EXPECT_EQ(int(rows.size()), std::min(info.num_configs, 3));  // vendors included
    EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [](const auto& t) { return t.winner; }), 1);
    for (const auto& t : rows) {
      EXPECT_EQ(t.device, gpu_key());  // the GPU, not the host's CPU
      EXPECT_NE(t.device, ktune::remember::host_device());
      EXPECT_EQ(t.library.rfind("gemm/" + std::string(s.backend) + "/", 0), 0u) << t.library;
      EXPECT_GT(t.reps, 0);
      EXPECT_GT(t.median_ms, 0);
    }
    // From memory, then (memory forgotten) from the cache: the same bits.
    EXPECT_EQ(run_bytes(d, s.q, s.out, -1, 1, 0), first);
    ktune::remember_enable(settings_for(cache));
    EXPECT_EQ(run_bytes(d, s.q, s.out, -1, 1, 0), first);
    const auto winner = direct_call(s, d, winner_of(rows), 1, 0);
    if (!winner.empty()) {
      EXPECT_EQ(winner, first) << winner_of(rows);
    }
    // Every other shipped config planted as the answer is served, bit for bit its direct call,
    // and within the bound.
    for (int i = 0; i < info.num_configs; ++i) {
      SCOPED_TRACE(info.configs[i]);
      plant_answer(cache, problem, info.configs[i]);
      ktune::remember_enable(settings_for(cache));
      const auto served = run_bytes(d, s.q, s.out, -1, 1, 0);
      const auto direct = direct_call(s, d, info.configs[i], 1, 0);
      if (!direct.empty()) {
        EXPECT_EQ(served, direct);
      }
      const auto values = ktune::test::c_values(served, s.out, d.shape.precision);
      const auto kq = d.shape.precision;
      EXPECT_LE(kg::relative_error(d.shape, values.data(), d.reference),
                s.out != GemmOutput::fp32 ? kg::error_bound_16bit_output(kK, kq)
                                          : kg::error_bound(kK, kq));
    }
    ktune::test::free_case(d);
  }
  ktune::remember_disable();
}

TEST(TunedGemmRememberCuda, ShapesTheSelectorIsSureAboutAddNoRow) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const std::string cache = ktune_test::fresh_path("sure-cuda.sqlite");
  for (const Served& s : kServed) {
    SCOPED_TRACE(s.backend);
    // 128 x 128 x 128 is in range: a leaf that is not kUnsure's config (the tiled kernel, mma).
    ktune::remember_enable(settings_for(cache));
    DeviceCase d = case_of(s, 128, 128, 128);
    EXPECT_FALSE(run_bytes(d, s.q, s.out, -1, 1, 0).empty());
    DeviceCase u = case_of(s, kM, kN, kK);
    EXPECT_FALSE(run_bytes(u, s.q, s.out, -1, 1, 0).empty());  // creates the cache
    EXPECT_TRUE(timings_of(cache, key_of(s, 128, 128, 128)).empty());
    EXPECT_FALSE(timings_of(cache, key_of(s, kM, kN, kK)).empty());
    ktune::remember_enable(settings_for(cache, true));  // KTUNE_REMEMBER_SHAPES=all
    EXPECT_FALSE(run_bytes(d, s.q, s.out, -1, 1, 0).empty());
    EXPECT_FALSE(timings_of(cache, key_of(s, 128, 128, 128)).empty());
    ktune::test::free_case(d);
    ktune::test::free_case(u);
  }
  ktune::remember_disable();
}

// beta != 0: the candidates run on a scratch copy of C; the caller's C is read, and written once
// (twice would give alpha AB + beta (alpha AB + beta C)); the padding rows of C (ldc = m + 1) and
// the guards stay as they were.
TEST(TunedGemmRememberCuda, BetaReadsTheCallersCAndWritesItOnce) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const float alpha = 0.5f, beta = 2.0f;
  for (const Served& s : kServed) {
    SCOPED_TRACE(s.backend);
    ktune::remember_enable(settings_for(ktune_test::fresh_path("beta-cuda.sqlite")));
    DeviceCase d = case_of(s, kM, kN, kK, alpha, beta);
    const auto before = ktune::test::initial_c(d, s.out, beta);
    const auto bytes = run_bytes(d, s.q, s.out, -1, alpha, beta);
    ASSERT_FALSE(bytes.empty());
    const auto kq = d.shape.precision;
    const auto values = ktune::test::c_values(bytes, s.out, kq);
    EXPECT_LE(
        kg::relative_error(d.shape, values.data(), d.reference),
        s.out != GemmOutput::fp32 ? kg::error_bound_16bit_output(kK, kq) : kg::error_bound(kK, kq));
    const size_t es = ktune::test::c_element_bytes(s.out);
    for (size_t i = 0; i < ktune::test::kGuard; ++i) {
      EXPECT_EQ(bytes[i], ktune::test::kGuardByte);
      EXPECT_EQ(bytes[bytes.size() - 1 - i], ktune::test::kGuardByte);
    }
    for (int64_t j = 0; j < kN; ++j)  // row m of each column: padding, not C
      EXPECT_EQ(std::memcmp(bytes.data() + ktune::test::kGuard + size_t(j * d.shape.ldc + kM) * es,
                            before.data() + size_t(j * d.shape.ldc + kM) * es, es),
                0)
          << "column " << j;
    EXPECT_FALSE(timings_of(ktune::remember_settings().cache, key_of(s, kM, kN, kK)).empty());
    ktune::test::free_case(d);
  }
  ktune::remember_disable();
}

TEST(TunedGemmRememberCuda, TwoProcessesOnOneCacheServeTheSameBits) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const std::string cache = ktune_test::fresh_path("two-cuda.sqlite");
  const int shapes = 6;
  const auto hashes = ktune_test::run_two_workers(
      KTUNE_REMEMBER_CUDA_WORKER, shapes, "cuda-worker",
      {"KTUNE_REMEMBER=" + cache,
       // a fresh process's first call loads modules and handles: a budget of tens of ms is
       // spent before a candidate is timed, nothing stored
       "KTUNE_REMEMBER_BUDGET_MS=2000",
       // every shape tuned: the workers' shapes need not be unsure ones
       "KTUNE_REMEMBER_SHAPES=all"});
  const auto &first = hashes[0], &second = hashes[1];
  ASSERT_EQ(int(first.size()), shapes);
  EXPECT_EQ(first, second);
  // Both served the cache's answer: a direct call of it gives the same bits.
  const auto& info = ktune::tuned_gemm_ex_info_cuda(GemmPrecision::bf16, GemmOutput::bf16);
  for (int shape = 0; shape < shapes; ++shape) {
    DeviceCase d = ktune::test::worker_case(shape);
    const std::string answer =
        winner_of(timings_of(cache, key_of({GemmPrecision::bf16, GemmOutput::bf16, ""}, d.shape.m,
                                           d.shape.n, d.shape.k)));
    ASSERT_GE(index_of(info, answer), 0) << "shape " << shape << ": '" << answer << "'";
    const auto direct =
        run_bytes(d, GemmPrecision::bf16, GemmOutput::bf16, index_of(info, answer), 1, 0);
    EXPECT_EQ(std::to_string(ktune::test::fnv1a(direct)), first.at(shape)) << answer;
    ktune::test::free_case(d);
  }
}

// The plumbing every CUDA library tunes with (ktune/cuda/remember_cuda.hpp), on a fake library
// on the GPU: candidate 0 does real work (a memset of 64 MiB); 1 fails with a CUDA error it
// reports (a copy from a null pointer: cudaErrorInvalidValue), 2 refuses, 3 leaves the same error
// unreported: none of them competes, though each "runs" in no time; the error state is clear
// afterwards.
TEST(TunedGemmRememberCuda, PlantedFailingCandidatesDoNotWinAndLeaveNoError) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  static const char* const kConfigs[] = {"c=0", "c=1", "c=2", "c=3"};
  const ktune::remember::Library lib{"fake", "cuda", "planted-failures", 4, kConfigs};
  const std::string cache = ktune_test::fresh_path("planted-cuda.sqlite");
  ktune::remember_enable(settings_for(cache, false, 4));
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const size_t bytes = size_t(64) << 20;
  void* output = nullptr;
  ASSERT_EQ(cudaMalloc(&output, bytes), cudaSuccess);
  ktune::remember::Shape shape;
  shape.values[shape.count++] = 1;
  const int order[] = {3, 2, 1, 0};  // the failing ones first, as a selector's pick would be
  int runs[4] = {};
  const int served = ktune::remember::cuda::choose_on_stream(
      lib, ktune::remember::cuda::current_device(), shape, [] { return std::string("s=1"); }, order,
      4, stream, output, bytes, true,
      [&](int config, void* scratch) {
        ++runs[config];
        EXPECT_NE(scratch, output);  // never the caller's output
        if (config == 0) return cudaMemsetAsync(scratch, 0, bytes, stream) == cudaSuccess;
        if (config == 1) {
          const cudaError_t e =
              cudaMemcpyAsync(scratch, nullptr, bytes, cudaMemcpyDeviceToDevice, stream);
          throw std::runtime_error(std::string("planted: ") + cudaGetErrorName(e));
        }
        if (config == 2) return false;
        (void)cudaMemcpyAsync(scratch, nullptr, bytes, cudaMemcpyDeviceToDevice, stream);
        return true;  // "ran": the error is left for the timing to find
      });
  EXPECT_EQ(served, 0);
  EXPECT_GT(runs[0], 1);
  for (int c = 1; c < 4; ++c) EXPECT_GE(runs[c], 1) << c;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  const auto rows = timings_of(cache, "s=1");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].config, "c=0");
  EXPECT_EQ(rows[0].device, gpu_key());
  // The library still serves correctly after it.
  const Served bf16{GemmPrecision::bf16, GemmOutput::fp32, "cuda-bf16"};
  DeviceCase d = case_of(bf16, kM, kN, kK);
  const auto c = run_bytes(d, bf16.q, bf16.out, -1, 1, 0);
  ASSERT_FALSE(c.empty());
  const auto values = ktune::test::c_values(c, bf16.out, d.shape.precision);
  EXPECT_LE(kg::relative_error(d.shape, values.data(), d.reference),
            kg::error_bound(kK, d.shape.precision));
  ktune::test::free_case(d);
  cudaFree(output);
  cudaStreamDestroy(stream);
  ktune::remember_disable();
}

// While the caller's stream is captured into a graph nothing is timed (a run there would be
// recorded, not run): the candidates[0] is served, nothing stored; after the capture the shape
// is tuned as usual.
TEST(TunedGemmRememberCuda, NothingIsTimedWhileTheStreamIsCaptured) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  static const char* const kConfigs[] = {"c=0", "c=1"};
  const ktune::remember::Library lib{"fake", "cuda", "captured", 2, kConfigs};
  const std::string cache = ktune_test::fresh_path("captured-cuda.sqlite");
  ktune::remember_enable(settings_for(cache));
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  void* output = nullptr;
  ASSERT_EQ(cudaMalloc(&output, 1 << 20), cudaSuccess);
  ktune::remember::Shape shape;
  shape.values[shape.count++] = 2;
  const int order[] = {1, 0};
  const std::string device = ktune::remember::cuda::current_device();  // queried before capture
  int runs = 0;
  auto choose = [&] {
    return ktune::remember::cuda::choose_on_stream(
        lib, device, shape, [] { return std::string("s=2"); }, order, 2, stream, output, 1 << 20,
        false,
        [&](int config, void* scratch) {
          ++runs;
          return cudaMemsetAsync(scratch, config, 1 << 20, stream) == cudaSuccess;
        });
  };
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(choose(), 1);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphDestroy(graph);
  EXPECT_EQ(runs, 0);
  // Not even opened: the cache file does not exist yet.
  EXPECT_TRUE(!std::filesystem::exists(cache) || timings_of(cache, "s=2").empty());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  choose();
  EXPECT_GT(runs, 0);
  EXPECT_EQ(timings_of(cache, "s=2").size(), 2u);
  cudaFree(output);
  cudaStreamDestroy(stream);
  ktune::remember_disable();
}

}  // namespace
