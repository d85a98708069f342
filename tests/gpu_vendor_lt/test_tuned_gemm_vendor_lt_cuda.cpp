// A tuned CUDA GEMM library whose FP32 selector ships cuBLASLt's answers as candidates
// (tests/deploy_vendor/vendor-wins-lt-k3.hpp, `ktune deploy --vendors --vendor-names
// cublas,cublaslt,cublaslt;heuristic=1` from the planted vendor-wins-lt.csv): a tiled kernel,
// cuBLASLt's heuristic #0 and its answer #1, in CUBLAS_COMPUTE_32F. The picks run without a GPU;
// on one, each shipped config and the selector against the float64 reference with the FP32 bound
// (which TF32 math would exceed at these k), on NaN-poisoned C, in every transpose pair, with
// padded and odd leading dimensions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/cuda.hpp"
#include "ktune/gemm.hpp"
#include "tests/gpu/gemm_ex_cases.hpp"

namespace {

using ktune::Trans;

std::string picked(int64_t size) {
  const auto& info = ktune::tuned_gemm_info_cuda();
  return info.configs[ktune::tuned_gemm_choice_cuda(Trans::no, Trans::no, size, size, size, 1)];
}

TEST(TunedGemmVendorLt, ShipsAndPicksBothCublasLtAnswers) {
  const auto& info = ktune::tuned_gemm_info_cuda();
  const std::vector<std::string> configs(info.configs, info.configs + info.num_configs);
  EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=cublaslt"), configs.end());
  EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=cublaslt;heuristic=1"),
            configs.end());
  EXPECT_EQ(picked(128).rfind("kind=tiled;", 0), 0u);
  EXPECT_EQ(picked(512), "vendor=cublaslt");
  EXPECT_EQ(picked(1536), "vendor=cublaslt;heuristic=1");
}

TEST(TunedGemmVendorLt, EveryShippedConfigMatchesTheReference) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  using ktune::test::ShippedCase;
  int first_answer_runs = 0, second_answer_runs = 0;
  for (const ShippedCase& c :
       {ShippedCase{77, 45, 70, 2, 1, 0, true}, ShippedCase{300, 260, 264, 3, 0.5f, 2, true},
        ShippedCase{33, 17, 41, 2, 1, 0, false}})
    for (const std::string& name :
         ktune::test::check_shipped(ktune::GemmPrecision::fp32, c, true, true)) {
      first_answer_runs += name == "vendor=cublaslt";
      second_answer_runs += name == "vendor=cublaslt;heuristic=1";
    }
  // #0 on every aligned case in every transpose pair; #1 wherever the heuristic offers it (on
  // some shape here at least, or the candidate went untested).
  EXPECT_GE(first_answer_runs, 2 * 4);
  EXPECT_GE(second_answer_runs, 1);
}

}  // namespace
