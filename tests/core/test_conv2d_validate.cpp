// The argument checks of the public ktune::conv2d API (kernels/conv2d/deploy/conv2d_validate.hpp)
// and the feature function the family and the deployed selectors share.
#include <gtest/gtest.h>

#include <string>

#include "kernels/conv2d/conv2d_features.hpp"
#include "kernels/conv2d/deploy/conv2d_validate.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::conv2d::deploy {
namespace {

std::string error_of(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                     int64_t stride, int64_t pad, bool null_output = false) {
  const float x = 0;
  float y = 0;
  try {
    check_conv2d_arguments("ktune::conv2d", n, h, w, c, k, r, s, stride, pad, &x, &x,
                           null_output ? nullptr : &y);
  } catch (const Conv2dError& e) {
    return e.what();
  }
  return "";
}

TEST(Conv2dValidate, EachBadArgumentIsNamedInOneLine) {
  const std::pair<std::string, std::string> cases[] = {
      {error_of(-1, 8, 8, 3, 4, 3, 3, 1, 1), "n = -1 is negative"},
      {error_of(1, 0, 8, 3, 4, 3, 3, 1, 1), "h = 0 must be at least 1"},
      {error_of(1, 8, 8, 3, 0, 3, 3, 1, 1), "k = 0 must be at least 1"},
      {error_of(1, 8, 8, 3, 4, 3, 3, 0, 1), "stride = 0 must be at least 1"},
      {error_of(1, 8, 8, 3, 4, 3, 3, 1, -2), "pad = -2 is negative"},
      {error_of(1, 8, 8, 3, 4, 3, 3, 1, 3), "pad = 3 is not smaller than the filter (3x3)"},
      {error_of(1, 2, 8, 3, 4, 5, 5, 1, 1), "larger than the padded input (4x10)"},
      {error_of(1, int64_t(1) << 40, 8, 3, 4, 3, 3, 1, 1), "h = 1099511627776 exceeds 2^31 - 1"},
      {error_of(65536, 65536, 2, 1, 4, 1, 1, 1, 0), "the input (n*h*w*c) exceeds"},
      {error_of(1, 4, 4, 65536, 65536, 1, 1, 1, 0), "the filter (k*r*s*c) exceeds"},
      {error_of(1, 8, 8, 3, 4, 3, 3, 1, 1, true), "output is a null pointer"},
  };
  for (const auto& [message, expected] : cases) {
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(message.rfind("ktune::conv2d: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  EXPECT_EQ(error_of(1, 8, 8, 3, 4, 3, 3, 2, 2), "");
  EXPECT_FALSE(check_conv2d_arguments("f", 0, 8, 8, 3, 4, 3, 3, 1, 1, nullptr, nullptr, nullptr));
}

// conv2d_ex's epilogue checks on addresses only (never dereferenced): an output of 256 FP32
// elements (1 KiB) at `out`, k = 4 channels.
std::string epilogue_error(const void* bias, const void* residual, int64_t element_bytes) {
  const auto* out = reinterpret_cast<const char*>(uintptr_t(1) << 20);
  Conv2dEpilogue e;
  e.bias = static_cast<const float*>(bias);
  e.residual = residual;
  try {
    check_conv2d_epilogue("ktune::conv2d_ex", e, out, 256, element_bytes, 4);
  } catch (const Conv2dError& error) {
    return error.what();
  }
  return "";
}

TEST(Conv2dValidate, EpilogueOverlapsAndMisalignmentAreNamed) {
  const auto* out = reinterpret_cast<const char*>(uintptr_t(1) << 20);
  EXPECT_EQ(epilogue_error(nullptr, nullptr, 4), "");
  EXPECT_EQ(epilogue_error(out + 1024, out + 2048, 4), "");  // just past the output: clear
  EXPECT_EQ(epilogue_error(out - 16, out, 4), "");           // in place; bias just before
  EXPECT_EQ(epilogue_error(nullptr, out + 1022, 2), "");     // a bf16 output is 512 bytes
  EXPECT_EQ(epilogue_error(out - 12, nullptr, 4),
            "ktune::conv2d_ex: epilogue bias overlaps the output");
  EXPECT_EQ(epilogue_error(out + 1022 + 4096, nullptr, 4),
            "ktune::conv2d_ex: epilogue bias is not aligned to 4 bytes (an FP32 element)");
  EXPECT_EQ(epilogue_error(nullptr, out + 4, 4),
            "ktune::conv2d_ex: epilogue residual overlaps the output without being it");
  EXPECT_EQ(epilogue_error(nullptr, out - 4, 4),
            "ktune::conv2d_ex: epilogue residual overlaps the output without being it");
  EXPECT_EQ(epilogue_error(nullptr, out + 4098, 4),
            "ktune::conv2d_ex: epilogue residual is not aligned to 4 bytes (an output element)");
  EXPECT_EQ(epilogue_error(nullptr, out + 4097, 2),
            "ktune::conv2d_ex: epilogue residual is not aligned to 2 bytes (an output element)");
}

TEST(Conv2dValidate, DeployedFeaturesEqualTheFamilysFeatures) {
  register_builtin();
  const Family& family = find_family("conv2d");
  const Problem p = family.make_problem({16, 56, 56, 64, 128, 3, 3, 2, 1});
  const auto values = feature_values(16, 56, 56, 64, 128, 3, 3, 2, 1);
  const auto derived = family.derived_features(p);
  ASSERT_EQ(values.size(), p.values.size() + derived.size());
  for (size_t i = 0; i < p.values.size(); ++i) EXPECT_EQ(values[i], p.values[i]);
  for (size_t i = 0; i < derived.size(); ++i) EXPECT_EQ(values[p.values.size() + i], derived[i]);
}

}  // namespace
}  // namespace ktune::kernels::conv2d::deploy
