// The tiled / split-K GEMM kernels (kernels/common/cuda/gemm_tiled.cuh) compiled by NVRTC and
// launched through gemm_tiled_launch.hpp, against the host float64 reference: every block shape
// of the space, all transposes, edge shapes, padded and odd leading dimensions (scalar
// fallback), misaligned pointers, batches, alpha/beta, split-K with 2..64 splits, refusals.
// The compile check of the whole space needs NVRTC only (no GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "tests/gpu/gemm_kernel_fixture.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

using ktune::cuda::LoadedKernel;
using ktune::cuda::NvrtcRequest;
using ktune::kernels::gemm::BlockedParams;
using ktune::kernels::gemm::Shape;
namespace gcuda = ktune::kernels::gemm::cuda;

bool fits(const BlockedParams& p) {
  const int threads = p.threads();
  if (threads < 64 || threads > 256) return false;
  if ((p.bm + p.bn) * p.bk * 4 * (p.db ? 2 : 1) > 48 * 1024) return false;
  return (p.bm * p.bk) % (threads * p.vec) == 0 && (p.bn * p.bk) % (threads * p.vec) == 0;
}

// The tiled space of the Fast GEMM issue (splits = 1).
std::vector<BlockedParams> tiled_space() {
  std::vector<BlockedParams> out;
  for (int bm : {32, 64, 128})
    for (int bn : {32, 64, 128})
      for (int bk : {8, 16})
        for (int tm : {4, 8})
          for (int tn : {4, 8})
            for (int vec : {1, 4})
              for (int db : {0, 1}) {
                const BlockedParams p{bm, bn, bk, tm, tn, vec, db, 1};
                if (fits(p)) out.push_back(p);
              }
  return out;
}

// The split-K kernels (one per tile; splits is a launch argument), with splits = 2.
std::vector<BlockedParams> splitk_kernels() {
  std::vector<BlockedParams> out;
  for (int bm : {32, 64})
    for (int bn : {32, 64})
      for (int bk : {16, 32}) {
        const BlockedParams p{bm, bn, bk, 4, 4, 4, 1, 2};
        if (fits(p)) out.push_back(p);
      }
  return out;
}

NvrtcRequest tiled_request(const BlockedParams& p, bool ta, bool tb, const std::string& arch) {
  return ktune::test::kernel_request("gemm_tiled.cuh", gcuda::tiled_name_expression(p, ta, tb),
                                     arch);
}

TEST(TiledGemmHost, NameExpressionWorkspaceAndKChunk) {
  const BlockedParams p{128, 128, 8, 8, 8, 4, 1, 1};
  EXPECT_EQ(gcuda::tiled_name_expression(p, false, false),
            "ktune_gemm_tiled<128,128,8,8,8,4,1,0,0>");
  EXPECT_EQ(gcuda::tiled_name_expression(p, true, false),
            "ktune_gemm_tiled<128,128,8,8,8,4,1,1,0>");
  EXPECT_EQ(gcuda::tiled_workspace_floats(p, 100, 50, 3), 0u);
  const BlockedParams s{64, 32, 16, 4, 4, 4, 1, 8};
  EXPECT_EQ(gcuda::tiled_workspace_floats(s, 100, 50, 3), 100u * 50u * 3u * 8u);
  EXPECT_EQ(gcuda::tiled_k_chunk(s, 1000), 128);  // ceil(1000 / 8) = 125 -> 128
  EXPECT_EQ(gcuda::tiled_k_chunk(s, 5), 16);      // never below one K tile
  EXPECT_EQ(gcuda::tiled_k_chunk(s, 0), 16);
  EXPECT_STREQ(gcuda::kSplitkReduceName, "ktune_gemm_splitk_reduce<256>");
  EXPECT_EQ(tiled_space().size(), 178u);
  EXPECT_EQ(splitk_kernels().size(), 8u);
}

// NVRTC only: every kernel of both kinds compiles for sm_90 (transposes cycle over the configs,
// so each transpose pair is compiled for a quarter of the space), plus the reduction kernel.
TEST(TiledGemmNvrtc, EveryConfigOfBothKindsCompilesForSm90) {
  ktune::test::ScopedCacheDir cache("tiled-all");
  std::vector<NvrtcRequest> requests;
  auto configs = tiled_space();
  for (const BlockedParams& p : splitk_kernels()) configs.push_back(p);
  for (size_t i = 0; i < configs.size(); ++i) {
    requests.push_back(tiled_request(configs[i], i & 1, (i >> 1) & 1, "sm_90"));
  }
  requests.push_back(ktune::test::splitk_reduce_request("sm_90"));
  ktune::test::expect_all_compile(requests, [&](size_t i) {
    return i + 1 < requests.size() ? "ktune_gemm_tiled" : "ktune_gemm_splitk_reduce";
  });
}

class TiledGemmTest : public ktune::test::GemmKernelTest {
 protected:
  NvrtcRequest request(const BlockedParams& p, bool ta, bool tb,
                       const std::string& arch) const override {
    return tiled_request(p, ta, tb, arch);
  }
  gcuda::TiledLaunch launch(const LoadedKernel& k, const BlockedParams& p, const Shape& s,
                            float alpha, const float* a, const float* b, float beta, float* c,
                            float* workspace) override {
    return gcuda::launch_tiled(k.function(), k.attributes().maxThreadsPerBlock,
                               p.splits > 1 ? reduce().function() : nullptr, p, s.transa, s.transb,
                               s.m, s.n, s.k, s.batch, alpha, a, s.lda, s.stride_a(), b, s.ldb,
                               s.stride_b(), beta, c, s.ldc, s.stride_c(), workspace, nullptr);
  }
};

using ktune::test::make_shape;

// A sample of the tiled space: every (bm, bn, tm, tn) that passes the constraint, with bk, vec
// and db varied over the sample (the first fitting variant in a rotating order).
std::vector<BlockedParams> block_shape_sample() {
  return ktune::test::one_per_key(
      tiled_space(),
      [](const BlockedParams& p) {
        return std::tuple{p.bm, p.bn, p.tm, p.tn};
      },
      0, 1);
}

TEST_F(TiledGemmTest, EveryBlockShapeAndTransposeMatchesTheReference) {
  const auto sample = block_shape_sample();
  ASSERT_EQ(sample.size(), 26u);
  // Odd leading dimensions: the scalar fallback; aligned ones: vector loads.
  check_odd_and_aligned(sample, {130, 67, 33}, {128, 96, 64});
}

TEST_F(TiledGemmTest, EdgeShapesPaddedLeadingDimensionsAndBatches) {
  const BlockedParams configs[] = {
      {128, 128, 8, 8, 8, 4, 1, 1}, {32, 32, 16, 4, 4, 1, 0, 1}, {64, 128, 16, 8, 8, 4, 0, 1}};
  check_edge_shapes({std::begin(configs), std::end(configs)}, {1, 3, 33, 127, 130},
                    {1, 3, 127, 130});
}

TEST_F(TiledGemmTest, Vec4FallsBackToScalarLoadsForOddLeadingDimensionsAndMisalignedPointers) {
  const BlockedParams vec4{64, 64, 16, 8, 8, 4, 1, 1};
  const BlockedParams vec1{64, 64, 16, 8, 8, 1, 1, 1};
  for (int t = 0; t < 4; ++t) {
    for (const BlockedParams& p : {vec4, vec1}) {
      const Shape odd_ld = make_shape(t & 1, t & 2, 100, 90, 77, 2, 1);  // lds % 4 != 0
      EXPECT_LE(run(p, odd_ld, 1.0f, 0.0f, 400 + t), ktune::kernels::gemm::error_bound(odd_ld.k))
          << describe(p, odd_ld.transa, odd_ld.transb);
      const Shape aligned = make_shape(t & 1, t & 2, 128, 64, 64, 2);
      EXPECT_LE(run(p, aligned, 1.0f, 0.5f, 500 + t, /*a_offset=*/1),
                ktune::kernels::gemm::error_bound(aligned.k))
          << describe(p, aligned.transa, aligned.transb) << " misaligned A";
    }
  }
}

TEST_F(TiledGemmTest, KZeroScalesC) {
  for (BlockedParams p : {BlockedParams{64, 64, 8, 4, 8, 4, 1, 1}, splitk_kernels().front()}) {
    const Shape s = make_shape(false, true, 33, 20, 0, 2);
    EXPECT_LE(run(p, s, 1.0f, 2.0f, 600), ktune::kernels::gemm::error_bound(1))
        << describe(p, false, true);
    std::vector<float> out;
    EXPECT_EQ(run(p, s, 1.0f, 0.0f, 601, 0, &out), 0.0) << describe(p, false, true);
    EXPECT_EQ(out[0], 0.0f);  // beta == 0 with k == 0 writes zeros over the NaN
  }
}

// BLAS: alpha == 0 reads neither A nor B (NaN there must not reach C = beta * C), for the
// tiled kernel with and without double buffering and for split-K.
TEST_F(TiledGemmTest, AlphaZeroNeverReadsNaNPoisonedAOrB) {
  BlockedParams split = splitk_kernels().front();
  split.splits = 4;
  for (BlockedParams p :
       {BlockedParams{64, 64, 8, 4, 8, 4, 1, 1}, BlockedParams{32, 32, 16, 4, 4, 1, 0, 1}, split}) {
    for (float beta : {0.0f, -0.5f}) {  // exact scaling: C must equal beta * C0 bit for bit
      const Shape s = make_shape(true, true, 70, 45, 300, 2);
      EXPECT_EQ(run(p, s, 0.0f, beta, 650, 0, nullptr, /*nan_inputs=*/true), 0.0)
          << describe(p, true, true) << " beta=" << beta;
    }
  }
}

TEST_F(TiledGemmTest, SplitKEverySplitCountIncludingEmptySplitsIsCorrectAndDeterministic) {
  prepare(splitk_kernels());
  int cases = 0;
  for (BlockedParams p : splitk_kernels()) {
    for (int splits : {2, 4, 8, 16, 32, 64}) {
      p.splits = splits;
      const int t = cases % 4;
      const Shape deep = make_shape(t & 1, t & 2, 33, 70, 1000, 2, 1);
      std::vector<float> first, second;
      EXPECT_LE(run(p, deep, 0.5f, 1.25f, 700 + cases, 0, &first),
                ktune::kernels::gemm::error_bound(deep.k))
          << describe(p, deep.transa, deep.transb);
      run(p, deep, 0.5f, 1.25f, 700 + cases, 0, &second);
      EXPECT_EQ(first, second) << describe(p, deep.transa, deep.transb) << " not deterministic";
      // k < splits * bk: trailing splits are empty and must contribute zeros.
      const Shape shallow = make_shape(t & 2, t & 1, 64, 64, 37, 3);
      EXPECT_LE(run(p, shallow, 1.0f, 0.0f, 800 + cases),
                ktune::kernels::gemm::error_bound(shallow.k))
          << describe(p, shallow.transa, shallow.transb) << " shallow";
      ++cases;
    }
  }
}

TEST_F(TiledGemmTest, ColumnBlocksBeyondTheGridLimitAreCovered) {
  const BlockedParams p{32, 32, 8, 4, 4, 1, 0, 1};  // 64 threads
  const Shape s = make_shape(false, false, 2, 32 * 65535 + 40, 3, 1);
  EXPECT_LE(run(p, s, 1.0f, 0.0f, 900), ktune::kernels::gemm::error_bound(s.k));
}

TEST_F(TiledGemmTest, RefusalsAreReportedNotLaunched) {
  BlockedParams p = splitk_kernels().front();
  p.splits = 4;
  const LoadedKernel& k = kernel(p, false, false);
  ktune::cuda::DeviceBuffer<float> a(64 * 64, "A"), b(64 * 64, "B"), c(64 * 64, "C");
  auto launch = [&](int max_threads, const void* reduce_fn, float* ws, long long batch) {
    return gcuda::launch_tiled(k.function(), max_threads, reduce_fn, p, false, false, 64, 64, 64,
                               batch, 1.0f, a.data(), 64, 0, b.data(), 64, 0, 0.0f, c.data(), 64, 0,
                               ws, nullptr);
  };
  const auto no_workspace = launch(1024, reduce().function(), nullptr, 1);
  EXPECT_TRUE(no_workspace.refused);
  EXPECT_NE(no_workspace.message.find("workspace"), std::string::npos) << no_workspace.message;
  ktune::cuda::DeviceBuffer<float> ws(64 * 64 * 4, "workspace");
  const auto too_many_threads = launch(32, reduce().function(), ws.data(), 1);
  EXPECT_TRUE(too_many_threads.refused);
  EXPECT_NE(too_many_threads.message.find("splits=4"), std::string::npos);
  const auto grid = launch(1024, reduce().function(), ws.data(), 20000);  // z = 80000
  EXPECT_TRUE(grid.refused);
  EXPECT_NE(grid.message.find("grid"), std::string::npos) << grid.message;
  const auto empty = launch(1024, reduce().function(), ws.data(), 0);
  EXPECT_FALSE(empty.refused);
  EXPECT_EQ(empty.error, cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
