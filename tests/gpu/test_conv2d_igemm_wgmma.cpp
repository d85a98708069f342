// The Hopper tensor-core conv2d kind (cuda_igemm_wgmma, conv2d_wgmma.cuh compiled by NVRTC for
// sm_90a) on the GPU: every config of the kind runs every layer of a set covering 1x1 stride 1
// and 2, 3x3 stride 1 and 2, the 7x7 stride-2 pad-3 shape, pad 0 / 1 / 2 / 3, odd heights and
// widths, batch 1 and > 1 (batches that are not a multiple of a block's 2 or 4 images), k off the
// bn widths, in bf16, fp16 and tf32 (c % 32 layers too), through the backend's sessions: random
// data (never zeros), output
// poisoned with NaN before the verified run, checked against the family's float64 reference
// within the precision's bound (the cuda_igemm_mma kind's). A planted error and an unwritten
// output must fail the same check; the nvcc sm_90a instantiations (aot_check_wgmma.cu) verify too
// and match NVRTC's output; the kind refuses (recorded, not fatal) what it cannot serve.
// Needs an sm_90 device (H100, H200); skipped elsewhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_config.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_kernels.hpp"
#include "kernels/conv2d/cuda/conv2d_wgmma_aot.hpp"
#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/family.hpp"
#include "tests/gpu/conv2d_tc_checks.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace ktune::kernels::conv2d::cuda {
namespace {

using gemm::Precision;

#define KTUNE_REQUIRE_SM90()                                                     \
  KTUNE_REQUIRE_GPU();                                                           \
  {                                                                              \
    bool hopper = false;                                                         \
    ASSERT_EQ(igemm_wgmma_device_ok(hopper), cudaSuccess);                       \
    if (!hopper) GTEST_SKIP() << "not an sm_90 device: wgmma conv test skipped"; \
  }

using test::conv2d_family;
using test::in_precision;

std::vector<Config> kind_configs(const Family& fam) {
  return test::kind_configs(fam, "cuda_igemm_wgmma");
}

// n, h, w, c, k, r, s, stride, pad: c % 64 == 0 and k even, as the kernel needs.
std::vector<Shape> layers() {
  return {
      {1, 14, 14, 64, 128, 1, 1, 1, 0},  // 1x1
      {2, 13, 11, 64, 72, 1, 1, 2, 0},   // 1x1 stride 2 (ResNet's projection), odd sizes
      {1, 13, 17, 64, 64, 3, 3, 1, 1},   // 3x3 stride 1, odd sizes
      {3, 15, 13, 128, 96, 3, 3, 2, 1},  // 3x3 stride 2, batch 3, k off 64 / 128 / 256
      {1, 21, 19, 64, 64, 7, 7, 2, 3},   // 7x7 stride 2 pad 3
      {2, 7, 7, 192, 66, 3, 3, 1, 1},    // deep reduction (K = 1728), k = 66
      {1, 5, 6, 64, 256, 3, 3, 1, 2},    // pad 2: output larger than the input
      {5, 9, 9, 64, 130, 3, 3, 2, 0},    // batch 5 (not a multiple of 2 or 4), no padding
  };
}

TimingPolicy once() {
  TimingPolicy p;
  p.warmups = 0, p.min_reps = 1, p.max_reps = 1, p.budget_ms = 0;
  return p;
}

TEST(Conv2dIgemmWgmma, EveryConfigVerifiesEveryLayerInBf16AndFp16) {
  KTUNE_REQUIRE_SM90();
  const Family& fam = conv2d_family();
  auto backend = open_backend(fam, "cuda:0");
  const std::vector<Config> configs = kind_configs(fam);
  ASSERT_EQ(configs.size(), 40u);
  backend->prepare(configs);
  std::map<Precision, double> worst;
  ASSERT_NO_FATAL_FAILURE(
      test::verify_every_config_in_16_bit(fam, *backend, configs, layers(), worst));
  // fp16 keeps 3 more mantissa bits than bf16: its errors are several times smaller.
  EXPECT_LT(worst[Precision::fp16] * 3, worst[Precision::bf16]);
}

// tf32: FP32 data read as TF32 (truncated by the tensor cores), 32 channels a K tile, so layers
// with c % 32 == 0 but not % 64 run too.
TEST(Conv2dIgemmWgmma, EveryConfigVerifiesEveryLayerInTf32) {
  KTUNE_REQUIRE_SM90();
  const Family& fam = conv2d_family();
  auto backend = open_backend(fam, "cuda:0");
  const std::vector<Config> configs = kind_configs(fam);
  backend->prepare(configs);
  std::vector<Shape> tf32_layers = layers();
  tf32_layers.push_back({2, 9, 10, 32, 64, 3, 3, 1, 1});   // one K tile a tap
  tf32_layers.push_back({1, 12, 12, 96, 40, 3, 3, 2, 1});  // three, stride 2
  std::map<Precision, double> worst;
  ASSERT_NO_FATAL_FAILURE(
      test::verify_every_config(fam, *backend, configs, tf32_layers, {Precision::tf32}, worst));
  // The tensor cores drop 13 of FP32's mantissa bits: errors far above an FP32 kernel's bound
  // (would the kernel compute in FP32, the tf32 bound would pass it unnoticed).
  EXPECT_GT(worst[Precision::tf32], error_bound(tf32_layers[2]));
}

// The persistent kind (cuda_igemm_wgmma_persist: one block an SM walks the work items) in every
// precision, on the layers above and one with more output tiles than an H100 / H200 has SMs
// (147 to 192 tiles by tile shape), so that every block computes several work items.
TEST(Conv2dIgemmWgmma, EveryPersistentConfigVerifiesEveryLayerInEachPrecision) {
  KTUNE_REQUIRE_SM90();
  const Family& fam = conv2d_family();
  auto backend = open_backend(fam, "cuda:0");
  const std::vector<Config> configs = test::kind_configs(fam, "cuda_igemm_wgmma_persist");
  ASSERT_EQ(configs.size(), 40u);
  EXPECT_EQ(
      igemm_wgmma_name(parse_cuda_conv_config(fam.space().to_string(configs[0])), Precision::bf16),
      "ktune_conv2d_wgmma<4,8,4,64,3,2,KtuneConvWgOutF32,1>");
  backend->prepare(configs);
  std::vector<Shape> shapes = layers();
  shapes.push_back({24, 28, 28, 64, 64, 1, 1, 1, 0});
  std::map<Precision, double> worst;
  ASSERT_NO_FATAL_FAILURE(test::verify_every_config(
      fam, *backend, configs, shapes, {Precision::bf16, Precision::fp16, Precision::tf32}, worst));
  EXPECT_LT(worst[Precision::fp16] * 3, worst[Precision::bf16]);
}

// One launch on seeded random data of s (rounded to its 16-bit precision, FP32 for tf32), output
// poisoned with NaN: launch(d, maps, y) runs the kernel; returns its output and the float64
// reference of the FP32 data.
struct Checked {
  std::vector<float> y;
  std::vector<double> ref;
};
template <typename Launch>
Checked run_once(const Shape& s, const CudaConvConfig& g, Launch launch) {
  const std::vector<float> x = gemm::random_matrix(size_t(s.input_elements()), 5);
  const std::vector<float> w = gemm::random_matrix(size_t(s.filter_elements()), 6);
  const auto dx = test::upload_as_read(x, s.precision, "x");
  const auto dw = test::upload_as_read(w, s.precision, "w");
  ktune::cuda::DeviceBuffer<float> dy(size_t(s.output_elements()), "y");
  Checked out;
  EXPECT_EQ(cudaMemset(dy.data(), 0xFF, dy.bytes()), cudaSuccess);  // NaN poison
  const ConvDims d{s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, s.precision};
  EXPECT_EQ(igemm_wgmma_refusal(g, d, dx.data(), dw.data()), "");
  WgmmaConvMaps maps;
  EXPECT_TRUE(encode_igemm_wgmma_maps(g, d, dx.data(), dw.data(), maps));
  const ConvLaunch l = launch(d, maps, dy.data());
  EXPECT_FALSE(l.refused) << l.message;
  EXPECT_EQ(l.error, cudaSuccess) << l.message;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  out.y.resize(dy.size());
  EXPECT_EQ(cudaMemcpy(out.y.data(), dy.data(), dy.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  out.ref = reference_conv2d(s, x.data(), w.data());
  return out;
}

// The check the sessions apply (relative Frobenius error against the float64 reference of the
// FP32 data, within error_bound) passes the kernel's output and fails it with one planted error
// or with one output the kernel did not write (left at the NaN poison).
TEST(Conv2dIgemmWgmma, APlantedErrorOrAnUnwrittenOutputFailsTheBound) {
  KTUNE_REQUIRE_SM90();
  register_builtin();
  const Shape s = in_precision({2, 11, 9, 64, 96, 3, 3, 1, 1}, Precision::bf16);
  const CudaConvConfig g = parse_cuda_conv_config("kind=cuda_igemm_wgmma;tp=8;tq=8;bn=64;st=4");
  ASSERT_TRUE(g.valid);
  ConvKernelSet kernels("sm_90");
  const void* kernel = kernels.igemm_wgmma(g, s.precision).function();
  ASSERT_FALSE(igemm_wgmma_opt_in(g, kernel).refused);
  const Checked c = run_once(s, g, [&](const ConvDims& d, const WgmmaConvMaps& maps, float* y) {
    return launch_igemm_wgmma(g, kernel, d, maps, y, nullptr);
  });
  const double bound = error_bound(s), error = relative_error(s, c.y.data(), c.ref);
  EXPECT_LE(error, bound);
  EXPECT_GT(error, 0.0);
  double norm = 0;
  for (double v : c.ref) norm += v * v;
  std::vector<float> planted = c.y;
  planted[planted.size() / 3] += float(3 * bound * std::sqrt(norm));  // 3x the bound alone
  EXPECT_GT(relative_error(s, planted.data(), c.ref), bound);
  std::vector<float> unwritten = c.y;
  unwritten.back() = std::numeric_limits<float>::quiet_NaN();
  EXPECT_GT(relative_error(s, unwritten.data(), c.ref), bound);
}

// The nvcc sm_90a instantiations (aot_check_wgmma.cu, the deployed path) through the same
// launcher, on a strided, padded, odd-sized batch-3 layer: within the bound, and equal to the
// NVRTC kernel of the same config to the bit (one header, one target, one compiler version).
TEST(Conv2dIgemmWgmma, TheNvccInstantiationsVerifyAndMatchNvrtc) {
  KTUNE_REQUIRE_SM90();
#if KTUNE_HAVE_CONV_WGMMA_AOT
  register_builtin();
  ConvKernelSet kernels("sm_90");
  ASSERT_GE(kWgmmaAotInstanceCount, 9);
  for (int i = 0; i < kWgmmaAotInstanceCount; ++i) {
    const WgmmaAotInstance& aot = kWgmmaAotInstances[i];
    const CudaConvConfig g = parse_cuda_conv_config(aot.config);
    ASSERT_TRUE(g.valid) << aot.config;
    const Shape s = in_precision({3, 15, 13, 128, 96, 3, 3, 2, 1}, aot.precision);
    ASSERT_FALSE(aot.opt_in().refused) << aot.config;
    const Checked nvcc = run_once(s, g, [&](const ConvDims& d, const WgmmaConvMaps& m, float* y) {
      return aot.launch(d, m, y, nullptr);
    });
    EXPECT_LE(relative_error(s, nvcc.y.data(), nvcc.ref), error_bound(s)) << aot.config;
    const void* kernel = kernels.igemm_wgmma(g, s.precision).function();
    ASSERT_FALSE(igemm_wgmma_opt_in(g, kernel).refused);
    const Checked nvrtc = run_once(s, g, [&](const ConvDims& d, const WgmmaConvMaps& m, float* y) {
      return launch_igemm_wgmma(g, kernel, d, m, y, nullptr);
    });
    EXPECT_EQ(0, std::memcmp(nvcc.y.data(), nvrtc.y.data(), nvcc.y.size() * sizeof(float)))
        << aot.config;
  }
#else
  GTEST_SKIP() << "built without a CUDA compiler: no nvcc instantiations";
#endif
}

TEST(Conv2dIgemmWgmma, RefusesWhatTheKernelCannotServe) {
  KTUNE_REQUIRE_SM90();
  const Family& fam = conv2d_family();
  const Space& space = fam.space();
  auto backend = open_backend(fam, "cuda:0");
  const Config wg = space.parse("kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=4");
  backend->prepare({wg});
  const auto refused = [&](const Shape& s, const std::string& says) {
    auto session = backend->open(problem_of(s));
    const Outcome o = session->run(wg, once());
    EXPECT_EQ(o.status, Status::refused) << problem_of(s).key() << ": " << o.message;
    EXPECT_NE(o.message.find(says), std::string::npos) << o.message;
  };
  refused({1, 10, 10, 64, 64, 3, 3, 1, 1}, "tf32 / bf16 / fp16 problems only");  // FP32
  refused(in_precision({1, 10, 10, 32, 64, 3, 3, 1, 1}, Precision::bf16), "c % 64");
  refused(in_precision({1, 10, 10, 96, 64, 3, 3, 1, 1}, Precision::fp16), "c % 64");
  refused(in_precision({1, 10, 10, 48, 64, 3, 3, 1, 1}, Precision::tf32), "c % 32");
  refused(in_precision({1, 10, 10, 64, 63, 3, 3, 1, 1}, Precision::bf16), "even k");
  refused(in_precision({1, 40, 40, 64, 64, 1, 1, 9, 0}, Precision::bf16), "stride");
  // The same session runs the kind where it can.
  auto ok =
      backend->open(problem_of(in_precision({1, 10, 10, 64, 64, 3, 3, 1, 1}, Precision::bf16)));
  EXPECT_EQ(ok->run(wg, once()).status, Status::ok);
  auto ok_tf32 =
      backend->open(problem_of(in_precision({1, 10, 10, 32, 64, 3, 3, 1, 1}, Precision::tf32)));
  EXPECT_EQ(ok_tf32->run(wg, once()).status, Status::ok);
  // Misaligned tensors (TMA needs 16-byte bases) and another device's architecture.
  const CudaConvConfig g = parse_cuda_conv_config(space.to_string(wg));
  const ConvDims d{1, 10, 10, 64, 64, 3, 3, 1, 1, Precision::bf16};
  alignas(16) static unsigned char bytes[64];
  EXPECT_NE(igemm_wgmma_refusal(g, d, bytes + 2, bytes).find("16-byte"), std::string::npos);
  EXPECT_EQ(igemm_wgmma_refusal(g, d, bytes, bytes), "");
  EXPECT_FALSE(ConvKernelSet("sm_80").hopper());
  EXPECT_TRUE(ConvKernelSet("sm_90").hopper());
}

}  // namespace
}  // namespace ktune::kernels::conv2d::cuda
