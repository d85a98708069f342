// ktune-cuda-bf16's wgmma conv candidate (nn/cuda/wgmma_conv.hpp) in each of its configs, with the
// fused epilogue y = bf16(act(conv + bias + residual)), on bf16-exact random inputs against the
// float64 reference (cpu::reference_conv2d, stored in float), output poisoned with NaN, every
// element within the bound
//   |y − t| ≤ 2^-8·|t| + 1.01·(K·2^-22·Σ|x·w| + 2^-23·(|conv| + |b| + |res|)) + 2^-24·|conv|,
// t = act(conv + b + res): FP32 accumulation of exact products in any order (4·K·2^-24), two
// FP32 additions, one bf16 rounding (ReLU does not enlarge an error), and the reference's own
// rounding to float; a planted error must fail it. Skips without an sm_90 GPU or without the
// candidate in the build.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

// Outputs outside the bound of the header comment.
int64_t outside_bound(const ConvDesc& d, const Reference& ref, const std::vector<float>& bias,
                      const std::vector<float>& residual, bool relu, const std::vector<float>& y) {
  const double gamma = double(d.r * d.s * d.c) * std::ldexp(1.0, -22);
  int64_t bad = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    const double b = bias[e % size_t(d.k)], res = residual.empty() ? 0.0 : residual[e];
    const double sum = ref.conv[e] + b + res, t = relu ? std::max(sum, 0.0) : sum;
    const double bound =
        std::ldexp(1.0, -8) * std::fabs(t) +
        1.01 * (gamma * ref.magnitude[e] +
                std::ldexp(1.0, -23) * (std::fabs(ref.conv[e]) + std::fabs(b) + std::fabs(res))) +
        std::ldexp(1.0, -24) * std::fabs(ref.conv[e]);
    if (!(std::fabs(double(y[e]) - t) <= bound)) ++bad;  // NaN fails
  }
  return bad;
}
#endif

TEST(NnCudaWgmmaConv, EveryConfigWithinTheBoundWithBiasReluAndResidual) {
  KTUNE_REQUIRE_GPU();
#ifndef KTUNE_NN_WGMMA_CONV
  GTEST_SKIP() << "the build has no wgmma conv candidate (no sm_90a code)";
#else
  const ConvDesc shapes[] = {{2, 9, 11, 64, 16, 3, 3, 1, 1, true},
                             {1, 13, 17, 128, 66, 1, 1, 1, 0, false},
                             {2, 15, 15, 64, 130, 3, 3, 2, 1, true},
                             {3, 7, 7, 64, 8, 7, 7, 2, 3, false}};
  register_cuda_backends();
  auto backend = make_backend("ktune-cuda-bf16");
  auto& cuda = dynamic_cast<cuda::CudaBackend&>(*backend);
  int index = 0, ran = 0;
  for (const ConvDesc& d : shapes) {
    const auto x = rounded(test::random_vector(size_t(d.n * d.h * d.w * d.c), 41 + index));
    const auto w = rounded(test::random_vector(size_t(d.k * d.r * d.s * d.c), 51 + index));
    const auto bias = test::random_vector(size_t(d.k), 61 + index);
    const size_t outputs = size_t(d.n * d.p() * d.q() * d.k);
    const auto residual_values = rounded(test::random_vector(outputs, 71 + index));
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
    for (int c = 0; c < cuda::wgmma_conv_configs(); ++c, ++index) {
      const std::string why = cuda::wgmma_conv_refusal(d, c);
      if (why == "not an sm_90 device") GTEST_SKIP() << "the wgmma conv is sm_90a code";
      ASSERT_EQ(why, "") << cuda::wgmma_conv_config_name(c);
      const bool relu = index & 1, with_residual = (index >> 1) & 1;
      SCOPED_TRACE(cuda::wgmma_conv_config_name(c) + " shape " + std::to_string(&d - shapes) +
                   " relu " + std::to_string(relu) + " residual " + std::to_string(with_residual));
      const std::vector<float> poison(outputs, NAN);
      cuda.upload(dy, poison.data(), outputs);
      cuda::wgmma_conv(c, d, reinterpret_cast<const cuda::bf16*>(dx),
                       reinterpret_cast<const cuda::bf16*>(dw), dbias.data(),
                       with_residual ? reinterpret_cast<const cuda::bf16*>(dres) : nullptr, relu,
                       reinterpret_cast<cuda::bf16*>(dy), cuda.stream());
      std::vector<float> y(outputs);
      cuda.download(y.data(), dy, outputs);
      const std::vector<float> none;
      const auto& residual = with_residual ? residual_values : none;
      EXPECT_EQ(outside_bound(d, ref, bias, residual, relu, y), 0);
      y[outputs / 2] += 1.0f + 0.1f * std::sqrt(float(d.r * d.s * d.c));  // planted
      EXPECT_EQ(outside_bound(d, ref, bias, residual, relu, y), 1);
      ++ran;
    }
  }
  EXPECT_EQ(ran, int(std::size(shapes)) * cuda::wgmma_conv_configs());
#endif
}

}  // namespace
}  // namespace ktune::nn
