// The CPU vendor baselines (OpenBLAS, oneDNN): each checked against the float64 reference on
// odd transposed batched shapes, with padded leading dimensions and alpha/beta, and through the
// backend's verify-then-time path that the sweep uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/provenance.hpp"
#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using kernels::gemm::Shape;
namespace cpu = kernels::gemm::cpu;

bool has_vendor(const std::string& vendor) {
  const auto names = cpu::vendor_names();
  return std::find(names.begin(), names.end(), vendor) != names.end();
}

// C = alpha*op(A)*op(B) + beta*C of one vendor against the float64 reference; C is NaN-poisoned
// when beta == 0, so an element the vendor leaves unwritten fails.
double vendor_error(const std::string& vendor, bool ta, bool tb, float alpha, float beta) {
  Shape s;
  s.transa = ta, s.transb = tb;
  s.m = 33, s.n = 20, s.k = 47, s.batch = 3;
  s.lda = (ta ? s.k : s.m) + 3;  // padded leading dimensions
  s.ldb = (tb ? s.n : s.k) + 1;
  s.ldc = s.m + 2;
  const auto a = kernels::gemm::random_matrix(size_t(s.stride_a() * s.batch), 1);
  const auto b = kernels::gemm::random_matrix(size_t(s.stride_b() * s.batch), 2);
  auto c = beta == 0 ? std::vector<float>(size_t(s.stride_c() * s.batch),
                                          std::numeric_limits<float>::quiet_NaN())
                     : kernels::gemm::random_matrix(size_t(s.stride_c() * s.batch), 3);
  const auto ref = kernels::gemm::reference_gemm(s, a.data(), b.data(), alpha, beta, c.data());
  cpu::Args g{ta,    tb,           s.m,      s.n,   s.k,          s.batch,
              alpha, beta,         a.data(), s.lda, s.stride_a(), b.data(),
              s.ldb, s.stride_b(), c.data(), s.ldc, s.stride_c()};
  cpu::make_vendor_gemm(vendor, s, alpha, beta)->run(g);
  return kernels::gemm::relative_error(s, c.data(), ref);
}

TEST(GemmCpuVendors, EveryVendorMatchesTheReferenceOnEveryTranspose) {
  const auto vendors = cpu::vendor_names();
  if (vendors.empty()) GTEST_SKIP() << "built without OpenBLAS and oneDNN";
  for (const auto& vendor : vendors)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        EXPECT_LE(vendor_error(vendor, ta, tb, 1, 0), kernels::gemm::error_bound(47))
            << vendor << " ta=" << ta << " tb=" << tb;
        EXPECT_LE(vendor_error(vendor, ta, tb, 0.5f, -1.5f), kernels::gemm::error_bound(47))
            << vendor << " alpha/beta ta=" << ta << " tb=" << tb;
      }
}

TEST(GemmCpuVendors, OnednnBaselineVerifiesThroughTheBackend) {
  if (!has_vendor("onednn")) GTEST_SKIP() << "built without oneDNN";
  register_builtin();
  const Family& family = find_family("gemm");
  auto backend = open_backend(family, "cpu");
  TimingPolicy quick;
  quick.min_reps = quick.max_reps = 1;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      auto session = backend->open(family.make_problem({double(ta), double(tb), 33, 20, 47, 3}));
      const auto names = session->vendors();
      ASSERT_NE(std::find(names.begin(), names.end(), "onednn"), names.end());
      const Outcome o = session->run_vendor("onednn", quick);
      EXPECT_EQ(o.status, Status::ok) << o.message;
      EXPECT_LE(o.rel_error, kernels::gemm::error_bound(47));
      EXPECT_GT(o.timing.median_ms, 0);
    }
}

TEST(GemmCpuVendors, DescriptionsNameTheDispatchedKernel) {
  if (has_vendor("openblas")) {
    const std::string d = cpu::vendor_description("openblas");
    EXPECT_NE(d.find("core="), std::string::npos) << d;
    EXPECT_EQ(d.find("core= "), std::string::npos) << d;  // the core name is not empty
  }
  if (has_vendor("onednn")) {
    const std::string d = cpu::vendor_description("onednn");
    EXPECT_EQ(d.rfind("oneDNN ", 0), 0u) << d;
    EXPECT_NE(d.find("isa="), std::string::npos) << d;
  }
  EXPECT_THROW(cpu::vendor_description("mkl"), Error);
  EXPECT_THROW(cpu::make_vendor_gemm("mkl", Shape{}), Error);
}

TEST(GemmCpuVendors, OnednnRefusesAGemmItWasNotMadeFor) {
  if (!has_vendor("onednn")) GTEST_SKIP() << "built without oneDNN";
  Shape s;
  s.m = s.n = s.k = 4;
  s.lda = s.ldb = s.ldc = 4;
  auto gemm = cpu::make_vendor_gemm("onednn", s);
  std::vector<float> a(16, 1), b(16, 1), c(16);
  cpu::Args g{false, false, 4, 4, 4, 1, 1, 0, a.data(), 4, 16, b.data(), 4, 16, c.data(), 4, 16};
  g.n = 3;  // a primitive made for n = 4 would write a column too many
  EXPECT_THROW(gemm->run(g), Error);
}

// A sweep with vendor rows records what each vendor ran (OpenBLAS core, oneDNN ISA) in the
// store, and refuses to add vendor rows to a store that records other builds or kernels.
TEST(GemmCpuVendors, SweepsRecordTheVendorsKernelsAndRefuseOtherOnes) {
  const auto vendors = cpu::vendor_names();
  if (vendors.empty()) GTEST_SKIP() << "built without OpenBLAS and oneDNN";
  const std::string store = testing::temp_path("vendor-records.sqlite");
  const std::string bench = "bench --workload tiny --min-reps 1 --max-reps 1 --warmups 0 --store ";
  ASSERT_EQ(testing::run_ktune(bench + store + " --configs 0").status, 0);
  const std::string key = vendor_record_key(query_cpu_device().slug, vendors.front());
  size_t rows = 0;
  {
    Store s(store);
    const auto records = s.records();
    for (const auto& v : vendors)
      EXPECT_EQ(records.at(vendor_record_key(query_cpu_device().slug, v)),
                cpu::vendor_description(v));
    rows = s.count();
    s.put_record(key, "OpenBLAS core=Elsewhere");
  }
  const auto refused = testing::run_ktune(bench + store + " --configs 0,17");
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find("records " + key + " 'OpenBLAS core=Elsewhere' but this run has"),
            std::string::npos)
      << refused.output;
  EXPECT_EQ(Store(store).count(), rows);  // nothing stored
  // Without vendor rows the configs still resume into it.
  EXPECT_EQ(testing::run_ktune(bench + store + " --configs 0,17 --no-vendors").status, 0);
  EXPECT_GT(Store(store).count(), rows);
}

}  // namespace
}  // namespace ktune
