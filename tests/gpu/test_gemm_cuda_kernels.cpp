// Direct launches of the NVRTC-compiled seed kernel against the host float64 reference: every
// tile of the space, several work-groups, odd shapes, batches, all transposes, beta != 0.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

using ktune::kernels::gemm::Shape;
using ktune::kernels::gemm::Tile;
namespace gcuda = ktune::kernels::gemm::cuda;

Shape make_shape(bool transa, bool transb, int64_t m, int64_t n, int64_t k, int64_t batch,
                 int64_t pad = 0) {
  Shape s;
  s.transa = transa, s.transb = transb;
  s.m = m, s.n = n, s.k = k, s.batch = batch;
  s.lda = (transa ? k : m) + pad;
  s.ldb = (transb ? n : k) + pad;
  s.ldc = m + pad;
  return s;
}

std::vector<Tile> all_tiles() {
  std::vector<Tile> tiles;
  for (int r : {1, 2, 4, 8})
    for (int a : {1, 2, 4, 8})
      for (int c : {1, 2, 4, 8}) {
        Tile t;
        t.r = r, t.a = a, t.c = c;
        tiles.push_back(t);
      }
  return tiles;
}

// Runs one launch of C = alpha*op(A)*op(B) + beta*C0 and returns the relative error against the
// host float64 reference (C0 NaN-poisoned when beta == 0: it must not be read; A and B
// uploaded NaN-poisoned when poison_ab, for alpha == 0, where they must not be read either).
double run_case(gcuda::SeedKernels& kernels, const Tile& tile, const Shape& s, float alpha,
                float beta, uint64_t seed, bool poison_ab = false) {
  const auto host_a = ktune::kernels::gemm::random_matrix(size_t(s.stride_a() * s.batch), seed);
  const auto host_b = ktune::kernels::gemm::random_matrix(size_t(s.stride_b() * s.batch), seed + 1);
  auto host_c = ktune::kernels::gemm::random_matrix(size_t(s.stride_c() * s.batch), seed + 2);
  if (beta == 0) host_c.assign(host_c.size(), std::nanf(""));
  const auto ref =
      ktune::kernels::gemm::reference_gemm(s, host_a.data(), host_b.data(), alpha, beta, host_c.data());
  const float nan = std::nanf("");
  auto a = ktune::test::upload(poison_ab ? std::vector<float>(host_a.size(), nan) : host_a, "A");
  auto b = ktune::test::upload(poison_ab ? std::vector<float>(host_b.size(), nan) : host_b, "B");
  auto c = ktune::test::upload(host_c, "C");
  const auto result = gcuda::launch_seed(kernels.get(tile), tile, s, alpha, a.data(), b.data(),
                                         beta, c.data(), nullptr);
  EXPECT_EQ(result.status, ktune::Status::ok) << result.message;
  ktune::cuda::check(cudaDeviceSynchronize(),
                     "cudaDeviceSynchronize(" + ktune::kernels::gemm::tile_config_string(tile) + ")");
  const auto out = ktune::test::download(c);
  return ktune::kernels::gemm::relative_error(s, out.data(), ref);
}

class SeedKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KTUNE_REQUIRE_GPU();
    ktune::cuda::use_device(0);
    kernels_ = std::make_unique<gcuda::SeedKernels>(ktune::cuda::device_arch(0));
  }
  std::unique_ptr<gcuda::SeedKernels> kernels_;
};

TEST_F(SeedKernelTest, AllTilesAndTransposesOnOddShapesWithBetaMatchTheReference) {
  const auto tiles = all_tiles();
  kernels_->prepare(tiles);
  const std::pair<int, int> work_groups[] = {{8, 8}, {1, 64}, {128, 1}, {16, 8}};
  int cases = 0;
  for (const Tile& base : tiles) {
    for (const auto& [x, y] : work_groups) {
      for (int trans = 0; trans < 4; ++trans) {
        Tile tile = base;
        tile.wg_x = x, tile.wg_y = y;
        const Shape s = make_shape(trans & 1, trans & 2, 37, 29, 53, 3);
        const double error = run_case(*kernels_, tile, s, 1.5f, -0.75f, 1000 + cases);
        EXPECT_LE(error, ktune::kernels::gemm::error_bound(s.k))
            << ktune::kernels::gemm::tile_config_string(tile) << " transa=" << s.transa
            << " transb=" << s.transb;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 64 * 4 * 4);
}

TEST_F(SeedKernelTest, BetaZeroNeverReadsNaNPoisonedOutput) {
  for (const Tile& base : all_tiles()) {
    Tile tile = base;
    tile.wg_x = 16, tile.wg_y = 16;
    const Shape s = make_shape(false, true, 41, 67, 19, 2);
    EXPECT_LE(run_case(*kernels_, tile, s, 1.0f, 0.0f, 7), ktune::kernels::gemm::error_bound(s.k))
        << ktune::kernels::gemm::tile_config_string(tile);
  }
}

// BLAS: alpha == 0 reads neither A nor B, so their NaN must not reach C = beta * C.
TEST_F(SeedKernelTest, AlphaZeroNeverReadsNaNPoisonedAOrB) {
  for (const Tile& base : all_tiles()) {
    Tile tile = base;
    tile.wg_x = 8, tile.wg_y = 4;
    for (float beta : {0.0f, -0.5f}) {
      const Shape s = make_shape(true, false, 29, 35, 21, 2);
      EXPECT_EQ(run_case(*kernels_, tile, s, 0.0f, beta, 9, /*poison_ab=*/true), 0.0)
          << ktune::kernels::gemm::tile_config_string(tile) << " beta=" << beta;
    }
  }
}

TEST_F(SeedKernelTest, PaddedLeadingDimensionsAndTinyOrLargeEdges) {
  Tile tile;
  tile.r = 4, tile.a = 8, tile.c = 2, tile.wg_x = 32, tile.wg_y = 8;
  const Shape shapes[] = {
      make_shape(false, false, 1, 1, 1, 1), make_shape(true, false, 3, 130, 7, 1, 5),
      make_shape(false, true, 129, 3, 9, 4, 3), make_shape(true, true, 200, 300, 261, 1, 1)};
  for (const Shape& s : shapes) {
    EXPECT_LE(run_case(*kernels_, tile, s, 0.5f, 2.0f, 11), ktune::kernels::gemm::error_bound(s.k))
        << "m=" << s.m << " n=" << s.n << " k=" << s.k << " lda=" << s.lda;
  }
}

TEST_F(SeedKernelTest, ManyColumnBlocksBeyondTheGridLimitAreCovered) {
  // n / (wg_y * c) > 65535: the kernel strides over column blocks beyond gridDim.y.
  Tile tile;
  tile.r = 1, tile.a = 1, tile.c = 1, tile.wg_x = 64, tile.wg_y = 1;
  const Shape s = make_shape(false, false, 2, 70001, 3, 1);
  EXPECT_LE(run_case(*kernels_, tile, s, 1.0f, 0.0f, 5), ktune::kernels::gemm::error_bound(s.k));
}

TEST_F(SeedKernelTest, TooLargeWorkGroupIsRefusedNotCrashed) {
  Tile tile;
  tile.r = 8, tile.a = 8, tile.c = 8, tile.wg_x = 32, tile.wg_y = 32;  // 1024 threads, ~200 regs
  const auto& kernel = kernels_->get(tile);
  const Shape s = make_shape(false, false, 64, 64, 64, 1);
  ktune::cuda::DeviceBuffer<float> a(64 * 64, "A"), b(64 * 64, "B"), c(64 * 64, "C");
  const auto result =
      gcuda::launch_seed(kernel, tile, s, 1.0f, a.data(), b.data(), 0.0f, c.data(), nullptr);
  EXPECT_EQ(result.status, ktune::Status::refused) << result.message;
  EXPECT_NE(result.message.find("r=8;a=8;c=8"), std::string::npos) << result.message;
  tile.wg_x = 2048, tile.wg_y = 1;  // over every device's block limit
  tile.r = tile.a = tile.c = 1;
  const auto small = gcuda::launch_seed(kernels_->get(tile), tile, s, 1.0f, a.data(), b.data(),
                                        0.0f, c.data(), nullptr);
  EXPECT_EQ(small.status, ktune::Status::refused) << small.message;
  // The device is still usable afterwards.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(SeedKernelTest, SecondSetOfKernelsComesFromTheDiskCache) {
  ktune::test::ScopedCacheDir cache("seed-kernels");
  const auto all = all_tiles();
  const std::vector<Tile> tiles(all.begin(), all.begin() + 8);
  gcuda::SeedKernels first(ktune::cuda::device_arch(0));
  first.prepare(tiles);
  EXPECT_EQ(first.cache_hits(), 0);
  gcuda::SeedKernels second(ktune::cuda::device_arch(0));
  second.prepare(tiles);
  EXPECT_EQ(second.cache_hits(), 8);
}

TEST_F(SeedKernelTest, BrokenSourceIsAFailureOfThatTileNotACrash) {
  gcuda::SeedKernels broken(ktune::cuda::device_arch(0), "this is not CUDA");
  Tile tile;
  broken.prepare({tile});
  EXPECT_THROW(broken.get(tile), ktune::cuda::CompileError);
}

}  // namespace
