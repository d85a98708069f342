// The CUDA network backends in tf32 and bf16 (nn/cuda/precision.hpp) against float64
// references, each output within its precision's derived bound (docs/networks.md,
// "Precisions"): a K-term dot product whose inputs carry relative errors ≤ u (2^-10 tf32,
// 2^-8 bf16), exact products, FP32 accumulation (≤ 2^-23 per addition, truncating adders
// allowed) and, in bf16 (and where ktune-cuda-tf32 keeps its activations rounded to TF32, u_out
// = 2^-11; those outputs must be TF32 values), the output rounded once more:
//   |got − want| ≤ e + u_out·(|want| + e),  e = (2u + u² + 2·(K+1)·2^-24)·(Σ|w||x| + |b|).
// Skips without a GPU (the precision names are checked everywhere).
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/reference.hpp"
#include "nn/cuda/cuda_backend.hpp"
#include "nn/cuda/register.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/nn_cuda/nn_cuda_test_util.hpp"

namespace ktune::nn {
namespace {

using cuda::Precision;
using test::random_vector;
using test::relative_error;
using test::run_on;

// The tf32 and bf16 backends of this build.
std::vector<std::string> precision_backends() {
  register_cuda_backends();
  std::vector<std::string> names;
  for (const auto& [name, summary] : backend_list())
    if (name.ends_with("-tf32") || name.ends_with("-bf16")) names.push_back(name);
  return names;
}

bool cuda_has(const std::string& backend) {
  for (const auto& [name, summary] : backend_list())
    if (name == backend) return true;
  return false;
}

Precision precision_of(const std::string& backend) {
  return cuda::parse_precision(backend.substr(backend.size() - 4));
}

std::vector<float> absolute(std::vector<float> v) {
  for (auto& x : v) x = std::fabs(x);
  return v;
}

// The unit roundoff of the activations `backend` stores: its precision's, or TF32's (2^-11,
// nearest) where it keeps them rounded to TF32 (ktune-cuda-tf32).
double stored_roundoff(const Backend& backend, Precision p) {
  return dynamic_cast<const cuda::CudaBackend&>(backend).tf32_storage() ? std::ldexp(1.0, -11)
                                                                        : cuda::storage_roundoff(p);
}

// Outputs that are not TF32 values (a low mantissa bit set) where `backend` stores TF32.
int64_t not_tf32_where_stored(const Backend& backend, const std::vector<float>& got) {
  if (!dynamic_cast<const cuda::CudaBackend&>(backend).tf32_storage()) return 0;
  return test::not_tf32_values(got);
}

// Elementwise check against the bound above, the output stored with unit roundoff u_out; `dot`
// holds Σ|w||x| + |b| per output.
void expect_within(const std::vector<float>& got, const std::vector<float>& want,
                   const std::vector<float>& dot, int64_t terms, Precision p, double u_out) {
  const double u = cuda::input_roundoff(p);
  const double factor = 2 * u + u * u + 2.0 * double(terms + 1) * std::ldexp(1.0, -24);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = factor * dot[i];
    const double bound = e + u_out * (std::fabs(want[i]) + e);
    if (!(std::fabs(double(got[i]) - want[i]) <= bound) && ++bad <= 3)
      ADD_FAILURE() << "output " << i << ": " << got[i] << " vs " << want[i] << " (bound " << bound
                    << ")";
  }
  EXPECT_EQ(bad, 0);
}

float round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

std::vector<float> rounded(std::vector<float> v) {
  for (auto& x : v) x = round_bf16(x);
  return v;
}

TEST(NnCudaPrecision, NamesParseAndBadOnesAreRefused) {
  EXPECT_EQ(cuda::parse_precision("tf32"), Precision::tf32);
  EXPECT_EQ(cuda::parse_precision("bf16"), Precision::bf16);
  EXPECT_STREQ(cuda::precision_name(Precision::fp32), "fp32");
  try {
    cuda::parse_precision("fp8");
    ADD_FAILURE() << "fp8 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'fp8'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cuda::input_roundoff(Precision::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(cuda::storage_roundoff(Precision::tf32), std::ldexp(1.0, -24));
}

TEST(NnCudaPrecision, ConvAndFcWithinThePrecisionBound) {
  KTUNE_REQUIRE_GPU();
  const auto shapes = test::conv_shapes(64);  // the VGG 3×3 deep: K = 576
  for (const auto& name : precision_backends()) {
    const Precision p = precision_of(name);
    double largest = 0;  // the largest relative error seen: bf16 must show its rounding
    for (size_t i = 0; i < shapes.size(); ++i) {
      const ConvDesc& d = shapes[i];
      SCOPED_TRACE(name + " conv " + std::to_string(i));
      const auto [in, filter, bias, want] = test::conv_case(d, unsigned(i));
      const size_t out_count = want.size();
      std::vector<float> dot(out_count);
      cpu::reference_conv2d(d, absolute(in).data(), absolute(filter).data(), absolute(bias).data(),
                            dot.data());
      auto backend = make_backend(name);
      backend->prepare_conv(3, d, filter.data(), bias.data());
      const auto got = run_on(*backend, in, out_count,
                              [&](float* x, float*, float* y) { backend->conv2d(3, d, x, y); });
      const auto note = dynamic_cast<cuda::CudaBackend&>(*backend).layer_note(3);
      // ktune-cuda-tf32 / -bf16 time their path against im2col + cuBLAS (and cuDNN's conv where
      // the build has cuDNN) and say which.
      if (name.starts_with("ktune-cuda-")) {
        EXPECT_NE(note.find("pick="), std::string::npos) << note;
        EXPECT_NE(note.find("cublas "), std::string::npos) << note;
        if (cuda_has("cudnn-" + std::string(name.substr(11)))) {
          EXPECT_NE(note.find("cudnn "), std::string::npos) << note;
        }
      }
      if (note.find("WINOGRAD") != std::string::npos || note.find("FFT") != std::string::npos) {
        // A transform method's error is not a dot product's: an allowance, not a derived bound.
        EXPECT_LE(relative_error(got, want), 64 * cuda::input_roundoff(p)) << note;
      } else {
        expect_within(got, want, dot, d.r * d.s * d.c, p, stored_roundoff(*backend, p));
      }
      EXPECT_EQ(not_tf32_where_stored(*backend, got), 0);
      largest = std::max(largest, relative_error(got, want));
    }
    SCOPED_TRACE(name + " fc");
    const FcDesc fc{3, 300, 10, true};
    const auto x = random_vector(size_t(fc.batch * fc.in), 31);
    const auto w = random_vector(size_t(fc.out * fc.in), 32);
    const auto bias = random_vector(size_t(fc.out), 33);
    std::vector<float> want(size_t(fc.batch * fc.out)), dot(want.size());
    cpu::reference_fc(fc, x.data(), w.data(), bias.data(), want.data());
    cpu::reference_fc(fc, absolute(x).data(), absolute(w).data(), absolute(bias).data(),
                      dot.data());
    auto backend = make_backend(name);
    backend->prepare_fc(5, fc, w.data(), bias.data());
    const auto got = run_on(*backend, x, want.size(),
                            [&](float* a, float*, float* y) { backend->fc(5, fc, a, y); });
    expect_within(got, want, dot, fc.in, p, stored_roundoff(*backend, p));
    EXPECT_EQ(not_tf32_where_stored(*backend, got), 0);
    if (name.starts_with("ktune-cuda-")) {  // the FC layer picked too: gemm_ex or cuBLAS
      const auto fc_note = dynamic_cast<cuda::CudaBackend&>(*backend).layer_note(5);
      EXPECT_NE(fc_note.find("pick="), std::string::npos) << fc_note;
    }
    largest = std::max(largest, relative_error(got, want));
    // FP32 work would stay near 1e-7: the bf16 engine really rounds to bf16.
    if (p == Precision::bf16) {
      EXPECT_GT(largest, 1e-4);
    }
  }
}

// The bf16 engine's other layers round once: max pooling, the add and clamp equal the bf16
// rounding of the exact result on bf16 inputs; average pooling and softmax within one bf16
// rounding (plus FP32 arithmetic). The tiny network end to end in every precision: in
// test_cuda_backends.cpp.
TEST(NnCudaPrecision, Bf16LayersRoundOnce) {
  KTUNE_REQUIRE_GPU();
  for (const auto& name : precision_backends()) {
    if (precision_of(name) != Precision::bf16) continue;
    SCOPED_TRACE(name);
    auto backend = make_backend(name);
    const PoolDesc pool{2, 7, 7, 6, 3, 2, 1};
    const auto in = rounded(random_vector(size_t(pool.n * pool.h * pool.w * pool.c), 34));
    const size_t pooled = size_t(pool.n * pool.p() * pool.q() * pool.c);
    std::vector<float> want_max, want_avg;
    test::reference_pool(pool, in, want_max, want_avg);
    auto got = run_on(*backend, in, pooled,
                      [&](float* a, float*, float* y) { backend->max_pool(pool, a, y); });
    EXPECT_EQ(got, want_max);
    got = run_on(*backend, in, pooled,
                 [&](float* a, float*, float* y) { backend->avg_pool(pool, a, y); });
    for (size_t i = 0; i < pooled; ++i)
      EXPECT_NEAR(got[i], want_avg[i], std::ldexp(1.0, -8) * std::fabs(want_avg[i]) + 1e-6);

    const auto a = rounded(random_vector(1000, 35)), b2 = rounded(random_vector(1000, 36));
    got = run_on(
        *backend, a, a.size(),
        [&](float* p, float* q, float* y) { backend->add(p, q, y, a.size(), true); }, b2);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(got[i], round_bf16(std::max(a[i] + b2[i], 0.f)));
    // 999 values take the one-value-per-thread kernel, 1000 the eight-wide one.
    got = run_on(
        *backend, a, a.size(),
        [&](float* p, float* q, float* y) { backend->add(p, q, y, a.size() - 1, true); }, b2);
    for (size_t i = 0; i + 1 < a.size(); ++i)
      EXPECT_EQ(got[i], round_bf16(std::max(a[i] + b2[i], 0.f)));
    got = run_on(*backend, a, a.size(),
                 [&](float* p, float*, float* y) { backend->clamp(p, y, a.size(), -0.25f, 0.5f); });
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(got[i], std::min(std::max(a[i], -0.25f), 0.5f));
    got = run_on(*backend, a, a.size(),
                 [&](float* p, float*, float* y) { backend->softmax(2, 500, p, y); });
    const auto want_soft = test::reference_softmax(a, 2, 500);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(got[i], want_soft[i], (std::ldexp(1.0, -8) + 1e-5) * want_soft[i]);
  }
}

// ktune's tf32 engine end to end, with its per-layer cuDNN picks and on gemm_ex alone (TF32
// rounding on every conv and FC, so its error must exceed FP32's): the tiny network's logits on
// three seeded weight / input sets within tf32's network tolerance (32u, as in
// test_cuda_backends.cpp: no bound through a network is derived) of the float64 reference, and
// every image's top-5 classes the reference's, in the same order.
TEST(NnCudaPrecision, Tf32EngineAgreesWithTheReferenceAndKeepsTheTop5) {
  KTUNE_REQUIRE_GPU();
  register_cuda_backends();
  if (!cuda::ktune_backend_serves(Precision::tf32)) GTEST_SKIP() << "no tf32 gemm_ex selector";
  const double tolerance = 32 * cuda::input_roundoff(Precision::tf32);
  for (const bool cudnn_layers : {true, false}) {
    for (const uint64_t seed : {7, 11, 13}) {
      const auto tiny = test::tiny_case(4, seed);
      const auto& [net, weights, input, reference] = tiny;
      const std::vector<float>& want = reference.logits;
      auto backend = cuda::make_ktune_backend(Precision::tf32, cudnn_layers);
      SCOPED_TRACE(backend->name() + " seed " + std::to_string(seed));
      Engine engine(net, weights, *backend);
      engine.set_input(input.data());
      engine.forward();
      std::vector<float> got(want.size(), std::nanf(""));
      engine.logits(got.data());
      const double error = relative_error(got, want);
      EXPECT_LE(error, tolerance);
      if (!cudnn_layers) {
        EXPECT_GT(error, 1e-5) << "no TF32 rounding seen";
      }
      for (int64_t b = 0; b < net.batch; ++b)
        EXPECT_EQ(top_k(got.data() + b * net.classes, net.classes, 5),
                  top_k(want.data() + b * net.classes, net.classes, 5))
            << "image " << b;
    }
  }
}

}  // namespace
}  // namespace ktune::nn
