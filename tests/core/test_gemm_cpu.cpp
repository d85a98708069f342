#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/common/cpu/gemm_cpu_packed_dispatch.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_dispatch.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"

namespace ktune {
namespace {

// Every one of the 640 configs, on shapes with edges in every dimension, all transposes and a
// batch, through the backend's own verify-then-time path.
TEST(GemmCpu, EveryConfigVerifiesOnTheTinyWorkload) {
  register_builtin();
  const Family& family = find_family("gemm");
  auto backend = open_backend(family, "cpu");
  const Workload tiny = load_workload(family, "tiny");
  TimingPolicy quick;
  quick.warmups = 0;
  quick.min_reps = quick.max_reps = 1;
  size_t skipped = 0, ran = 0;
  for (const auto& problem : tiny.problems) {
    auto session = backend->open(problem);
    for (const auto& config : family.space().enumerate()) {
      if (!backend->implements(config)) {  // CUDA-only kinds
        ++skipped;
        continue;
      }
      ++ran;
      const Outcome o = session->run(config, quick);
      if (family.space().kind_name(config) == "packedz" &&
          !kernels::gemm::cpu::packedz_available()) {
        EXPECT_EQ(o.status, Status::refused) << o.message;  // a build without AVX-512 says why
        EXPECT_NE(o.message.find("AVX-512"), std::string::npos) << o.message;
        continue;
      }
      ASSERT_EQ(o.status, Status::ok)
          << problem.key() << " " << family.space().to_string(config) << ": " << o.message;
      EXPECT_LE(o.rel_error, kernels::gemm::error_bound(int64_t(problem.get("k"))));
      EXPECT_GT(o.timing.median_ms, 0);
    }
  }
  // Every seed, packed and packedz config ran (or, without AVX-512, packedz was refused); the
  // tiled, split-K, warp, warpsplit, mma, wgmma, mmasplit, wgmmatf32, wgmmapp, wgmmamc, wgmmats,
  // wgmmacs and wgmmasplit kinds are CUDA's.
  const size_t problems = tiny.problems.size();
  EXPECT_EQ(ran, problems * (640 + 126 + 144));
  EXPECT_EQ(skipped, problems * (178 + 48 + 128 + 54 + 72 + 24 + 42 + 24 + 16 + 14 + 12 + 12 + 28));
}

// alpha and beta != 0 with random C, which the sweep (beta = 0) does not exercise.
TEST(GemmCpu, AlphaBetaAndTransposesMatchTheReference) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      const auto s = kernels::gemm::packed_shape(ta, tb, 23, 17, 45, 2);
      auto a = kernels::gemm::random_matrix(size_t(s.stride_a() * s.batch), 1);
      auto b = kernels::gemm::random_matrix(size_t(s.stride_b() * s.batch), 2);
      auto c = kernels::gemm::random_matrix(size_t(s.stride_c() * s.batch), 3);
      const auto ref = kernels::gemm::reference_gemm(s, a.data(), b.data(), 0.5, -1.25, c.data());
      kernels::gemm::cpu::Args g{s.transa, s.transb,     s.m,      s.n,   s.k,          s.batch,
                                 0.5f,     -1.25f,       a.data(), s.lda, s.stride_a(), b.data(),
                                 s.ldb,    s.stride_b(), c.data(), s.ldc, s.stride_c()};
      kernels::gemm::cpu::run_seed(g, kernels::gemm::Tile{4, 2, 8, 8, 8});
      EXPECT_LE(kernels::gemm::relative_error(s, c.data(), ref), kernels::gemm::error_bound(s.k))
          << ta << tb;
    }
}

// BLAS: alpha == 0 reads neither A nor B, so NaN there must not reach C = beta * C; both CPU
// kinds, every transpose, an edge tile and a batch.
TEST(GemmCpu, AlphaZeroReadsNeitherANorB) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (float beta : {0.f, -1.5f}) {
        const auto s = kernels::gemm::packed_shape(ta, tb, 13, 7, 9, 2);
        const std::vector<float> a(size_t(s.stride_a() * s.batch), nan);
        const std::vector<float> b(size_t(s.stride_b() * s.batch), nan);
        const auto c0 = kernels::gemm::random_matrix(size_t(s.stride_c() * s.batch), 5);
        auto run = [&](auto&& kernel, const char* kind) {
          std::vector<float> c = c0;
          kernels::gemm::cpu::Args g{s.transa,     s.transb,    s.m,   s.n,          s.k,
                                     s.batch,      0.f,         beta,  a.data(),     s.lda,
                                     s.stride_a(), b.data(),    s.ldb, s.stride_b(), c.data(),
                                     s.ldc,        s.stride_c()};
          kernel(g);
          for (size_t i = 0; i < c.size(); ++i)
            ASSERT_EQ(c[i], beta * c0[i]) << kind << " ta=" << ta << " tb=" << tb << " at " << i;
        };
        run(
            [](const auto& g) {
              kernels::gemm::cpu::run_seed(g, kernels::gemm::Tile{4, 2, 8, 2, 2});
            },
            "seed");
        run(
            [](const auto& g) {
              kernels::gemm::cpu::run_packed(g, {8, 4, 128, 48, 960});
            },
            "packed");
      }
}

// The tiled float64 reference sums each element over p in order, so it equals the textbook
// triple loop bit for bit: every transpose, edges of both tile dimensions, padded leading
// dimensions, a batch, alpha and beta.
TEST(GemmCpu, ReferenceEqualsTheTextbookLoop) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      kernels::gemm::Shape s;
      s.transa = ta, s.transb = tb;
      s.m = 13, s.n = 19, s.k = 29, s.batch = 2;
      s.lda = (ta ? s.k : s.m) + 2;
      s.ldb = (tb ? s.n : s.k) + 3;
      s.ldc = s.m + 1;
      const auto a = kernels::gemm::random_matrix(size_t(s.stride_a() * s.batch), 4);
      const auto b = kernels::gemm::random_matrix(size_t(s.stride_b() * s.batch), 5);
      const auto c = kernels::gemm::random_matrix(size_t(s.stride_c() * s.batch), 6);
      const auto ref = kernels::gemm::reference_gemm(s, a.data(), b.data(), 0.75, -0.5, c.data());
      for (int64_t e = 0; e < s.batch; ++e)
        for (int64_t j = 0; j < s.n; ++j)
          for (int64_t i = 0; i < s.m; ++i) {
            double sum = 0;
            for (int64_t p = 0; p < s.k; ++p) {
              const float x = a[size_t(e * s.stride_a() + (ta ? p + i * s.lda : i + p * s.lda))];
              const float y = b[size_t(e * s.stride_b() + (tb ? j + p * s.ldb : p + j * s.ldb))];
              sum += double(x) * double(y);
            }
            const size_t at = size_t(e * s.stride_c() + i + j * s.ldc);
            ASSERT_EQ(ref[at], 0.75 * sum + -0.5 * double(c[at]))
                << "ta=" << ta << " tb=" << tb << " (" << i << ", " << j << ", " << e << ")";
          }
    }
}

TEST(GemmCpu, VerificationCatchesUnwrittenOutput) {
  kernels::gemm::Shape s;
  s.m = s.n = s.k = 8;
  s.lda = s.ldb = s.ldc = 8;
  auto a = kernels::gemm::random_matrix(64, 1), b = kernels::gemm::random_matrix(64, 2);
  const auto ref = kernels::gemm::reference_gemm(s, a.data(), b.data(), 1, 0, nullptr);
  std::vector<float> c(64, std::numeric_limits<float>::quiet_NaN());
  kernels::gemm::cpu::Args g{false, false, 8,        8, 8,  1,        1.f, 0.f, a.data(),
                             8,     64,    b.data(), 8, 64, c.data(), 8,   64};
  g.m = 7;  // a kernel that skips the last row leaves NaN poison behind
  kernels::gemm::cpu::run_seed(g, kernels::gemm::Tile{1, 1, 1, 8, 8});
  EXPECT_TRUE(std::isinf(kernels::gemm::relative_error(s, c.data(), ref)));
}

TEST(GemmCpu, OpenBlasBaselineVerifies) {
  register_builtin();
  const Family& family = find_family("gemm");
  auto backend = open_backend(family, "cpu");
  auto session = backend->open(family.make_problem({1, 0, 33, 20, 47, 3}));
  const auto vendors = session->vendors();
  if (vendors.empty()) GTEST_SKIP() << "built without OpenBLAS";
  TimingPolicy quick;
  quick.min_reps = quick.max_reps = 1;
  const Outcome o = session->run_vendor("openblas", quick);
  EXPECT_EQ(o.status, Status::ok) << o.message;
}

}  // namespace
}  // namespace ktune
