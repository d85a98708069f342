// The CUDA conv2d libraries' tune-and-remember keys (kernels/conv2d/deploy/remember_conv2d.hpp):
// the cache's problem text is the conv2d family's own problem key for a plain call (so
// `ktune import --remembered` rows join the sweep's datasets), precision included where it is
// not FP32; output type and epilogue follow only where they are not the sweep's, and set shapes
// apart in the text and in the in-memory shape; a first call's early candidate is the shipped
// vendor call.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/deploy/remember_conv2d.hpp"
#include "ktune/problem.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;
namespace kg = ktune::kernels::gemm;

conv::deploy::RememberKey key_of(const conv::Shape& s) {
  conv::deploy::RememberKey key;
  key.n = s.n, key.h = s.h, key.w = s.w, key.c = s.c, key.k = s.k, key.r = s.r, key.s = s.s;
  key.stride = s.stride, key.pad = s.pad, key.precision = int(s.precision);
  return key;
}

bool same(const ktune::remember::Shape& x, const ktune::remember::Shape& y) {
  return x.count == y.count && std::equal(x.values, x.values + x.count, y.values);
}

TEST(RememberConv2dKey, ThePlainCallsTextIsTheFamilysKey) {
  for (kg::Precision q :
       {kg::Precision::fp32, kg::Precision::tf32, kg::Precision::bf16, kg::Precision::fp16}) {
    for (const conv::Shape& base : {conv::Shape{1, 224, 224, 3, 64, 3, 3, 1, 1},
                                    conv::Shape{16, 56, 56, 256, 128, 1, 1, 2, 0},
                                    conv::Shape{2, 7, 9, 512, 512, 3, 5, 1, 2}}) {
      conv::Shape s = base;
      s.precision = q;
      const std::string text = key_of(s).problem();
      EXPECT_EQ(text, conv::problem_of(s).key());
      // The family reads it back as the same layer (ktune import --remembered).
      const conv::Shape back = conv::shape_of(ktune::Problem::parse(text));
      EXPECT_EQ(back.n, s.n);
      EXPECT_EQ(back.c, s.c);
      EXPECT_EQ(back.pad, s.pad);
      EXPECT_EQ(back.precision, s.precision);
    }
  }
}

TEST(RememberConv2dKey, OutputTypeAndEpilogueSetShapesApart) {
  conv::Shape s{1, 28, 28, 128, 128, 3, 3, 1, 1};
  s.precision = kg::Precision::bf16;
  const conv::deploy::RememberKey plain = key_of(s);
  auto out16 = plain, bias = plain, residual = plain, relu = plain, fp16 = plain, all = plain;
  out16.out16 = true;
  bias.bias = true;
  residual.residual = true;
  relu.relu = true;
  fp16.precision = 3;
  all.out16 = all.bias = all.residual = all.relu = true;
  EXPECT_EQ(all.problem(), plain.problem() + ";out16=1;bias=1;residual=1;relu=1");
  // The family still reads the layer from it (ktune import --remembered keeps such rows apart).
  const conv::Shape back = conv::shape_of(ktune::Problem::parse(all.problem()));
  EXPECT_EQ(back.k, s.k);
  EXPECT_EQ(back.precision, s.precision);
  const conv::deploy::RememberKey keys[] = {plain, out16, bias, residual, relu, fp16, all};
  for (size_t i = 0; i < std::size(keys); ++i) {
    EXPECT_TRUE(same(keys[i].shape(), keys[i].shape()));
    EXPECT_LE(keys[i].shape().count, ktune::remember::Shape::kMax);
    for (size_t j = 0; j < i; ++j) {
      EXPECT_NE(keys[i].problem(), keys[j].problem()) << i << " " << j;
      EXPECT_FALSE(same(keys[i].shape(), keys[j].shape())) << i << " " << j;
    }
  }
  // Every size and the stride and pad count: a layer differing in one is another shape.
  for (int field = 0; field < 9; ++field) {
    auto other = plain;
    int64_t* fields[] = {&other.n, &other.h, &other.w,      &other.c,  &other.k,
                         &other.r, &other.s, &other.stride, &other.pad};
    ++*fields[field];
    EXPECT_NE(other.problem(), plain.problem()) << field;
    EXPECT_FALSE(same(other.shape(), plain.shape())) << field;
  }
}

TEST(RememberConv2dKey, TheEarlyCandidateIsTheFirstVendorCall) {
  const char* const with[] = {"kind=cuda_igemm_mma;bm=64", "vendor=cudnn",
                              "kind=cuda_igemm_wgmma;tp=8"};
  const char* const without[] = {"kind=cuda_igemm_mma;bm=64", "kind=cuda_igemm_wgmma;tp=8"};
  EXPECT_EQ(conv::deploy::first_vendor_config(with, 3), 1);
  EXPECT_EQ(conv::deploy::first_vendor_config(without, 2), -1);
  EXPECT_EQ(conv::deploy::first_vendor_config(with, 0), -1);
}

}  // namespace
