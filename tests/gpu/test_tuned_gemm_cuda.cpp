// The CUDA tuned library (examples/tuned-gemm: ktune_tuned_gemm_cuda) through the public API:
// argument errors (checked before any CUDA call, so they run without a GPU) and results
// against the float64 host reference on the GPU, with guard regions around C.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/gemm.hpp"
#include "tests/deploy/tuned_gemm_case.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

using ktune::Trans;

TEST(TunedGemmCuda, BadArgumentsThrowBeforeTouchingTheDevice) {
  float* fake = reinterpret_cast<float*>(uintptr_t(256));  // never dereferenced
  const Trans N = Trans::no;
  auto message = [](auto&& call) { return ktune::test::thrown_message<ktune::GemmError>(call); };
  EXPECT_NE(message([&] {
              ktune::gemm(N, N, -1, 4, 4, 1, fake, 4, fake, 4, 0, fake, 4, nullptr);
            }).find("m = -1"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::gemm(N, N, 8, 4, 4, 1, fake, 7, fake, 4, 0, fake, 8, nullptr);
            }).find("lda = 7"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::gemm(N, N, 4, 4, 4, 1, fake, 4, fake, 4, 0, nullptr, 4, nullptr);
            }).find("C is a null"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::gemm_strided_batched(N, N, 4, 4, 4, 1, fake, 4, 16, fake, 4, 16, 0, fake, 4, 8,
                                          3, nullptr);
            }).find("stride_c = 8"),
            std::string::npos);
  // ldc * (n - 1) + m overflows int64: refused, never wrapped into a pointer.
  EXPECT_NE(message([&] {
              ktune::gemm(N, N, 4, 4, 4, 1, fake, 4, fake, 4, 0, fake, int64_t(1) << 62, nullptr);
            }).find("C (ldc*(n-1)+m"),
            std::string::npos);
}

// BLAS: alpha == 0 reads neither A nor B, so their NaN must not reach C = beta * C, whatever
// config (seed, tiled, split-K) the selector picks for the shape.
TEST(TunedGemmCuda, AlphaZeroNeverReadsNaNPoisonedAOrB) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  struct Shape {
    int64_t m, n, k;
  };
  const Shape shapes[] = {
      {1, 1, 1}, {64, 12544, 147}, {37, 29, 530}, {512, 49, 4608}, {64, 27, 50176}};
  for (const Shape& t : shapes) {
    for (float beta : {0.0f, 0.5f}) {
      const size_t na = size_t(t.m * t.k), nb = size_t(t.k * t.n), nc = size_t(t.m * t.n);
      const std::vector<float> nan_a(na, std::nanf("")), nan_b(nb, std::nanf(""));
      const auto c0 = ktune::kernels::gemm::random_matrix(nc, 3);
      float *da = nullptr, *db = nullptr, *dc = nullptr;
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), na * 4), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), nb * 4), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), nc * 4), cudaSuccess);
      cudaMemcpy(da, nan_a.data(), na * 4, cudaMemcpyHostToDevice);
      cudaMemcpy(db, nan_b.data(), nb * 4, cudaMemcpyHostToDevice);
      cudaMemcpy(dc, c0.data(), nc * 4, cudaMemcpyHostToDevice);
      ktune::gemm(Trans::no, Trans::no, t.m, t.n, t.k, 0.0f, da, t.m, db, t.k, beta, dc, t.m,
                  nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<float> c(nc);
      cudaMemcpy(c.data(), dc, nc * 4, cudaMemcpyDeviceToHost);
      cudaFree(da);
      cudaFree(db);
      cudaFree(dc);
      for (size_t i = 0; i < nc; ++i)
        ASSERT_EQ(c[i], beta * c0[i])
            << "m=" << t.m << " n=" << t.n << " k=" << t.k << " beta=" << beta << " at " << i;
    }
  }
}

TEST(TunedGemmCuda, MatchesTheReferenceWithGuardsAroundC) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const ktune::test::TunedGemmCase cases[] = {
      {false, false, 1, 1, 1, 1, 0, 1, 0},       {false, false, 64, 12544, 147, 1, 0, 1, 0},
      {true, false, 37, 29, 530, 2, 3, 0.5f, 0}, {false, true, 129, 65, 33, 3, 1, 1, -1.0f},
      {true, true, 512, 49, 4608, 1, 0, 1, 0},   {false, false, 64, 27, 50176, 1, 0, 1, 0},
      {false, false, 2, 3, 0, 1, 0, 1, 0.5f}};
  constexpr size_t kGuard = 256;
  for (const ktune::test::TunedGemmCase& t : cases) {
    const ktune::kernels::gemm::Shape s = ktune::test::shape_of(t);
    const size_t na = size_t(s.stride_a() * s.batch), nb = size_t(s.stride_b() * s.batch);
    const size_t nc = size_t(s.stride_c() * s.batch);
    const auto a = ktune::kernels::gemm::random_matrix(std::max<size_t>(na, 1), 1);
    const auto b = ktune::kernels::gemm::random_matrix(std::max<size_t>(nb, 1), 2);
    std::vector<float> c(nc + 2 * kGuard, -777.0f);
    const auto c_init = ktune::kernels::gemm::random_matrix(nc, 3);
    for (size_t i = 0; i < nc; ++i)
      c[kGuard + i] = t.beta == 0 ? std::numeric_limits<float>::quiet_NaN() : c_init[i];
    const std::vector<float> c_in(c.begin() + kGuard, c.begin() + long(kGuard + nc));
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), std::max<size_t>(na, 1) * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), std::max<size_t>(nb, 1) * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * 4), cudaSuccess);
    cudaMemcpy(da, a.data(), na * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), nb * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
    ktune::gemm_strided_batched(t.ta ? Trans::yes : Trans::no, t.tb ? Trans::yes : Trans::no, s.m,
                                s.n, s.k, t.alpha, da, s.lda, s.stride_a(), db, s.ldb, s.stride_b(),
                                t.beta, dc + kGuard, s.ldc, s.stride_c(), s.batch, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    const auto ref =
        ktune::kernels::gemm::reference_gemm(s, a.data(), b.data(), t.alpha, t.beta, c_in.data());
    const std::string what =
        "m=" + std::to_string(t.m) + " n=" + std::to_string(t.n) + " k=" + std::to_string(t.k);
    EXPECT_LE(ktune::kernels::gemm::relative_error(s, c.data() + kGuard, ref),
              ktune::kernels::gemm::error_bound(s.k))
        << what;
    for (size_t i = 0; i < kGuard; ++i) {
      ASSERT_EQ(c[i], -777.0f) << what << ": write before C";
      ASSERT_EQ(c[c.size() - 1 - i], -777.0f) << what << ": write after C";
    }
  }
}

}  // namespace
