// A tuned CUDA GEMM library whose selector ships the vendor candidate vendor=cublas
// (vendor-wins-gpu-k2.hpp, deployed with --vendors --range-guard from the planted
// vendor-wins-gpu.csv): large and unsure shapes go to cuBLAS, whose result the library's is bit
// for bit. Skips without a GPU.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ktune/gemm.hpp"

namespace {

using ktune::Trans;

std::string picked(int64_t m, int64_t n, int64_t k) {
  const auto& info = ktune::tuned_gemm_info_cuda();
  return info.configs[ktune::tuned_gemm_choice_cuda(Trans::no, Trans::no, m, n, k, 1)];
}

bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(TunedGemmVendorCuda, ShipsAndPicksCublas) {
  const auto& info = ktune::tuned_gemm_info_cuda();
  std::vector<std::string> configs(info.configs, info.configs + info.num_configs);
  EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=cublas"), configs.end());
  EXPECT_EQ(picked(128, 128, 128).rfind("kind=tiled", 0), 0u);
  EXPECT_EQ(picked(1024, 1024, 1024), "vendor=cublas");
  EXPECT_EQ(picked(128, 128, 8), "vendor=cublas");  // k below the trained range: unsure
}

TEST(TunedGemmVendorCuda, ServesCublasBitForBit) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU";
  const int n = 1024;
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : a) x = u(rng);
  for (auto& x : b) x = u(rng);
  const size_t bytes = a.size() * sizeof(float);
  void *pa = nullptr, *pb = nullptr, *pc = nullptr, *pv = nullptr;
  ASSERT_EQ(cudaMalloc(&pa, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&pb, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&pc, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&pv, bytes), cudaSuccess);
  float *da = static_cast<float*>(pa), *db = static_cast<float*>(pb), *dc = static_cast<float*>(pc),
        *dv = static_cast<float*>(pv);
  cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice);
  ktune::gemm(Trans::no, Trans::no, n, n, n, 1, da, n, db, n, 0, dc, n, nullptr);
  cublasHandle_t h = nullptr;
  ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  const float one = 1, zero = 0;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dv, n);
  std::vector<float> c(a.size()), v(a.size());
  cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(v.data(), dv, bytes, cudaMemcpyDeviceToHost);
  EXPECT_EQ(std::memcmp(c.data(), v.data(), bytes), 0);
  cublasDestroy(h);
  for (float* p : {da, db, dc, dv}) cudaFree(p);
}

}  // namespace
