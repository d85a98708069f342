// ktune-cuda-bf16's and ktune-cuda-tf32's wgmma conv candidate (nn/cuda/wgmma_conv.hpp) in each
// of its configs, with the fused epilogue y = act(conv + bias + residual), against the float64
// reference (cpu::reference_conv2d, stored in float), output poisoned with NaN, every element
// within the bound
//   |y − t| ≤ o·|t| + (2u + u²)·Σ|x·w| + 1.01·(K·2^-22·Σ|x·w| + 2^-23·(|conv| + |b| + |res|))
//             + 2^-24·|conv|,
// t = act(conv + b + res): products of inputs each within a relative u of the data (bf16: the
// data is bf16-exact, u = 0; tf32: FP32 data read as TF32, truncated, u = 2^-10) exact in FP32,
// FP32 accumulation in any order (4·K·2^-24), two FP32 additions, the output's rounding o (bf16
// 2^-8, FP32 none: inside the 2^-23 term), ReLU does not enlarge an error, and the reference's own
// rounding to float; a planted error must fail it, and in tf32 some error must exceed the bound
// with u = 0 (the products are TF32's, not FP32's). Skips without an sm_90 GPU or without the
// candidate in the build.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ktune/cuda/device_buffer.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/reference.hpp"
#include "nn/cuda/cuda_backend.hpp"
#include "nn/cuda/register.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/nn_cuda/nn_cuda_test_util.hpp"
#ifdef KTUNE_NN_WGMMA_CONV
#include "nn/cuda/wgmma_conv.hpp"
#endif

namespace ktune::nn {
namespace {

#ifdef KTUNE_NN_WGMMA_CONV
float round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

std::vector<float> rounded(std::vector<float> v) {
  for (auto& x : v) x = round_bf16(x);
  return v;
}

struct Reference {
  std::vector<float> conv, magnitude;  // Σ x·w and Σ |x·w| per NHWC output (float64, stored)
};

Reference reference(ConvDesc d, const std::vector<float>& x, const std::vector<float>& w) {
  d.relu = false;
  const size_t outputs = size_t(d.n * d.p() * d.q() * d.k);
  const std::vector<float> zero(size_t(d.k), 0.0f);
  Reference r{std::vector<float>(outputs), std::vector<float>(outputs)};
  cpu::reference_conv2d(d, x.data(), w.data(), zero.data(), r.conv.data());
  std::vector<float> ax(x), aw(w);
  for (auto& v : ax) v = std::fabs(v);
  for (auto& v : aw) v = std::fabs(v);
  cpu::reference_conv2d(d, ax.data(), aw.data(), zero.data(), r.magnitude.data());
  return r;
}

// The unit roundoffs of the header comment's bound: u of the inputs, o of the output.
struct Rounding {
  double input_u, output_o;
};
// tf32: FP32 output (its rounding inside the 2^-23 term), or rounded to TF32 (nearest: 2^-11).
constexpr Rounding kBf16{0.0, 0x1p-8}, kTf32{0x1p-10, 0.0}, kTf32Stored{0x1p-10, 0x1p-11};

// Outputs outside the bound of the header comment.
int64_t outside_bound(const ConvDesc& d, const Reference& ref, const std::vector<float>& bias,
                      const std::vector<float>& residual, bool relu, const std::vector<float>& y,
                      Rounding rounding) {
  const double gamma = double(d.r * d.s * d.c) * std::ldexp(1.0, -22);
  const double u = rounding.input_u;
  int64_t bad = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    const double b = bias[e % size_t(d.k)], res = residual.empty() ? 0.0 : residual[e];
    const double sum = ref.conv[e] + b + res, t = relu ? std::max(sum, 0.0) : sum;
    const double before_output =  // the stored value's error before its own rounding
        (2 * u + u * u) * ref.magnitude[e] +
        1.01 * (gamma * ref.magnitude[e] +
                std::ldexp(1.0, -23) * (std::fabs(ref.conv[e]) + std::fabs(b) + std::fabs(res))) +
        std::ldexp(1.0, -24) * std::fabs(ref.conv[e]);
    const double o = rounding.output_o, bound = o * std::fabs(t) + (1 + o) * before_output;
    if (!(std::fabs(double(y[e]) - t) <= bound)) ++bad;  // NaN fails
  }
  return bad;
}

// Every config of `precision` on four layers (3x3, 1x1 with k off the tiles, strided, 7x7), half
// with ReLU, half with the residual; bf16 data bf16-exact, tf32 data plain FP32.
void check_every_config(cuda::Precision precision, int channels) {
  const bool bf16 = precision == cuda::Precision::bf16;
  const auto data = [&](size_t count, int seed) {
    auto v = test::random_vector(count, seed);
    return bf16 ? rounded(std::move(v)) : v;
  };
  const ConvDesc shapes[] = {{2, 9, 11, channels, 16, 3, 3, 1, 1, true},
                             {1, 13, 17, 2 * channels, 66, 1, 1, 1, 0, false},
                             {2, 15, 15, channels, 130, 3, 3, 2, 1, true},
                             {3, 7, 7, channels, 8, 7, 7, 2, 3, false}};
  register_cuda_backends();
  auto backend = make_backend(bf16 ? "ktune-cuda-bf16" : "ktune-cuda-tf32");
  auto& cuda = dynamic_cast<cuda::CudaBackend&>(*backend);
  int index = 0, ran = 0;
  int64_t beyond_fp32_products = 0;  // tf32: outputs outside the bound with u = 0
  int rounded_runs = 0;              // tf32: runs storing TF32-rounded outputs
  const int configs = cuda::wgmma_conv_configs(precision);
  for (const ConvDesc& d : shapes) {
    const auto x = data(size_t(d.n * d.h * d.w * d.c), 41 + index);
    const auto w = data(size_t(d.k * d.r * d.s * d.c), 51 + index);
    const auto bias = test::random_vector(size_t(d.k), 61 + index);
    const size_t outputs = size_t(d.n * d.p() * d.q() * d.k);
    const auto residual_values = data(outputs, 71 + index);
    const Reference ref = reference(d, x, w);
    float* dx = cuda.alloc(x.size());
    float* dw = cuda.alloc(w.size());
    float* dres = cuda.alloc(outputs);
    float* dy = cuda.alloc(outputs);
    cuda.upload(dx, x.data(), x.size());
    cuda.upload(dw, w.data(), w.size());
    cuda.upload(dres, residual_values.data(), outputs);
    ktune::cuda::DeviceBuffer<float> dbias(bias.size(), "wgmma conv test bias");
    ASSERT_EQ(cudaMemcpy(dbias.data(), bias.data(), bias.size() * 4, cudaMemcpyHostToDevice),
              cudaSuccess);
    for (int c = 0; c < configs; ++c, ++index) {
      const std::string name = cuda::wgmma_conv_config_name(precision, c);
      const std::string why = cuda::wgmma_conv_refusal(precision, d, c);
      if (why == "not an sm_90 device") GTEST_SKIP() << "the wgmma conv is sm_90a code";
      ASSERT_EQ(why, "") << name;
      // tf32: every other pair of runs stores its output rounded to TF32.
      const bool relu = index & 1, with_residual = (index >> 1) & 1;
      const bool round_tf32 = !bf16 && ((index >> 2) & 1);
      const Rounding rounding = bf16 ? kBf16 : round_tf32 ? kTf32Stored : kTf32;
      SCOPED_TRACE(name + " shape " + std::to_string(&d - shapes) + " relu " +
                   std::to_string(relu) + " residual " + std::to_string(with_residual) +
                   " TF32 output " + std::to_string(round_tf32));
      const std::vector<float> poison(outputs, NAN);
      cuda.upload(dy, poison.data(), outputs);
      if (bf16)
        cuda::wgmma_conv(c, d, reinterpret_cast<const cuda::bf16*>(dx),
                         reinterpret_cast<const cuda::bf16*>(dw), dbias.data(),
                         with_residual ? reinterpret_cast<const cuda::bf16*>(dres) : nullptr, relu,
                         reinterpret_cast<cuda::bf16*>(dy), cuda.stream());
      else
        cuda::wgmma_conv(c, d, dx, dw, dbias.data(), with_residual ? dres : nullptr, relu, dy,
                         round_tf32, cuda.stream());
      std::vector<float> y(outputs);
      cuda.download(y.data(), dy, outputs);
      if (round_tf32) {  // TF32 values: the 13 low mantissa bits clear
        EXPECT_EQ(test::not_tf32_values(y), 0);
        ++rounded_runs;
      }
      const std::vector<float> none;
      const auto& residual = with_residual ? residual_values : none;
      EXPECT_EQ(outside_bound(d, ref, bias, residual, relu, y, rounding), 0);
      if (!round_tf32)
        beyond_fp32_products += outside_bound(d, ref, bias, residual, relu, y, {0.0, 0.0});
      y[outputs / 2] += 1.0f + 0.1f * std::sqrt(float(d.r * d.s * d.c));  // planted
      EXPECT_EQ(outside_bound(d, ref, bias, residual, relu, y, rounding), 1);
      ++ran;
    }
  }
  EXPECT_EQ(ran, int(std::size(shapes)) * configs);
  if (!bf16) {
    EXPECT_GT(beyond_fp32_products, 0) << "tf32 products should not be FP32-exact";
    EXPECT_GT(rounded_runs, 0);
  }
}
#endif

TEST(NnCudaWgmmaConv, EveryConfigWithinTheBoundWithBiasReluAndResidual) {
  KTUNE_REQUIRE_GPU();
#ifndef KTUNE_NN_WGMMA_CONV
  GTEST_SKIP() << "the build has no wgmma conv candidate (no sm_90a code)";
#else
  check_every_config(cuda::Precision::bf16, 64);
#endif
}

// tf32: 32 channels a K tile, so c = 32 layers run too.
TEST(NnCudaWgmmaConv, EveryTf32ConfigWithinTheBoundWithBiasReluAndResidual) {
  KTUNE_REQUIRE_GPU();
#ifndef KTUNE_NN_WGMMA_CONV
  GTEST_SKIP() << "the build has no wgmma conv candidate (no sm_90a code)";
#else
  check_every_config(cuda::Precision::tf32, 32);
#endif
}

}  // namespace
}  // namespace ktune::nn
