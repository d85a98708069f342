// The GEMM libraries' tune-and-remember keys (kernels/gemm/deploy/remember_gemm.hpp): the cache's
// problem text is the GEMM family's own problem key (so `ktune import --remembered` rows join the
// sweep's datasets), precision and C type part of it and of the in-memory shape (a first call's
// candidates: tests/remember's Remember.CandidatesArePickEarlyThenSafeOrder).
#include <gtest/gtest.h>

#include "kernels/gemm/deploy/remember_gemm.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/problem.hpp"

namespace {

namespace kg = ktune::kernels::gemm;

TEST(RememberGemmKey, TheProblemTextIsTheFamilysKey) {
  struct Case {
    bool ta, tb;
    int64_t m, n, k, batch;
    kg::Precision q;
    bool c16;
  };
  for (const Case& c : {Case{false, false, 96, 80, 72, 1, kg::Precision::fp32, false},
                        Case{true, false, 197, 768, 3072, 8, kg::Precision::tf32, false},
                        Case{false, true, 64, 197, 197, 48, kg::Precision::bf16, true},
                        Case{true, true, 1, 2, 3, 4, kg::Precision::fp16, false}}) {
    kg::Shape s;
    s.transa = c.ta, s.transb = c.tb, s.m = c.m, s.n = c.n, s.k = c.k, s.batch = c.batch;
    s.precision = c.q, s.c16 = c.c16;
    kg::deploy::RememberKey key;
    key.transa = c.ta, key.transb = c.tb, key.m = c.m, key.n = c.n, key.k = c.k;
    key.batch = c.batch, key.precision = int(c.q), key.c16 = c.c16;
    EXPECT_EQ(key.problem(), kg::problem_of(s).key());
  }
}

TEST(RememberGemmKey, PrecisionAndCTypeSetShapesApart) {
  kg::deploy::RememberKey a;
  a.m = a.n = a.k = 64;
  auto b = a, c = a;
  b.precision = 2;
  c.precision = 2, c.c16 = true;
  auto same = [](const ktune::remember::Shape& x, const ktune::remember::Shape& y) {
    return x.count == y.count && std::equal(x.values, x.values + x.count, y.values);
  };
  EXPECT_TRUE(same(a.shape(), a.shape()));
  EXPECT_FALSE(same(a.shape(), b.shape()));
  EXPECT_FALSE(same(b.shape(), c.shape()));
}

}  // namespace
