// The warp-tiled GEMM kernels (kernels/gemm/cuda/gemm_warp.cuh) compiled by NVRTC and launched
// through gemm_warp_launch.hpp, against the host float64 reference: every block × warp tile
// shape of the space, all transposes, edge shapes, odd leading dimensions (4-byte copies),
// misaligned pointers, batches, alpha/beta (alpha == 0 reads neither A nor B), split-K, the
// rasterization groups, refusals. The compile check of the whole space needs NVRTC only.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"
#include "kernels/gemm/cuda/gemm_warp_launch.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "tests/gpu/gemm_kernel_fixture.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

using ktune::cuda::LoadedKernel;
using ktune::cuda::NvrtcRequest;
using ktune::kernels::gemm::BlockedParams;
using ktune::kernels::gemm::Shape;
namespace gcuda = ktune::kernels::gemm::cuda;
namespace gemm = ktune::kernels::gemm;

BlockedParams warp_params(int bm, int bn, int bk, int wm, int wn, int tm, int tn, int st, int gr,
                          int splits = 1) {
  BlockedParams p;
  p.bm = bm, p.bn = bn, p.bk = bk, p.tm = tm, p.tn = tn, p.splits = splits;
  p.wm = wm, p.wn = wn, p.st = st, p.gr = gr;
  return p;
}

// The `warp` kind of the GEMM space in the space's order, read from the family (its value lists
// and constraint), not a copy of them.
std::vector<BlockedParams> warp_space() {
  const ktune::kernels::gemm::GemmFamily family;
  std::vector<BlockedParams> out;
  for (const ktune::Config& c : ktune::parse_config_list(family.space(), "kind:warp"))
    out.push_back(gemm::gemm_config_of(family.space(), c).blocked);
  return out;
}

NvrtcRequest warp_request(const BlockedParams& p, bool ta, bool tb, const std::string& arch) {
  return ktune::test::kernel_request("gemm_warp.cuh", gcuda::warp_name_expression(p, ta, tb), arch);
}

TEST(WarpGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g = gemm::parse_gemm_config(
      "kind=warp;bm=128;bn=64;bk=16;wm=64;wn=32;tm=8;tn=8;st=3;gr=8;splits=1");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::warp);
  EXPECT_EQ(gcuda::warp_name_expression(g.blocked, true, false),
            "ktune_gemm_warp<128,64,16,64,32,8,8,3,8,1,0>");
  EXPECT_EQ(g.blocked.threads(), 128);
  // [BK][BM + 4] for A and [BK][BN + 4] for B whatever the transposes, 3 stages.
  EXPECT_EQ(gcuda::warp_smem_bytes(g.blocked), 4 * 3 * 16 * (132 + 68));
  // Params of other kinds are refused, and warp params are required.
  EXPECT_FALSE(gemm::parse_gemm_config("kind=warp;bm=128;bn=64;bk=16;wm=64;wn=32;tm=8;tn=8;st=3;"
                                       "gr=8;splits=1;vec=4")
                   .valid);
  EXPECT_FALSE(
      gemm::parse_gemm_config("kind=warp;bm=128;bn=64;bk=16;wm=64;wn=32;tm=8;tn=8;st=3;splits=1")
          .valid);
  EXPECT_EQ(warp_space().size(), 128u);
  EXPECT_TRUE(gcuda::warp_supported_params(warp_space().front()));
  EXPECT_FALSE(gcuda::warp_supported_params(warp_params(128, 128, 8, 64, 64, 8, 8, 3, 1)));
}

// The warpsplit kind runs the warp kernel's instantiations of the warp kind (splits is a launch
// argument, not a template one), so the compile check below covers it too.
TEST(WarpGemmHost, WarpsplitConfigsAreWarpKernelsOverSeveralSlices) {
  ktune::kernels::gemm::GemmFamily family;
  const auto configs = ktune::parse_config_list(family.space(), "kind:warpsplit");
  ASSERT_EQ(configs.size(), 54u);
  std::set<std::string> warp_names;
  for (const BlockedParams& p : warp_space())
    warp_names.insert(gcuda::warp_name_expression(p, false, false));
  for (const ktune::Config& c : configs) {
    const gemm::GemmConfig g = gemm::gemm_config_of(family.space(), c);
    EXPECT_EQ(g.kind, gemm::Kind::warpsplit);
    EXPECT_TRUE(gemm::runs_warp_kernel(g.kind));
    EXPECT_GE(g.blocked.splits, 2);
    EXPECT_TRUE(gcuda::warp_supported_params(g.blocked));
    EXPECT_TRUE(warp_names.count(gcuda::warp_name_expression(g.blocked, false, false)))
        << family.space().to_string(c);
  }
  EXPECT_FALSE(gemm::parse_gemm_config(
                   "kind=warpsplit;bm=64;bn=64;bk=16;wm=32;wn=32;tm=4;tn=8;st=3;gr=1;splits=1")
                   .valid);
  EXPECT_TRUE(gemm::parse_gemm_config(
                  "kind=warpsplit;bm=64;bn=64;bk=16;wm=32;wn=32;tm=4;tn=8;st=3;gr=1;splits=2")
                  .valid);
}

// NVRTC only: every config of the kind compiles for sm_90 (the transpose pair cycles over the
// configs, so each pair is compiled for a quarter of the space).
TEST(WarpGemmNvrtc, EveryConfigCompilesForSm90) {
  ktune::test::ScopedCacheDir cache("warp-all");
  const auto configs = warp_space();
  std::vector<NvrtcRequest> requests;
  for (size_t i = 0; i < configs.size(); ++i)
    requests.push_back(warp_request(configs[i], i & 1, (i >> 1) & 1, "sm_90"));
  ktune::test::expect_all_compile(requests, [](size_t) { return "ktune_gemm_warp"; });
}

class WarpGemmTest : public ktune::test::GemmKernelTest {
 protected:
  void SetUp() override {
    GemmKernelTest::SetUp();
    if (IsSkipped()) return;
    ktune::cuda::check(
        cudaDeviceGetAttribute(&max_shared_, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
        "cudaDeviceGetAttribute");
  }
  NvrtcRequest request(const BlockedParams& p, bool ta, bool tb,
                       const std::string& arch) const override {
    return warp_request(p, ta, tb, arch);
  }
  gcuda::TiledLaunch launch(const LoadedKernel& k, const BlockedParams& p, const Shape& s,
                            float alpha, const float* a, const float* b, float beta, float* c,
                            float* workspace) override {
    return gcuda::launch_warp(k.function(), k.attributes().maxThreadsPerBlock, max_shared_,
                              p.splits > 1 ? reduce().function() : nullptr, p, s.transa, s.transb,
                              s.m, s.n, s.k, s.batch, alpha, a, s.lda, s.stride_a(), b, s.ldb,
                              s.stride_b(), beta, c, s.ldc, s.stride_c(), workspace, nullptr);
  }

  int max_shared_ = 0;
};

using ktune::test::make_shape;

// Every (bm, bn, wm, wn, tm, tn) of the space, with bk, st and gr rotating over the sample.
std::vector<BlockedParams> tile_shape_sample() {
  return ktune::test::one_per_key(
      warp_space(),
      [](const BlockedParams& p) { return std::tuple{p.bm, p.bn, p.wm, p.wn, p.tm, p.tn}; }, 3, 3);
}

TEST_F(WarpGemmTest, EveryTileShapeAndTransposeMatchesTheReference) {
  const auto sample = tile_shape_sample();
  ASSERT_EQ(sample.size(), 16u);
  // Odd leading dimensions: 4-byte copies and ragged tiles; aligned ones: 16-byte copies and
  // several K tiles in flight.
  check_odd_and_aligned(sample, {300, 141, 45}, {256, 192, 160});
}

TEST_F(WarpGemmTest, EdgeShapesPaddedLeadingDimensionsAndBatches) {
  const BlockedParams configs[] = {warp_params(128, 128, 8, 32, 64, 8, 8, 3, 8),
                                   warp_params(64, 64, 16, 32, 32, 4, 8, 4, 1),
                                   warp_params(256, 64, 16, 64, 32, 8, 8, 4, 8)};
  check_edge_shapes({std::begin(configs), std::end(configs)}, {1, 3, 65, 130}, {1, 5, 131});
}

TEST_F(WarpGemmTest, MisalignedPointersAndOddLeadingDimensionsUseFourByteCopies) {
  const BlockedParams p = warp_params(128, 64, 16, 64, 32, 8, 8, 3, 8);
  for (int t = 0; t < 4; ++t) {
    const Shape odd_ld = make_shape(t & 1, t & 2, 200, 90, 77, 2, 1);  // lds % 4 != 0
    EXPECT_LE(run(p, odd_ld, 1.0f, 0.0f, 400 + t), gemm::error_bound(odd_ld.k))
        << describe(p, odd_ld.transa, odd_ld.transb);
    const Shape aligned = make_shape(t & 1, t & 2, 128, 64, 64, 2);
    EXPECT_LE(run(p, aligned, 1.0f, 0.5f, 500 + t, /*a_offset=*/1), gemm::error_bound(aligned.k))
        << describe(p, aligned.transa, aligned.transb) << " misaligned A";
  }
}

// 16-byte aligned launches take the register-staged path for K-contiguous operands: on full K
// tiles (the lean loop when the whole block is interior and K % BK == 0, the general one with a
// 4-byte tail tile otherwise), across ragged blocks, batches and split-K slices.
TEST_F(WarpGemmTest, AlignedLaunchesStageKContiguousOperandsThroughRegisters) {
  const BlockedParams configs[] = {warp_params(128, 128, 16, 64, 32, 8, 8, 4, 8),
                                   warp_params(64, 128, 8, 32, 32, 4, 8, 3, 1),
                                   warp_params(256, 64, 16, 32, 64, 8, 8, 3, 8)};
  prepare({std::begin(configs), std::end(configs)});
  int cases = 0;
  for (const BlockedParams& base : configs) {
    for (int t = 0; t < 4; ++t) {
      // k = 192: whole K tiles; k = 200: a partial last tile for BK = 16. Every leading dimension
      // (size + 4) and batch stride is a multiple of 4 floats.
      for (int64_t k : {int64_t(192), int64_t(200)}) {
        const Shape interior = make_shape(t & 1, t & 2, 512, 256, k, 2, 4);
        EXPECT_LE(run(base, interior, 1.0f, 0.0f, 1000 + cases), gemm::error_bound(k))
            << describe(base, interior.transa, interior.transb) << " interior k=" << k;
        const Shape ragged = make_shape(t & 1, t & 2, 300, 140, k, 3, 4);
        EXPECT_LE(run(base, ragged, 0.75f, 1.5f, 1100 + cases), gemm::error_bound(k))
            << describe(base, ragged.transa, ragged.transb) << " ragged k=" << k;
        ++cases;
      }
      BlockedParams split = base;
      split.splits = 3;
      const Shape deep = make_shape(t & 1, t & 2, 256, 128, 1000, 2, 4);
      EXPECT_LE(run(split, deep, 1.0f, 0.5f, 1200 + cases), gemm::error_bound(deep.k))
          << describe(split, deep.transa, deep.transb) << " split-K";
    }
  }
  EXPECT_EQ(cases, 3 * 4 * 2);
}

TEST_F(WarpGemmTest, AlphaZeroReadsNeitherANorBAndKZeroScalesC) {
  const BlockedParams p = warp_params(64, 128, 8, 32, 32, 8, 4, 3, 8);
  for (int t = 0; t < 4; ++t) {
    const Shape s = make_shape(t & 1, t & 2, 70, 50, 33, 2);
    std::vector<float> out;
    // A and B hold NaN: C = beta * C exactly, and 0 (not NaN) when beta == 0.
    EXPECT_LE(run(p, s, 0.0f, 2.0f, 600 + t, 0, nullptr, /*nan_inputs=*/true), gemm::error_bound(1))
        << describe(p, s.transa, s.transb);
    EXPECT_EQ(run(p, s, 0.0f, 0.0f, 610 + t, 0, &out, true), 0.0)
        << describe(p, s.transa, s.transb);
    EXPECT_EQ(out[0], 0.0f);
    const Shape empty_k = make_shape(t & 1, t & 2, 33, 20, 0, 2);
    EXPECT_LE(run(p, empty_k, 1.0f, 2.0f, 620 + t), gemm::error_bound(1));
  }
}

TEST_F(WarpGemmTest, SplitKIsCorrectAndDeterministic) {
  BlockedParams p = warp_params(64, 64, 16, 32, 32, 4, 8, 3, 1);
  prepare({p});
  int cases = 0;
  for (int splits : {2, 4, 16}) {
    p.splits = splits;
    const int t = cases % 4;
    const Shape deep = make_shape(t & 1, t & 2, 100, 70, 1000, 2, 1);
    std::vector<float> first, second;
    EXPECT_LE(run(p, deep, 0.5f, 1.25f, 700 + cases, 0, &first), gemm::error_bound(deep.k))
        << describe(p, deep.transa, deep.transb);
    run(p, deep, 0.5f, 1.25f, 700 + cases, 0, &second);
    EXPECT_EQ(first, second) << describe(p, deep.transa, deep.transb) << " not deterministic";
    const Shape shallow = make_shape(t & 2, t & 1, 64, 64, 37, 3);  // trailing splits empty
    EXPECT_LE(run(p, shallow, 1.0f, 0.0f, 800 + cases), gemm::error_bound(shallow.k))
        << describe(p, shallow.transa, shallow.transb) << " shallow";
    ++cases;
  }
}

TEST_F(WarpGemmTest, RasterizationCoversRaggedGroupsOfBlockRows) {
  // 11 block rows (not a multiple of the group of 8) x 5 block columns.
  for (int gr : {1, 8}) {
    const BlockedParams p = warp_params(64, 64, 8, 32, 32, 8, 4, 3, gr);
    const Shape s = make_shape(false, true, 64 * 10 + 7, 64 * 4 + 9, 24, 1);
    EXPECT_LE(run(p, s, 1.0f, 0.0f, 900 + gr), gemm::error_bound(s.k)) << describe(p, false, true);
  }
}

TEST_F(WarpGemmTest, RefusalsAreReportedNotLaunched) {
  BlockedParams p = warp_params(64, 64, 16, 32, 32, 4, 8, 3, 1, 4);
  const LoadedKernel& k = kernel(p, false, false);
  ktune::cuda::DeviceBuffer<float> a(64 * 64, "A"), b(64 * 64, "B"), c(64 * 64, "C");
  auto launch = [&](int max_threads, int max_shared, float* ws, long long batch) {
    return gcuda::launch_warp(k.function(), max_threads, max_shared, reduce().function(), p, false,
                              false, 64, 64, 64, batch, 1.0f, a.data(), 64, 0, b.data(), 64, 0,
                              0.0f, c.data(), 64, 0, ws, nullptr);
  };
  const auto no_workspace = launch(1024, max_shared_, nullptr, 1);
  EXPECT_TRUE(no_workspace.refused);
  EXPECT_NE(no_workspace.message.find("workspace"), std::string::npos) << no_workspace.message;
  ktune::cuda::DeviceBuffer<float> ws(64 * 64 * 4, "workspace");
  const auto threads = launch(64, max_shared_, ws.data(), 1);
  EXPECT_TRUE(threads.refused);
  EXPECT_NE(threads.message.find("kind=warpsplit"), std::string::npos) << threads.message;
  const auto shared = launch(1024, 1024, ws.data(), 1);
  EXPECT_TRUE(shared.refused);
  EXPECT_NE(shared.message.find("shared memory"), std::string::npos) << shared.message;
  const auto grid = launch(1024, max_shared_, ws.data(), 20000);  // z = 80000
  EXPECT_TRUE(grid.refused);
  EXPECT_NE(grid.message.find("grid"), std::string::npos) << grid.message;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
