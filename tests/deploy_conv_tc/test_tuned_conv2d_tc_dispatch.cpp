// ktune::conv2d_ex's dispatch by precision, on the planted tensor-core conv2d library
// (ktune_tuned_conv2d_tc_test: selectors/conv-tc-{bf16,fp16,tf32}-k3.hpp, planted_conv_tc.py),
// without a GPU: the three selectors ship other configs (bf16's in another order) and answer
// differently on every layer (by config, bf16 against the others by index too), so info and choice
// of one precision served by another's selector fail here; and the fp16 / tf32 argument checks and
// refusals (a 16-bit output of another type than the data's, precisions conv2d_ex does not serve),
// which throw before any CUDA call.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ktune/conv2d.hpp"

namespace {

using ktune::Conv2dOutput;
using ktune::Conv2dPrecision;

constexpr const char* kBf16Mma = "kind=cuda_igemm_mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3";
constexpr const char* kBf16Wgmma = "kind=cuda_igemm_wgmma;tp=8;tq=8;bn=64;st=4";
constexpr const char* kFp16Mma = "kind=cuda_igemm_mma;bm=64;bn=128;bk=64;wm=32;wn=32;st=3";
constexpr const char* kFp16Wgmma = "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=64;st=4";
constexpr const char* kTf32Mma = "kind=cuda_igemm_mma;bm=128;bn=64;bk=32;wm=32;wn=32;st=3";
constexpr const char* kTf32Wgmma = "kind=cuda_igemm_wgmma;tp=4;tq=8;bn=128;st=6";

template <class Call>
std::string thrown(Call&& call) {
  try {
    call();
  } catch (const ktune::Conv2dError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TunedConv2dTcDispatch, EachPrecisionReportsItsOwnSelectorsConfigs) {
  const auto& bf16 = ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision::bf16);
  const auto& fp16 = ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision::fp16);
  ASSERT_EQ(bf16.num_configs, 3);
  ASSERT_EQ(fp16.num_configs, 3);
  EXPECT_STREQ(bf16.configs[0], kBf16Mma);
  EXPECT_STREQ(bf16.configs[1], kBf16Wgmma);
  EXPECT_STREQ(fp16.configs[0], kFp16Wgmma);
  EXPECT_STREQ(fp16.configs[1], kFp16Mma);
  EXPECT_STREQ(fp16.configs[2], "vendor=cudnn");
  EXPECT_STREQ(fp16.backend, "cuda");
  const auto& tf32 = ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision::tf32);
  ASSERT_EQ(tf32.num_configs, 3);
  EXPECT_STREQ(tf32.configs[0], kTf32Wgmma);
  EXPECT_STREQ(tf32.configs[1], kTf32Mma);
  EXPECT_STREQ(tf32.configs[2], "vendor=cudnn");
  // fp32 is ktune::conv2d's selector; unknown codes have none.
  EXPECT_EQ(&ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision::fp32),
            &ktune::tuned_conv2d_info_cuda());
  EXPECT_EQ(ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision(7)).num_configs, 0);
}

// The selectors pick the mma config below 64 channels and the wgmma one from 64 up (their
// training rows), at other indices (bf16 0 / 1, fp16 and tf32 1 / 0) or other configs.
TEST(TunedConv2dTcDispatch, TheChoiceOfEachPrecisionIsItsOwnSelectors) {
  const auto& bf16 = ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision::bf16);
  const auto& fp16 = ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision::fp16);
  const auto& tf32 = ktune::tuned_conv2d_ex_info_cuda(Conv2dPrecision::tf32);
  for (const int64_t h : {14, 28, 9})
    for (const int64_t c : {3, 16, 32, 64, 128, 256, 512}) {
      const int b =
          ktune::tuned_conv2d_ex_choice_cuda(Conv2dPrecision::bf16, 1, h, h, c, 64, 3, 3, 1, 1);
      const int f =
          ktune::tuned_conv2d_ex_choice_cuda(Conv2dPrecision::fp16, 1, h, h, c, 64, 3, 3, 1, 1);
      const int t =
          ktune::tuned_conv2d_ex_choice_cuda(Conv2dPrecision::tf32, 1, h, h, c, 64, 3, 3, 1, 1);
      const std::string where = "h = " + std::to_string(h) + ", c = " + std::to_string(c);
      ASSERT_EQ(b, c < 64 ? 0 : 1) << where;
      ASSERT_EQ(f, c < 64 ? 1 : 0) << where;
      EXPECT_STREQ(bf16.configs[b], c < 64 ? kBf16Mma : kBf16Wgmma) << where;
      EXPECT_STREQ(fp16.configs[f], c < 64 ? kFp16Mma : kFp16Wgmma) << where;
      ASSERT_EQ(t, c < 64 ? 1 : 0) << where;
      EXPECT_STREQ(tf32.configs[t], c < 64 ? kTf32Mma : kTf32Wgmma) << where;
    }
  EXPECT_EQ(ktune::tuned_conv2d_ex_choice_cuda(Conv2dPrecision(7), 1, 14, 14, 64, 64, 3, 3, 1, 1),
            -1);
}

TEST(TunedConv2dTcDispatch, Fp16AndTf32ArgumentsAndRefusalsThrowBeforeTouchingTheDevice) {
  void* fake = reinterpret_cast<void*>(uintptr_t(256));  // never dereferenced
  float* out = static_cast<float*>(fake);
  constexpr auto fp16 = Conv2dPrecision::fp16;
  auto ex = [&](Conv2dPrecision p, Conv2dOutput o, const ktune::Conv2dEpilogue& e = {}) {
    return thrown(
        [&] { ktune::conv2d_ex(p, o, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, fake, fake, e, nullptr); });
  };
  // A 16-bit output is the data's type.
  EXPECT_EQ(ex(Conv2dPrecision::bf16, Conv2dOutput::fp16),
            "ktune::conv2d_ex: output type fp16 (3) needs precision fp16 (bf16: output fp32 or "
            "bf16)");
  EXPECT_EQ(ex(fp16, Conv2dOutput::bf16),
            "ktune::conv2d_ex: output type bf16 (2) needs precision bf16 (fp16: output fp32 or "
            "fp16)");
  ktune::Conv2dEpilogue relu;
  relu.relu = true;
  EXPECT_EQ(ex(fp16, Conv2dOutput::bf16, relu), ex(fp16, Conv2dOutput::bf16));
  EXPECT_EQ(ex(fp16, Conv2dOutput(5)),
            "ktune::conv2d_ex: output type 5 is none of fp32 (0), bf16 (2), fp16 (3)");
  // fp16 output in fp16 passes the output checks and reaches the arguments' (a null filter), and
  // its residual is checked as 2-byte elements.
  EXPECT_EQ(thrown([&] {
              ktune::conv2d_ex(fp16, Conv2dOutput::fp16, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, nullptr,
                               fake, nullptr);
            }),
            "ktune::conv2d_ex: filter is a null pointer");
  ktune::Conv2dEpilogue odd_residual;
  odd_residual.residual = static_cast<const char*>(fake) + (1 << 20) + 1;  // odd
  EXPECT_NE(
      ex(fp16, Conv2dOutput::fp16, odd_residual).find("epilogue residual is not aligned to 2"),
      std::string::npos)
      << ex(fp16, Conv2dOutput::fp16, odd_residual);
  EXPECT_EQ(ex(Conv2dPrecision(7), Conv2dOutput::fp32),
            "ktune::conv2d_ex: precision 7 is none of tf32 (1), bf16 (2), fp16 (3) (fp32 (0): "
            "ktune::conv2d)");
  EXPECT_EQ(thrown([&] {
              ktune::conv2d_ex(Conv2dPrecision(7), 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, fake, out,
                               nullptr);
            }),
            ex(Conv2dPrecision(7), Conv2dOutput::fp32));
  // tf32: FP32 output only.
  EXPECT_EQ(ex(Conv2dPrecision::tf32, Conv2dOutput::bf16),
            "ktune::conv2d_ex: output type bf16 (2) needs precision bf16 (tf32: output fp32)");
  EXPECT_EQ(ex(Conv2dPrecision::tf32, Conv2dOutput::fp16),
            "ktune::conv2d_ex: output type fp16 (3) needs precision fp16 (tf32: output fp32)");
  EXPECT_EQ(thrown([&] {
              ktune::tuned_conv2d_ex_run_config_cuda(Conv2dPrecision::tf32, 3, 1, 8, 8, 64, 4, 3, 3,
                                                     1, 1, fake, fake, out, nullptr);
            }),
            "ktune::tuned_conv2d_ex_run_config_cuda: index = 3 is not a shipped tf32 config "
            "(0..2)");
  EXPECT_EQ(thrown([&] {
              ktune::conv2d_ex(fp16, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, nullptr, out, nullptr);
            }),
            "ktune::conv2d_ex: filter is a null pointer");
  EXPECT_NE(thrown([&] {
              ktune::conv2d_ex(fp16, 1, 8, 8, 64, 4, 3, 3, 0, 1, fake, fake, out, nullptr);
            }).find("stride = 0"),
            std::string::npos);
  EXPECT_EQ(
      thrown([&] {
        ktune::tuned_conv2d_ex_run_config_cuda(fp16, 3, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, fake, out,
                                               nullptr);
      }),
      "ktune::tuned_conv2d_ex_run_config_cuda: index = 3 is not a shipped fp16 config (0..2)");
  EXPECT_EQ(thrown([&] {
              ktune::tuned_conv2d_ex_run_config_cuda(fp16, Conv2dOutput::bf16, 0, 1, 8, 8, 64, 4, 3,
                                                     3, 1, 1, fake, fake, fake, nullptr);
            }),
            "ktune::tuned_conv2d_ex_run_config_cuda: output type bf16 (2) needs precision bf16 "
            "(fp16: output fp32 or fp16)");
  // A misaligned fp32 epilogue residual is refused in fp16 as in bf16.
  ktune::Conv2dEpilogue odd;
  odd.residual = reinterpret_cast<const void*>(uintptr_t(4098));
  EXPECT_NE(ex(fp16, Conv2dOutput::fp32, odd).find("epilogue residual is not aligned to 4"),
            std::string::npos);
  // n = 0: nothing to do, no pointer read.
  EXPECT_EQ(thrown([&] {
              ktune::conv2d_ex(fp16, 0, 8, 8, 64, 4, 3, 3, 1, 1, nullptr, nullptr, nullptr,
                               nullptr);
            }),
            "no error");
}

}  // namespace
