// The CPU tuned library (examples/tuned-gemm: ktune_tuned_gemm_cpu) through the public API:
// results against the float64 reference with guard regions around C, and argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "kernels/gemm/gemm_vendor_config.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/gemm.hpp"
#include "ktune/workload.hpp"
#include "tests/deploy/tuned_gemm_case.hpp"

namespace {

using ktune::Trans;

constexpr size_t kGuard = 64;  // floats before and after C that must stay untouched
constexpr float kGuardValue = -12345.0f;

using Case = ktune::test::TunedGemmCase;

// C with guard regions; the interior starts NaN-poisoned (beta == 0) or random (beta != 0).
struct GuardedC {
  std::vector<float> storage;
  float* c() { return storage.data() + kGuard; }
  GuardedC(size_t count, bool poison, uint64_t seed) : storage(count + 2 * kGuard, kGuardValue) {
    const auto init = ktune::kernels::gemm::random_matrix(count, seed);
    for (size_t i = 0; i < count; ++i)
      storage[kGuard + i] = poison ? std::numeric_limits<float>::quiet_NaN() : init[i];
  }
  bool guards_intact() const {
    for (size_t i = 0; i < kGuard; ++i)
      if (storage[i] != kGuardValue || storage[storage.size() - 1 - i] != kGuardValue) return false;
    return true;
  }
};

void check_case(const Case& t) {
  const ktune::kernels::gemm::Shape s = ktune::test::shape_of(t);
  const auto a = ktune::kernels::gemm::random_matrix(size_t(s.stride_a() * s.batch), 11);
  const auto b = ktune::kernels::gemm::random_matrix(size_t(s.stride_b() * s.batch), 12);
  GuardedC c(size_t(s.stride_c() * s.batch), t.beta == 0.0f, 13);
  const std::vector<float> c_in(c.c(), c.c() + s.stride_c() * s.batch);
  ktune::gemm_strided_batched(t.ta ? Trans::yes : Trans::no, t.tb ? Trans::yes : Trans::no, s.m,
                              s.n, s.k, t.alpha, a.data(), s.lda, s.stride_a(), b.data(), s.ldb,
                              s.stride_b(), t.beta, c.c(), s.ldc, s.stride_c(), s.batch);
  const auto ref =
      ktune::kernels::gemm::reference_gemm(s, a.data(), b.data(), t.alpha, t.beta, c_in.data());
  const std::string what = "m=" + std::to_string(t.m) + " n=" + std::to_string(t.n) +
                           " k=" + std::to_string(t.k) + " ta=" + std::to_string(t.ta) +
                           " tb=" + std::to_string(t.tb) + " batch=" + std::to_string(t.batch);
  EXPECT_LE(ktune::kernels::gemm::relative_error(s, c.c(), ref),
            ktune::kernels::gemm::error_bound(s.k))
      << what;
  EXPECT_TRUE(c.guards_intact()) << what;
  // Padding rows between columns (ld > m) are outside the matrix: untouched too.
  if (t.pad > 0 && t.beta == 0.0f) {
    for (int64_t e = 0; e < s.batch; ++e)
      for (int64_t j = 0; j < s.n; ++j)
        for (int64_t i = s.m; i < s.ldc; ++i)
          ASSERT_TRUE(std::isnan(c.c()[e * s.stride_c() + j * s.ldc + i])) << what;
  }
}

TEST(TunedGemmCpu, ShipsTheSelectorsConfigs) {
  const auto& info = ktune::tuned_gemm_info_cpu();
  EXPECT_STREQ(info.backend, "cpu");
  ASSERT_GT(info.num_configs, 0);
  EXPECT_GE(info.baseline, 0);
  EXPECT_LT(info.baseline, info.num_configs);
  ktune::register_builtin();
  const auto& space = ktune::find_family("gemm").space();
  // Own configs parse in the family's space; a vendor candidate (the AVX-512 default header ships
  // oneDNN) must be a call the CPU library makes (the library's own decoding of the string).
  namespace kg = ktune::kernels::gemm;
  for (int i = 0; i < info.num_configs; ++i) {
    const std::string config = info.configs[i];
    const kg::VendorCall call = kg::parse_vendor_call(config);
    if (call != kg::VendorCall::none)
      EXPECT_TRUE(kg::vendor_on_cpu(call)) << config;
    else
      EXPECT_NO_THROW(space.parse(config)) << config;
  }
}

TEST(TunedGemmCpu, MatchesTheReferenceWithEdgesTransposesAndBatches) {
  const Case cases[] = {
      {false, false, 1, 1, 1, 1, 0, 1.0f, 0.0f},     {false, false, 37, 29, 53, 1, 0, 1.0f, 0.0f},
      {true, false, 64, 65, 130, 1, 3, 0.5f, 0.0f},  {false, true, 33, 17, 9, 3, 1, 1.0f, 0.5f},
      {true, true, 129, 7, 200, 2, 5, -2.0f, 1.0f},  {false, false, 256, 256, 64, 1, 0, 1.0f, 0.0f},
      {false, false, 3, 300, 1000, 1, 2, 1.0f, 0.0f}};
  for (const Case& t : cases) check_case(t);
}

TEST(TunedGemmCpu, RunsTheDnnSmallShapesCorrectly) {
  // The shapes the CPU library was tuned on: every config the selector picks for them runs.
  ktune::register_builtin();
  const auto workload = ktune::load_workload(ktune::find_family("gemm"), "dnn-small");
  for (const auto& p : workload.problems) {
    const auto s = ktune::kernels::gemm::shape_of(p);
    if (s.flops() > 2e9) continue;  // keep the test quick: the rest run in the benchmark
    check_case({s.transa, s.transb, s.m, s.n, s.k, s.batch, 0, 1.0f, 0.0f});
  }
}

TEST(TunedGemmCpu, KZeroScalesCAndEmptySizesDoNothing) {
  std::vector<float> c = {1, 2, 3, 4};
  ktune::gemm(Trans::no, Trans::no, 2, 2, 0, 1.0f, nullptr, 2, nullptr, 1, 0.5f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{0.5f, 1, 1.5f, 2}));
  ktune::gemm(Trans::no, Trans::no, 2, 2, 0, 1.0f, nullptr, 2, nullptr, 1, 0.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{0, 0, 0, 0}));
  ktune::gemm(Trans::no, Trans::no, 0, 2, 3, 1.0f, nullptr, 1, nullptr, 3, 0.0f, nullptr, 1);
}

// BLAS: alpha == 0 reads neither A nor B (NaN there must not reach C), whatever config the
// selector picks for the shape.
TEST(TunedGemmCpu, AlphaZeroReadsNeitherANorB) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t size : {5, 64, 300}) {
    const std::vector<float> a(size_t(size * size), nan), b(size_t(size * size), nan);
    const auto c0 = ktune::kernels::gemm::random_matrix(size_t(size * size), 4);
    for (float beta : {0.0f, 2.0f}) {
      std::vector<float> c = c0;
      ktune::gemm(Trans::no, Trans::yes, size, size, size, 0.0f, a.data(), size, b.data(), size,
                  beta, c.data(), size);
      for (size_t i = 0; i < c.size(); ++i)
        ASSERT_EQ(c[i], beta * c0[i]) << "size " << size << " beta " << beta << " at " << i;
    }
  }
}

// Every bad argument throws GemmError naming it, and C is left exactly as it was.
TEST(TunedGemmCpu, BadArgumentsThrowANamedErrorAndNeverWrite) {
  const auto a = ktune::kernels::gemm::random_matrix(64 * 64, 1),
             b = ktune::kernels::gemm::random_matrix(64 * 64, 2);
  GuardedC c(64 * 64, false, 3);
  const std::vector<float> before = c.storage;
  struct Bad {
    const char* name;
    std::function<void()> call;
  };
  const Trans N = Trans::no, T = Trans::yes;
  const float* pa = a.data();
  const float* pb = b.data();
  float* pc = c.c();
  const Bad bad[] = {
      {"m = -1", [&] { ktune::gemm(N, N, -1, 4, 4, 1, pa, 4, pb, 4, 0, pc, 4); }},
      {"n = -2", [&] { ktune::gemm(N, N, 4, -2, 4, 1, pa, 4, pb, 4, 0, pc, 4); }},
      {"k = -3", [&] { ktune::gemm(N, N, 4, 4, -3, 1, pa, 4, pb, 4, 0, pc, 4); }},
      {"lda = 3", [&] { ktune::gemm(N, N, 4, 4, 4, 1, pa, 3, pb, 4, 0, pc, 4); }},
      {"lda = 4", [&] { ktune::gemm(T, N, 4, 4, 8, 1, pa, 4, pb, 8, 0, pc, 4); }},
      {"ldb = 7", [&] { ktune::gemm(N, N, 4, 4, 8, 1, pa, 4, pb, 7, 0, pc, 4); }},
      {"ldb = 3", [&] { ktune::gemm(N, T, 4, 4, 4, 1, pa, 4, pb, 3, 0, pc, 4); }},
      {"ldc = 3", [&] { ktune::gemm(N, N, 4, 4, 4, 1, pa, 4, pb, 4, 0, pc, 3); }},
      {"A is a null", [&] { ktune::gemm(N, N, 4, 4, 4, 1, nullptr, 4, pb, 4, 0, pc, 4); }},
      {"B is a null", [&] { ktune::gemm(N, N, 4, 4, 4, 1, pa, 4, nullptr, 4, 0, pc, 4); }},
      {"C is a null", [&] { ktune::gemm(N, N, 4, 4, 4, 1, pa, 4, pb, 4, 0, nullptr, 4); }},
      {"transa is neither", [&] { ktune::gemm(Trans(7), N, 4, 4, 4, 1, pa, 4, pb, 4, 0, pc, 4); }},
      {"batch = -1",
       [&] {
         ktune::gemm_strided_batched(N, N, 4, 4, 4, 1, pa, 4, 16, pb, 4, 16, 0, pc, 4, 16, -1);
       }},
      {"stride_c = 15",
       [&] {
         ktune::gemm_strided_batched(N, N, 4, 4, 4, 1, pa, 4, 16, pb, 4, 16, 0, pc, 4, 15, 2);
       }},
      {"stride_a = -16",
       [&] {
         ktune::gemm_strided_batched(N, N, 4, 4, 4, 1, pa, 4, -16, pb, 4, 16, 0, pc, 4, 16, 2);
       }},
      // Leading dimensions and strides whose products overflow int64 (undefined behaviour in
      // a plain ld*(n-1)+m): refused, never wrapped into a pointer.
      {"C (ldc*(n-1)+m",
       [&] { ktune::gemm(N, N, 4, 4, 4, 1, pa, 4, pb, 4, 0, pc, int64_t(1) << 62); }},
      {"A (lda*(k-1)+m",
       [&] { ktune::gemm(N, N, 4, 4, 4, 1, pa, int64_t(1) << 62, pb, 4, 0, pc, 4); }},
      {"B (ldb*(k-1)+n",
       [&] { ktune::gemm(N, T, 4, 4, 4, 1, pa, 4, pb, int64_t(1) << 61, 0, pc, 4); }},
      {"stride_c*(batch-1)",
       [&] {
         ktune::gemm_strided_batched(N, N, 4, 4, 4, 1, pa, 4, 16, pb, 4, 16, 0, pc, 4,
                                     int64_t(1) << 62, 3);
       }},
      {"stride_a*(batch-1)",
       [&] {
         ktune::gemm_strided_batched(N, N, 4, 4, 4, 1, pa, 4, INT64_MAX / 2, pb, 4, 16, 0, pc, 4,
                                     16, 3);
       }},
      {"exceeds 2^31",
       [&] {
         ktune::gemm(N, N, int64_t(1) << 32, 1, 1, 1, pa, int64_t(1) << 32, pb, 1, 0, pc,
                     int64_t(1) << 32);
       }},
  };
  for (const Bad& t : bad) {
    try {
      t.call();
      ADD_FAILURE() << "no error for " << t.name;
    } catch (const ktune::GemmError& e) {
      EXPECT_NE(std::string(e.what()).find(t.name), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
    EXPECT_EQ(0, std::memcmp(before.data(), c.storage.data(), before.size() * sizeof(float)))
        << t.name << ": C changed";
  }
}

}  // namespace

// C aliasing A or B computed garbage silently (relative error 1e4): refused, C left unchanged;
// operands side by side in one buffer are fine.
TEST(TunedGemmCpu, CAliasingAOrBIsRefused) {
  const Trans N = Trans::no;
  std::vector<float> buf = ktune::kernels::gemm::random_matrix(3 * 16, 4);
  const std::vector<float> before = buf;
  float* p = buf.data();
  const std::pair<const char*, std::function<void()>> aliased[] = {
      {"C overlaps A", [&] { ktune::gemm(N, N, 4, 4, 4, 1, p, 4, p + 16, 4, 0, p, 4); }},
      {"C overlaps A", [&] { ktune::gemm(N, N, 4, 4, 4, 1, p + 8, 4, p + 32, 4, 0, p, 4); }},
      {"C overlaps B", [&] { ktune::gemm(N, N, 4, 4, 4, 1, p, 4, p + 16, 4, 1, p + 31, 4); }},
      {"C overlaps B",
       [&] {
         ktune::gemm_strided_batched(N, N, 4, 4, 4, 1, p, 4, 0, p + 16, 4, 0, 0, p + 16, 4, 16, 2);
       }},
  };
  for (const auto& [what, call] : aliased) {
    try {
      call();
      ADD_FAILURE() << "no error for " << what;
    } catch (const ktune::GemmError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    EXPECT_EQ(buf, before) << what << ": written";
  }
  EXPECT_NO_THROW(ktune::gemm(N, N, 4, 4, 4, 1, p, 4, p + 16, 4, 0, p + 32, 4));
}
