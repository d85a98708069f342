// A tuned CUDA GEMM library whose bf16 and fp16 selectors ship the tensor-core vendor candidates
// (tests/deploy_vendor/vendor-wins-tc-k3.hpp, `ktune deploy --vendors --vendor-names
// cublas,cublaslt` from the planted vendor-wins-tc.csv): an mma kernel, cuBLAS's
// GemmStridedBatchedEx and cuBLASLt's heuristic #0. The picks run without a GPU; on one, each
// shipped config (the vendors' calls included) against the float64 reference with the
// precision's bound, on NaN-poisoned C, batched, in every transpose pair, with padded and odd
// leading dimensions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/gemm.hpp"
#include "tests/gpu/gemm_ex_cases.hpp"

namespace {

using ktune::GemmPrecision;
using ktune::Trans;
namespace kg = ktune::kernels::gemm;

const GemmPrecision kShipped[] = {GemmPrecision::bf16, GemmPrecision::fp16};

std::string picked(GemmPrecision q, int64_t size) {
  const auto& info = ktune::tuned_gemm_ex_info_cuda(q);
  return info
      .configs[ktune::tuned_gemm_ex_choice_cuda(q, Trans::no, Trans::no, size, size, size, 1)];
}

TEST(TunedGemmVendorTc, ShipsAndPicksTheCallableVendors) {
  for (GemmPrecision q : kShipped) {
    const auto& info = ktune::tuned_gemm_ex_info_cuda(q);
    const std::vector<std::string> configs(info.configs, info.configs + info.num_configs);
    EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=cublas"), configs.end());
    EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=cublaslt"), configs.end());
    EXPECT_EQ(std::find(configs.begin(), configs.end(), "vendor=cublaslt-top8"), configs.end());
    EXPECT_EQ(picked(q, 128).rfind("kind=mma;", 0), 0u);
    EXPECT_EQ(picked(q, 512), "vendor=cublas");
    EXPECT_EQ(picked(q, 2048), "vendor=cublaslt");
  }
  EXPECT_EQ(ktune::tuned_gemm_ex_info_cuda(GemmPrecision::tf32).num_configs, 0);
}

// C in bf16: the library's bf16_c16 selector (vendor-wins-tc-c16-k3.hpp, planted to answer
// otherwise than the bf16 one) serves it, in what it ships and in every pick; FP32 C keeps the bf16
// selector. gemm_ex and gemm_ex_config route through the same rule as these queries.
std::string picked(GemmPrecision q, ktune::GemmOutput out, int64_t size) {
  const auto& info = ktune::tuned_gemm_ex_info_cuda(q, out);
  const int pick =
      ktune::tuned_gemm_ex_choice_cuda(q, out, Trans::no, Trans::no, size, size, size, 1);
  return pick >= 0 && pick < info.num_configs ? info.configs[pick] : "none";
}

TEST(TunedGemmVendorTc, SixteenBitCIsServedByItsOwnSelector) {
  using Out = ktune::GemmOutput;
  const auto& c16 = ktune::tuned_gemm_ex_info_cuda(GemmPrecision::bf16, Out::bf16);
  const auto& c32 = ktune::tuned_gemm_ex_info_cuda(GemmPrecision::bf16);
  EXPECT_NE(&c16, &c32);
  EXPECT_EQ(&ktune::tuned_gemm_ex_info_cuda(GemmPrecision::bf16, Out::fp32), &c32);
  ASSERT_EQ(c16.num_configs, 3);
  EXPECT_STREQ(c16.configs[0], "kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=4");
  // Planted to differ at every size class: the 16-bit-C answer, then the FP32-C one.
  for (const auto& [size, with_c16, with_c32] :
       {std::tuple<int64_t, const char*, const char*>{
            128, "kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=4",
            "kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3"},
        {512, "vendor=cublaslt", "vendor=cublas"},
        {2048, "vendor=cublas", "vendor=cublaslt"}}) {
    EXPECT_EQ(picked(GemmPrecision::bf16, Out::bf16, size), with_c16) << size;
    EXPECT_EQ(picked(GemmPrecision::bf16, Out::fp32, size), with_c32) << size;
    EXPECT_EQ(picked(GemmPrecision::bf16, size), with_c32) << size;
  }
  // A config index counts in the serving selector's list: gemm_ex_config's range error names it.
  const void* fake = reinterpret_cast<const void*>(uintptr_t(256));  // never dereferenced
  void* fake_c = reinterpret_cast<void*>(uintptr_t(1 << 20));
  std::string message;
  try {
    ktune::gemm_ex_config(3, GemmPrecision::bf16, Out::bf16, Trans::no, Trans::no, 8, 8, 8, 1, fake,
                          8, 64, fake, 8, 64, 0, fake_c, 8, 64, 1, nullptr);
  } catch (const ktune::GemmError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("not one of the 3 shipped bf16 16-bit-C configs"), std::string::npos)
      << message;
}

// fp16 ships no fp16_c16 selector: C in fp16 is served by the fp16 selector (the same object, the
// same picks). Pairings gemm_ex refuses have no selector.
TEST(TunedGemmVendorTc, SixteenBitCWithoutItsOwnSelectorFallsBackToThePrecisions) {
  using Out = ktune::GemmOutput;
  EXPECT_EQ(&ktune::tuned_gemm_ex_info_cuda(GemmPrecision::fp16, Out::fp16),
            &ktune::tuned_gemm_ex_info_cuda(GemmPrecision::fp16));
  for (int64_t size : {128, 512, 2048})
    EXPECT_EQ(picked(GemmPrecision::fp16, Out::fp16, size), picked(GemmPrecision::fp16, size));
  EXPECT_EQ(ktune::tuned_gemm_ex_info_cuda(GemmPrecision::bf16, Out::fp16).num_configs, 0);
  EXPECT_EQ(ktune::tuned_gemm_ex_info_cuda(GemmPrecision::tf32, Out::bf16).num_configs, 0);
  EXPECT_EQ(ktune::tuned_gemm_ex_choice_cuda(GemmPrecision::bf16, Out::fp16, Trans::no, Trans::no,
                                             64, 64, 64, 1),
            -1);
}

TEST(TunedGemmVendorTc, EveryShippedConfigMatchesTheReference) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  using ktune::test::ShippedCase;
  int vendor_runs = 0;
  for (GemmPrecision q : kShipped)
    for (const ShippedCase& c :
         {ShippedCase{77, 45, 70, 2, 1, 0, true}, ShippedCase{300, 260, 264, 3, 0.5f, 2, true},
          ShippedCase{33, 17, 41, 2, 1, 0, false}})
      for (const std::string& name : ktune::test::check_shipped(q, c, true, true))
        vendor_runs += name.rfind("vendor=", 0) == 0;
  EXPECT_GE(vendor_runs, 2 * 4 * 2 * 2);  // both vendors, every transpose pair, aligned shapes
}

// The same with C in the inputs' 16-bit type: cuBLAS's GemmStridedBatchedEx and cuBLASLt's matmul
// with C and D of CUDA_R_16BF / CUDA_R_16F (and the mma config) within the bound plus the output
// rounding; beta != 0 reads the old 16-bit C.
TEST(TunedGemmVendorTc, EveryShippedConfigMatchesTheReferenceWith16BitC) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  using ktune::test::ShippedCase;
  int vendor_runs = 0;
  for (GemmPrecision q : kShipped) {
    const auto out = q == GemmPrecision::bf16 ? ktune::GemmOutput::bf16 : ktune::GemmOutput::fp16;
    for (const ShippedCase& c :
         {ShippedCase{77, 45, 70, 2, 1, 0, true}, ShippedCase{300, 260, 264, 3, 0.5f, 2, true},
          ShippedCase{33, 17, 41, 2, 1, 0, false}})
      for (const std::string& name : ktune::test::check_shipped(q, c, true, true, out))
        vendor_runs += name.rfind("vendor=", 0) == 0;
  }
  EXPECT_GE(vendor_runs, 2 * 4 * 2 * 2);
}

// The selector routes a large shape to cuBLASLt; the second call reuses this thread's plan.
TEST(TunedGemmVendorTc, SelectorServesCublasLtTwiceOnOnePlan) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  for (GemmPrecision q : kShipped) {
    ASSERT_EQ(picked(q, 1024), "vendor=cublaslt");
    const auto kq = kg::Precision(int(q));
    ktune::test::DeviceCase d =
        ktune::test::make_case(kq, false, true, 1024, 1024, 1024, 1, true, 1, 0);
    for (int call = 0; call < 2; ++call) {
      std::string guard;
      const double error = ktune::test::run_case(d, q, -1, 1, 0, guard);
      EXPECT_GE(error, 0);
      EXPECT_LE(error, kg::error_bound(1024, kq)) << "call " << call;
      EXPECT_EQ(guard, "");
    }
    ktune::test::free_case(d);
  }
}

}  // namespace
