// The CUDA network backends (nn/cuda) against float64 references: every layer call on random
// non-zero data with NaN-poisoned outputs, then the tiny network end to end against the CPU
// `reference` backend. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_family.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/reference.hpp"
#include "nn/cuda/cuda_backend.hpp"
#include "nn/cuda/register.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/nn_cuda/nn_cuda_test_util.hpp"

namespace ktune::nn {
namespace {

std::vector<std::string> cuda_backends() {
  register_cuda_backends();
  std::vector<std::string> names;
  for (const auto& [name, summary] : backend_list())
    if (name == "cublas" || name == "cudnn" || name == "ktune-cuda") names.push_back(name);
  return names;
}

using test::random_vector;
using test::relative_error;
using test::run_on;

TEST(NnCudaBackends, ConvLayersMatchTheFloat64Reference) {
  KTUNE_REQUIRE_GPU();
  const auto shapes = test::conv_shapes(5);
  for (const auto& name : cuda_backends()) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const ConvDesc& d = shapes[i];
      SCOPED_TRACE(name + " conv " + std::to_string(i));
      const auto [in, filter, bias, want] = test::conv_case(d, unsigned(i));
      const size_t out_count = want.size();
      auto backend = make_backend(name);
      backend->prepare_conv(3, d, filter.data(), bias.data());
      const auto got = run_on(*backend, in, out_count,
                              [&](float* x, float*, float* y) { backend->conv2d(3, d, x, y); });
      // ktune-cuda picks each conv at load among its library's, im2col + cuBLAS and cuDNN's and
      // names the pick.
      const auto note = dynamic_cast<cuda::CudaBackend&>(*backend).layer_note(3);
      if (name == "ktune-cuda") {
        EXPECT_TRUE(note.starts_with("pick=")) << note;
      }
      // cuDNN may pick Winograd: allow the conv2d family's bound for F(4×4, 3×3).
      const bool on_cudnn = name == "cudnn" || note.starts_with("pick=cudnn");
      const kernels::conv2d::Shape shape{d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad};
      EXPECT_LE(relative_error(got, want), kernels::conv2d::error_bound(shape, on_cudnn ? 4 : 0))
          << note;
    }
  }
}

TEST(NnCudaBackends, FullyConnectedPoolAddAndSoftmaxMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  for (const auto& name : cuda_backends()) {
    SCOPED_TRACE(name);
    auto backend = make_backend(name);
    const FcDesc fc{3, 37, 10, true};
    const auto x = random_vector(size_t(fc.batch * fc.in), 31);
    const auto w = random_vector(size_t(fc.out * fc.in), 32);
    const auto bias = random_vector(size_t(fc.out), 33);
    std::vector<float> want(size_t(fc.batch * fc.out));
    cpu::reference_fc(fc, x.data(), w.data(), bias.data(), want.data());
    backend->prepare_fc(5, fc, w.data(), bias.data());
    auto got = run_on(*backend, x, want.size(),
                      [&](float* a, float*, float* y) { backend->fc(5, fc, a, y); });
    EXPECT_LE(relative_error(got, want), 1e-5);

    // Max and average pooling with padding (3×3 stride 2 pad 1 as ResNet's stem pool).
    const PoolDesc pool{2, 7, 7, 6, 3, 2, 1};
    const auto in = random_vector(size_t(pool.n * pool.h * pool.w * pool.c), 34);
    const size_t pooled = size_t(pool.n * pool.p() * pool.q() * pool.c);
    std::vector<float> want_max, want_avg;
    test::reference_pool(pool, in, want_max, want_avg);
    got = run_on(*backend, in, pooled,
                 [&](float* a, float*, float* y) { backend->max_pool(pool, a, y); });
    EXPECT_EQ(got, want_max);
    got = run_on(*backend, in, pooled,
                 [&](float* a, float*, float* y) { backend->avg_pool(pool, a, y); });
    EXPECT_LE(relative_error(got, want_avg), 1e-6);

    // Residual add with ReLU, and softmax (rows sum to 1, ratios are exp of differences).
    const auto a = random_vector(1000, 35), b2 = random_vector(1000, 36);
    got = run_on(
        *backend, a, a.size(),
        [&](float* p, float* q, float* y) { backend->add(p, q, y, a.size(), true); }, b2);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(got[i], std::max(a[i] + b2[i], 0.0f));
    got = run_on(*backend, a, a.size(),
                 [&](float* p, float*, float* y) { backend->softmax(2, 500, p, y); });
    const auto want_soft = test::reference_softmax(a, 2, 500);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(got[i], want_soft[i], 1e-7);
  }
}

// The layers only ONNX models have: a channel concatenation of two inputs (each copy leaves the
// other input's channels as they were) and clamp, out of place and in place (ReLU6).
TEST(NnCudaBackends, ConcatAndClampMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  const int64_t pixels = 2 * 5 * 3, c1 = 3, c2 = 5, c = c1 + c2;
  const auto a = random_vector(size_t(pixels * c1), 41), b = random_vector(size_t(pixels * c2), 42);
  std::vector<float> want(size_t(pixels * c));
  for (int64_t px = 0; px < pixels; ++px) {
    std::copy_n(a.begin() + px * c1, c1, want.begin() + px * c);
    std::copy_n(b.begin() + px * c2, c2, want.begin() + px * c + c1);
  }
  const auto x = random_vector(1000, 43);
  for (const auto& name : cuda_backends()) {
    SCOPED_TRACE(name);
    auto backend = make_backend(name);
    auto got = run_on(
        *backend, a, want.size(),
        [&](float* p, float* q, float* y) {
          backend->copy_channels(p, c1, y, c, 0, pixels);
          backend->copy_channels(q, c2, y, c, c1, pixels);
        },
        b);
    EXPECT_EQ(got, want);
    got = run_on(*backend, x, x.size(),
                 [&](float* p, float*, float* y) { backend->clamp(p, y, x.size(), -0.25f, 0.5f); });
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], std::min(std::max(x[i], -0.25f), 0.5f));
    got = run_on(*backend, x, x.size(), [&](float* p, float*, float* y) {
      backend->clamp(p, p, x.size(), 0.0f, 6.0f);
      backend->add(p, p, y, x.size(), false);  // y = 2 · the clamped input, read back in place
    });
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], 2 * std::max(x[i], 0.0f));
  }
}

// Every precision (fp32: 1e-4; tf32 / bf16: 32u, a smoke tolerance since errors compound over
// the layers and no bound through a network is derived; the per-layer bounds are
// test_cuda_precision.cpp's), twice through the same buffers.
TEST(NnCudaBackends, TinyNetworkMatchesTheReferenceBackend) {
  KTUNE_REQUIRE_GPU();
  register_cuda_backends();
  const auto tiny = test::tiny_case(3, 7);
  const auto& [net, weights, input, reference] = tiny;
  const auto& [want, want_probs] = reference;
  const size_t count = size_t(net.batch * net.classes);
  for (const auto& [name, summary] : backend_list()) {
    auto backend = make_backend(name);
    const auto* device = dynamic_cast<const cuda::CudaBackend*>(backend.get());
    if (!device) continue;
    SCOPED_TRACE(name);
    const cuda::Precision p = device->precision();
    const double tolerance = p == cuda::Precision::fp32 ? 1e-4 : 32 * cuda::input_roundoff(p);
    Engine engine(net, weights, *backend);
    engine.set_input(input.data());
    std::vector<float> got(count, std::nanf("")), probs(count, std::nanf(""));
    for (int pass = 0; pass < 2; ++pass) {  // the second pass reuses every buffer
      engine.forward();
      engine.logits(got.data());
      engine.probabilities(probs.data());
      EXPECT_LE(relative_error(got, want), tolerance);
      EXPECT_LE(relative_error(probs, want_probs), tolerance);
      EXPECT_GT(engine.last_ms(), 0.0);
    }
  }
}

}  // namespace
}  // namespace ktune::nn
