// A tuned CPU GEMM library whose selector ships vendor candidates (vendor-wins-k3.hpp, deployed
// with --vendors from the planted vendor-wins.csv): the selector routes small shapes to ktune's
// kernel and large ones to OpenBLAS or oneDNN, and the library calls that vendor: its result is
// bit for bit the vendor's own on the same inputs. Unsure shapes (outside the trained range) go
// to the safest candidate, OpenBLAS.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm/cpu/gemm_cpu_vendor_calls.hpp"
#include "ktune/gemm.hpp"

namespace {

using ktune::Trans;

std::string picked(int64_t m, int64_t n, int64_t k) {
  const auto& info = ktune::tuned_gemm_info_cpu();
  return info.configs[ktune::tuned_gemm_choice_cpu(Trans::no, Trans::no, m, n, k, 1)];
}

struct Square {
  int64_t n;
  std::vector<float> a, b;
  explicit Square(int64_t size) : n(size), a(size_t(size * size)), b(size_t(size * size)) {
    std::mt19937 rng{uint32_t(size)};
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& x : a) x = u(rng);
    for (auto& x : b) x = u(rng);
  }
  ktune::kernels::gemm::cpu::Args args(float* c) const {
    ktune::kernels::gemm::cpu::Args g;
    g.m = g.n = g.k = g.lda = g.ldb = g.ldc = n;
    g.stride_a = g.stride_b = g.stride_c = n * n;
    g.a = a.data();
    g.b = b.data();
    g.c = c;
    return g;
  }
  std::vector<float> tuned() const {
    std::vector<float> c(size_t(n * n));
    ktune::gemm(Trans::no, Trans::no, n, n, n, 1, a.data(), n, b.data(), n, 0, c.data(), n);
    return c;
  }
  // Largest |tuned - float64 reference| relative to the largest |reference|.
  double error(const std::vector<float>& c) const {
    double worst = 0, scale = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) {
        double ref = 0;
        for (int64_t p = 0; p < n; ++p) ref += double(a[size_t(p * n + i)]) * b[size_t(j * n + p)];
        worst = std::max(worst, std::abs(ref - c[size_t(j * n + i)]));
        scale = std::max(scale, std::abs(ref));
      }
    return worst / scale;
  }
};

TEST(TunedGemmVendor, ShipsTheVendorsBesideTheKernel) {
  const auto& info = ktune::tuned_gemm_info_cpu();
  std::vector<std::string> configs(info.configs, info.configs + info.num_configs);
  EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=openblas"), configs.end());
  EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=onednn"), configs.end());
  EXPECT_EQ(picked(128, 128, 128).rfind("kind=packed", 0), 0u);
  EXPECT_EQ(picked(512, 512, 512), "vendor=openblas");
  EXPECT_EQ(picked(1536, 1536, 1536), "vendor=onednn");
}

TEST(TunedGemmVendor, ServesTheVendorsCallBitForBit) {
  const Square small(128), mid(512), big(1024);
  std::vector<float> c(size_t(mid.n * mid.n));
  ktune::kernels::gemm::cpu::openblas_gemm(mid.args(c.data()));
  const auto tuned_mid = mid.tuned();
  EXPECT_EQ(std::memcmp(tuned_mid.data(), c.data(), c.size() * sizeof(float)), 0);
  EXPECT_LT(mid.error(tuned_mid), 1e-5);

  std::vector<float> d(size_t(big.n * big.n));
  ktune::kernels::gemm::cpu::OnednnMatmul(big.args(d.data())).run(big.args(d.data()));
  const auto tuned_big = big.tuned();
  EXPECT_EQ(std::memcmp(tuned_big.data(), d.data(), d.size() * sizeof(float)), 0);

  EXPECT_LT(small.error(small.tuned()), 1e-5);  // ktune's own packed kernel
}

TEST(TunedGemmVendor, UnsureShapesGetTheSafestCandidate) {
  // k = 8 lies below every trained k (64..1536): the range guard serves OpenBLAS, not the
  // small-shape kernel the tree would pick.
  EXPECT_EQ(picked(128, 128, 8), "vendor=openblas");
  EXPECT_EQ(picked(4096, 64, 64), "vendor=openblas");  // m above the range
}

}  // namespace
