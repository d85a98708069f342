// The GEMM CUDA backend through the family API: device query, registration, sessions that
// verify and time configs and the cuBLAS baseline, and the statuses of broken kernels.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "kernels/gemm/cuda/gemm_cuda_backend.hpp"
#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/cuda.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace gcuda = ktune::kernels::gemm::cuda;

const ktune::Family& gemm_family() {
  ktune::register_builtin();
  ktune::register_cuda_backends();
  return ktune::find_family("gemm");
}

ktune::Problem problem(int64_t m, int64_t n, int64_t k, int64_t batch, bool ta, bool tb) {
  ktune::kernels::gemm::Shape s;
  s.m = m, s.n = n, s.k = k, s.batch = batch, s.transa = ta, s.transb = tb;
  s.lda = ta ? k : m, s.ldb = tb ? n : k, s.ldc = m;
  return ktune::kernels::gemm::problem_of(s);
}

ktune::TimingPolicy quick_policy() {
  ktune::TimingPolicy policy;
  policy.warmups = 1, policy.min_reps = 3, policy.max_reps = 5, policy.budget_ms = 5;
  return policy;
}

ktune::Config config(const ktune::Family& family, const std::string& text) {
  return family.space().parse(text);
}

TEST(CudaWithoutGpu, DeviceCountIsZeroAndOpeningCuda0ThrowsAClearError) {
  if (ktune::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device exists: no-GPU test skipped";
  EXPECT_EQ(ktune::cuda_device_count(), 0);
  try {
    ktune::open_backend(gemm_family(), "cuda:0");
    FAIL() << "opening cuda:0 without a GPU succeeded";
  } catch (const ktune::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cuda:0"), std::string::npos) << message;
    EXPECT_NE(message.find("no CUDA device"), std::string::npos) << message;
  }
  EXPECT_THROW(ktune::query_cuda_device(0), ktune::Error);
}

TEST(CudaDevice, QueryReportsSaneFeatures) {
  KTUNE_REQUIRE_GPU();
  const ktune::DeviceInfo info = ktune::query_cuda_device(0);
  EXPECT_EQ(info.spec, "cuda:0");
  EXPECT_EQ(info.backend, "cuda");
  EXPECT_FALSE(info.name.empty());
  EXPECT_FALSE(info.slug.empty());
  EXPECT_EQ(info.slug.rfind("nvidia-", 0), std::string::npos) << info.slug;
  EXPECT_EQ(info.slug, ktune::slugify(info.slug)) << "slug must be slugify-stable";
  std::map<std::string, double> f(info.features.begin(), info.features.end());
  for (const char* name :
       {"sm_count", "compute_capability", "shared_mem_per_block", "shared_mem_per_block_optin",
        "shared_mem_per_sm", "regs_per_block", "regs_per_sm", "l2_bytes", "clock_khz",
        "memory_clock_khz", "memory_bus_bits", "global_mem_bytes", "max_threads_per_block",
        "warp_size"}) {
    ASSERT_TRUE(f.count(name)) << name;
    EXPECT_GT(f[name], 0) << name;
  }
  EXPECT_GE(f["compute_capability"], 7.0);
  EXPECT_EQ(f["warp_size"], 32);
  EXPECT_GE(f["max_threads_per_block"], 1024);
  EXPECT_GE(f["shared_mem_per_block_optin"], f["shared_mem_per_block"]);
  EXPECT_GE(f["regs_per_sm"], f["regs_per_block"]);
  EXPECT_GE(f["global_mem_bytes"], 1e9);
  EXPECT_GE(f["clock_khz"], 1e5);  // > 100 MHz
  EXPECT_THROW(ktune::query_cuda_device(ktune::cuda_device_count()), ktune::Error);
}

TEST(CudaGemmBackend, ConfigsAreVerifiedAndTimedOnOddBatchedProblems) {
  KTUNE_REQUIRE_GPU();
  const auto& family = gemm_family();
  auto backend = ktune::open_backend(family, "cuda:0");
  EXPECT_EQ(backend->device().backend, "cuda");
  const std::vector<std::string> texts = {"r=1;a=1;c=1;wg=8x8", "r=8;a=4;c=2;wg=16x16",
                                          "r=2;a=8;c=8;wg=64x1", "r=4;a=2;c=4;wg=1x128"};
  std::vector<ktune::Config> configs;
  for (const auto& t : texts) configs.push_back(config(family, t));
  backend->prepare(configs);
  for (int trans = 0; trans < 4; ++trans) {
    auto session = backend->open(problem(37, 29, 53, 3, trans & 1, trans & 2));
    for (size_t i = 0; i < configs.size(); ++i) {
      const ktune::Outcome outcome = session->run(configs[i], quick_policy());
      ASSERT_EQ(outcome.status, ktune::Status::ok) << texts[i] << ": " << outcome.message;
      EXPECT_GE(outcome.rel_error, 0);
      EXPECT_LE(outcome.rel_error, ktune::kernels::gemm::error_bound(53));
      EXPECT_GE(outcome.timing.reps, 3);
      EXPECT_GT(outcome.timing.median_ms, 0);
      EXPECT_LE(outcome.timing.min_ms, outcome.timing.median_ms);
    }
  }
}

// The warpsplit kind through the sweep's path (workspace, kernel, reduction): every config on a
// deep ragged batched problem whose K slices do not divide evenly, the transposes cycling.
TEST(CudaGemmBackend, EveryWarpsplitConfigIsVerifiedOnADeepProblem) {
  KTUNE_REQUIRE_GPU();
  const auto& family = gemm_family();
  const auto configs = ktune::parse_config_list(family.space(), "kind:warpsplit");
  ASSERT_EQ(configs.size(), 54u);
  auto backend = ktune::open_backend(family, "cuda:0");
  backend->prepare(configs);
  std::vector<std::unique_ptr<ktune::ProblemSession>> sessions;
  for (int trans = 0; trans < 4; ++trans)
    sessions.push_back(backend->open(problem(150, 77, 2100, 2, trans & 1, trans & 2)));
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::string text = family.space().to_string(configs[i]);
    const ktune::Outcome outcome = sessions[i % 4]->run(configs[i], quick_policy());
    ASSERT_EQ(outcome.status, ktune::Status::ok) << text << ": " << outcome.message;
    EXPECT_GE(outcome.rel_error, 0) << text;
    EXPECT_LE(outcome.rel_error, ktune::kernels::gemm::error_bound(2100)) << text;
  }
}

// A round's tiled, split-K and warp configs are compiled for the transposes of the problems
// that run them, not all four pairs (the NVRTC disk cache, empty at the start, holds one file
// per instantiation compiled, its name expression in the key).
TEST(CudaGemmBackend, PrepareCompilesOnlyTheTransposesOfTheProblemsRun) {
  KTUNE_REQUIRE_GPU();
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ktune-prepare-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(::setenv("KTUNE_CACHE_DIR", dir.c_str(), 1), 0);
  const auto& family = gemm_family();
  const std::vector<std::string> texts = {
      "kind=tiled;bm=32;bn=32;bk=8;tm=4;tn=4;vec=1;db=0",
      "kind=splitk;bm=32;bn=32;bk=32;tm=4;tn=4;vec=4;db=1;splits=16",
      "kind=warp;bm=64;bn=64;bk=16;wm=32;wn=32;tm=4;tn=8;st=4;gr=1;splits=1"};
  std::vector<ktune::Config> configs;
  for (const auto& t : texts) configs.push_back(config(family, t));
  auto backend = ktune::open_backend(family, "cuda:0");
  backend->prepare(configs);
  auto session = backend->open(problem(96, 80, 64, 1, false, true));
  const ktune::Outcome outcome = session->run(configs[0], quick_policy());
  ASSERT_EQ(outcome.status, ktune::Status::ok) << outcome.message;
  std::set<std::string> blocked;  // the tiled and warp name expressions compiled
  for (const auto& file : fs::directory_iterator(dir / "nvrtc")) {
    std::ifstream in(file.path(), std::ios::binary);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("expr ktune_gemm_tiled<", 0) == 0 ||
          line.rfind("expr ktune_gemm_warp<", 0) == 0)
        blocked.insert(line.substr(5));
  }
  fs::remove_all(dir);
  EXPECT_EQ(blocked.size(), texts.size()) << "one instantiation per config, (N, T) only";
  for (const std::string& name : blocked) EXPECT_TRUE(name.ends_with(",0,1>")) << name;
}

// The FP32 vendor rows: cuBLAS, cuBLASLt's heuristic answers #0..#7 (CUBLAS_COMPUTE_32F) and
// their fastest, each verified against the FP32 bound (a refused answer: the heuristic offered
// fewer than eight).
TEST(CudaGemmBackend, CublasBaselineIsVerifiedAndTimed) {
  KTUNE_REQUIRE_GPU();
  auto backend = ktune::open_backend(gemm_family(), "cuda:0");
  for (int trans = 0; trans < 4; ++trans) {
    auto session = backend->open(problem(300, 257, 129, 2, trans & 1, trans & 2));
    const std::vector<std::string> vendors = session->vendors();
    ASSERT_EQ(vendors.size(), 10u);
    EXPECT_EQ(vendors.front(), "cublas");
    EXPECT_EQ(vendors[1], "cublaslt");
    EXPECT_EQ(vendors.back(), "cublaslt-top8");
    for (const std::string& vendor : vendors) {
      const ktune::Outcome outcome = session->run_vendor(vendor, quick_policy());
      if (vendor.starts_with("cublaslt;") && outcome.status == ktune::Status::refused) continue;
      ASSERT_EQ(outcome.status, ktune::Status::ok) << vendor << ": " << outcome.message;
      // FP32 without TF32: TF32 would be ~1e-3 off, far above the bound.
      EXPECT_LE(outcome.rel_error, ktune::kernels::gemm::error_bound(129)) << vendor;
      EXPECT_GT(outcome.timing.median_ms, 0) << vendor;
    }
    EXPECT_THROW(session->run_vendor("openblas", quick_policy()), ktune::Error);
  }
}

TEST(CudaGemmBackend, LargerProblemSeedAndCublasBothPass) {
  KTUNE_REQUIRE_GPU();
  const auto& family = gemm_family();
  auto backend = ktune::open_backend(family, "cuda:0");
  auto session = backend->open(problem(1024, 768, 512, 1, false, true));
  const auto seed = session->run(config(family, "r=4;a=4;c=4;wg=16x16"), quick_policy());
  ASSERT_EQ(seed.status, ktune::Status::ok) << seed.message;
  const auto vendor = session->run_vendor("cublas", quick_policy());
  ASSERT_EQ(vendor.status, ktune::Status::ok) << vendor.message;
  const double gflop = 2.0 * 1024 * 768 * 512 / 1e9;
  std::printf("1024x768x512: seed r4a4c4 16x16 %.1f GFLOP/s, cuBLAS %.1f GFLOP/s\n",
              gflop / (seed.timing.median_ms / 1e3), gflop / (vendor.timing.median_ms / 1e3));
}

TEST(CudaGemmBackend, BrokenKernelSourceGivesFailedNotACrash) {
  KTUNE_REQUIRE_GPU();
  const auto& family = gemm_family();
  gcuda::BackendOptions options;
  options.kernel_source = "template <int R, int A, int C> __global__ void ktune_gemm_seed() { x; }";
  auto backend = gcuda::make_backend(family, 0, options);
  const auto c = config(family, "r=2;a=2;c=2;wg=8x8");
  backend->prepare({c});
  auto session = backend->open(problem(16, 16, 16, 1, false, false));
  const auto outcome = session->run(c, quick_policy());
  EXPECT_EQ(outcome.status, ktune::Status::failed);
  EXPECT_NE(outcome.message.find("error"), std::string::npos) << outcome.message;
  // The vendor baseline still works on the same session.
  EXPECT_EQ(session->run_vendor("cublas", quick_policy()).status, ktune::Status::ok);
}

TEST(CudaGemmBackend, WrongResultsAndReadingPoisonedOutputAreWrong) {
  KTUNE_REQUIRE_GPU();
  const auto& family = gemm_family();
  const auto c = config(family, "r=2;a=2;c=2;wg=8x8");
  const std::string good = ktune::embedded_file("gemm_seed.cuh");

  // Off by a little in every accumulation step.
  std::string off = good;
  const std::string fma = "acc[r][j] = fmaf(a_tile[r][q], b_tile[q][j], acc[r][j]);";
  ASSERT_NE(off.find(fma), std::string::npos);
  off.replace(off.find(fma), fma.size(),
              "acc[r][j] = fmaf(a_tile[r][q], b_tile[q][j], acc[r][j]) + 1e-3f;");
  gcuda::BackendOptions options;
  options.kernel_source = off;
  auto backend = gcuda::make_backend(family, 0, options);
  auto session = backend->open(problem(64, 64, 64, 1, false, false));
  auto outcome = session->run(c, quick_policy());
  EXPECT_EQ(outcome.status, ktune::Status::wrong) << outcome.message;
  EXPECT_GT(outcome.rel_error, ktune::kernels::gemm::error_bound(64));

  // Reads C although beta == 0: the NaN poison must show.
  std::string reads_c = good;
  const std::string guard = "beta == 0.0f ?";
  ASSERT_NE(reads_c.find(guard), std::string::npos);
  reads_c.replace(reads_c.find(guard), guard.size(), "false ?");
  options.kernel_source = reads_c;
  auto backend2 = gcuda::make_backend(family, 0, options);
  auto session2 = backend2->open(problem(64, 64, 64, 1, false, false));
  outcome = session2->run(c, quick_policy());
  EXPECT_EQ(outcome.status, ktune::Status::wrong) << outcome.message;
  EXPECT_TRUE(std::isinf(outcome.rel_error));
}

TEST(CudaGemmBackend, TimeoutWhenARunExceedsThePolicy) {
  KTUNE_REQUIRE_GPU();
  const auto& family = gemm_family();
  auto backend = ktune::open_backend(family, "cuda:0");
  auto session = backend->open(problem(512, 512, 512, 1, false, false));
  ktune::TimingPolicy policy = quick_policy();
  policy.timeout_ms = 1e-4;  // 0.1 us: no launch is that fast
  const auto outcome = session->run(config(family, "r=1;a=1;c=1;wg=1x64"), policy);
  EXPECT_EQ(outcome.status, ktune::Status::timeout) << outcome.message;
  EXPECT_LE(outcome.rel_error, ktune::kernels::gemm::error_bound(512));  // verified before timing
}

}  // namespace
