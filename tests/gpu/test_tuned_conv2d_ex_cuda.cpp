// ktune::conv2d_ex in bf16, in fp16 and (where the library ships a tf32 selector) in tf32 (the
// CUDA tuned conv2d library's selectors of those precisions: the tensor-core kinds cuda_igemm_mma
// / cuda_igemm_wgmma and the vendor candidate cuDNN) through the public API: every shipped config,
// and the selector's picks, on small layers that reach each kind (c % 64 == 0 for wgmma, the
// 3-channel stem, strides, 1x1), against the float64 host reference of the FP32 data the 16-bit
// inputs were rounded from (tf32: read as they are), judged by the family's bound of the
// precision (conv2d_family.hpp: FP32 term + 4u, u = 2^-8 bf16, 2^-11 fp16, 2^-10 tf32) on
// NaN-poisoned output between guards; a planted error must fail that check; argument errors
// (checked before any CUDA call).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/cuda.hpp"
#include "tests/gpu/conv2d_tc_checks.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;
namespace kg = ktune::kernels::gemm;
using conv::cuda::test::cudnn_index;
using conv::cuda::test::is_vendor;
using conv::cuda::test::upload_as_read;
constexpr size_t kGuard = 64;
constexpr float kGuardValue = -12345.0f;
constexpr auto kBf16 = ktune::Conv2dPrecision::bf16;
constexpr auto kFp16 = ktune::Conv2dPrecision::fp16;
constexpr auto kTf32 = ktune::Conv2dPrecision::tf32;

// The family's precision of a conv2d_ex precision (tf32, bf16 or fp16: the codes are shared), and
// its name.
kg::Precision data_precision(ktune::Conv2dPrecision p) { return kg::Precision(int(p)); }
const char* precision_name(ktune::Conv2dPrecision p) {
  return kg::precision_name(data_precision(p));
}

// A layer on the device: random FP32 data, uploaded as the precision reads it (upload_as_read),
// output NaN between guards.
struct DeviceLayer {
  explicit DeviceLayer(const conv::Shape& s, ktune::Conv2dPrecision p = kBf16)
      : shape(s),
        input(kg::random_matrix(size_t(s.input_elements()), 5)),
        filter(kg::random_matrix(size_t(s.filter_elements()), 6)),
        x(upload_as_read(input, data_precision(p), "input")),
        w(upload_as_read(filter, data_precision(p), "filter")),
        reference(conv::reference_conv2d(s, input.data(), filter.data())) {
    shape.precision = data_precision(p);
    std::vector<float> out(size_t(s.output_elements()) + 2 * kGuard, kGuardValue);
    std::fill(out.begin() + kGuard, out.end() - kGuard, std::numeric_limits<float>::quiet_NaN());
    y = ktune::test::upload(out, "output");
  }
  float* output() const { return y.data() + kGuard; }
  std::vector<float> result() const {
    const std::vector<float> out = ktune::test::download(y);
    for (size_t i = 0; i < kGuard; ++i) {
      EXPECT_EQ(out[i], kGuardValue) << "guard before the output, " << i;
      EXPECT_EQ(out[out.size() - 1 - i], kGuardValue) << "guard after the output, " << i;
    }
    return {out.begin() + kGuard, out.end() - kGuard};
  }
  double error(const std::vector<float>& out) const {
    return conv::relative_error(shape, out.data(), reference);
  }
  conv::Shape shape;
  std::vector<float> input, filter;
  ktune::cuda::DeviceBuffer<unsigned char> x, w;
  std::vector<double> reference;
  ktune::cuda::DeviceBuffer<float> y;
};

std::string name(const conv::Shape& s) {
  return "n=" + std::to_string(s.n) + " " + std::to_string(s.h) + "x" + std::to_string(s.w) +
         " c=" + std::to_string(s.c) + " k=" + std::to_string(s.k) + " " + std::to_string(s.r) +
         "x" + std::to_string(s.s) + "/" + std::to_string(s.stride) +
         " pad=" + std::to_string(s.pad);
}

// Small layers of the networks' kinds: the 3-channel stem (mma's element loader, cuDNN), 3x3
// stride 1 and 2, 1x1 and 7x7, c % 64 == 0 (wgmma) and c % 8 == 0 only (mma's 16-byte loader),
// odd sizes past the tiles, batch 1 and 3.
std::vector<conv::Shape> test_layers() {
  return {{1, 15, 13, 3, 64, 3, 3, 1, 1},   {1, 23, 21, 3, 64, 7, 7, 2, 3},
          {1, 14, 14, 64, 64, 3, 3, 1, 1},  {3, 9, 11, 64, 128, 3, 3, 1, 1},
          {2, 12, 12, 128, 64, 1, 1, 1, 0}, {1, 13, 13, 64, 256, 3, 3, 2, 1},
          {2, 7, 7, 256, 128, 1, 1, 2, 0},  {1, 10, 9, 24, 40, 3, 3, 1, 1}};
}

void every_shipped_config_matches_the_reference(ktune::Conv2dPrecision p) {
  const auto& info = ktune::tuned_conv2d_ex_info_cuda(p);
  ASSERT_GT(info.num_configs, 0) << "the library ships no " << precision_name(p) << " selector";
  EXPECT_STREQ(info.backend, "cuda");
  for (int i = 0; i < info.num_configs; ++i) {
    int ran = 0;
    for (const conv::Shape& s : test_layers()) {
      DeviceLayer l(s, p);
      const bool applies = ktune::tuned_conv2d_ex_run_config_cuda(
          p, i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, l.x.data(), l.w.data(),
          l.output(), nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << info.configs[i] << " on " << name(s);
      if (!applies) continue;
      ++ran;
      const double error = l.error(l.result());
      // cuDNN's pick may be a Winograd / FFT algorithm: the family's 16-bit transform factor
      // (F(2x2)'s 8, as the sweep's cudnn row is judged); ktune's 16-bit kernels get none.
      const bool vendor = is_vendor(info.configs[i]);
      const double bound = conv::error_bound(l.shape, vendor ? 2 : 0);
      EXPECT_LE(error, bound) << info.configs[i] << " on " << name(s);
      EXPECT_GT(error, 0.0) << info.configs[i] << " on " << name(s) << ": " << precision_name(p)
                            << " is not exact";
      std::printf("conv2d_ex %s config %d %s on %s: relative error %.3g (bound %.3g)\n",
                  precision_name(p), i, info.configs[i], name(s).c_str(), error, bound);
    }
    EXPECT_GT(ran, 0) << info.configs[i] << " ran on none of the test layers";
  }
}

TEST(TunedConv2dExCuda, EveryShippedBf16ConfigMatchesTheReferenceOnEveryLayerItRuns) {
  KTUNE_REQUIRE_GPU();
  every_shipped_config_matches_the_reference(kBf16);
}

TEST(TunedConv2dExCuda, EveryShippedFp16ConfigMatchesTheReferenceOnEveryLayerItRuns) {
  KTUNE_REQUIRE_GPU();
  every_shipped_config_matches_the_reference(kFp16);
}

void picks_match_the_reference_and_a_planted_error_fails(ktune::Conv2dPrecision p) {
  const auto& info = ktune::tuned_conv2d_ex_info_cuda(p);
  ASSERT_GT(info.num_configs, 0);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const conv::Shape& s : test_layers()) {
    const int pick =
        ktune::tuned_conv2d_ex_choice_cuda(p, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad);
    ASSERT_GE(pick, 0);
    ASSERT_LT(pick, info.num_configs);
    DeviceLayer l(s, p);
    // Whether the pick runs the layer (wgmma refuses c % 64 != 0: the fallback order serves it
    // then, maybe with cuDNN); the output poisoned again after this probe.
    const bool pick_runs =
        ktune::tuned_conv2d_ex_run_config_cuda(p, pick, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride,
                                               s.pad, l.x.data(), l.w.data(), l.output(), nullptr);
    ASSERT_EQ(cudaMemset(l.output(), 0xFF, size_t(s.output_elements()) * 4), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name(s);
    ktune::conv2d_ex(p, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, l.x.data(), l.w.data(),
                     l.output(), reinterpret_cast<ktune::cudaStream_t>(stream));
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << name(s);
    std::vector<float> out = l.result();
    // cuDNN (picked, or maybe served by the fallback order) may run a Winograd algorithm.
    const bool vendor = is_vendor(info.configs[pick]);
    const double bound = conv::error_bound(l.shape, vendor || !pick_runs ? 2 : 0);
    EXPECT_LE(l.error(out), bound) << info.configs[pick] << " on " << name(s);
    // Planted: one output moved by twice the bound's share of the reference's norm.
    double norm = 0;
    for (double v : l.reference) norm += v * v;
    out[out.size() / 2] += float(2 * bound * std::sqrt(norm));
    EXPECT_GT(l.error(out), bound)
        << "a planted error passed the " << precision_name(p) << " check on " << name(s);
  }
  cudaStreamDestroy(stream);
}

TEST(TunedConv2dExCuda, TheSelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  picks_match_the_reference_and_a_planted_error_fails(kBf16);
}

TEST(TunedConv2dExCuda, TheFp16SelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  picks_match_the_reference_and_a_planted_error_fails(kFp16);
}

// tf32 (FP32 data, TF32 tensor-core math): the shipped library has a tf32 selector only when
// built with -DKTUNE_CONV_CUDA_TF32_SELECTOR (libraries/conv2d/CMakeLists.txt).
#define KTUNE_REQUIRE_TF32_SELECTOR()                                  \
  if (ktune::tuned_conv2d_ex_info_cuda(kTf32).num_configs == 0)        \
  GTEST_SKIP() << "the library ships no tf32 selector (built without " \
                  "-DKTUNE_CONV_CUDA_TF32_SELECTOR)"

TEST(TunedConv2dExCuda, EveryShippedTf32ConfigMatchesTheReferenceOnEveryLayerItRuns) {
  KTUNE_REQUIRE_GPU();
  KTUNE_REQUIRE_TF32_SELECTOR();
  every_shipped_config_matches_the_reference(kTf32);
}

TEST(TunedConv2dExCuda, TheTf32SelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  KTUNE_REQUIRE_TF32_SELECTOR();
  picks_match_the_reference_and_a_planted_error_fails(kTf32);
}

// fp16 keeps 3 more mantissa bits than bf16: the fp16 pick's error is under the fp16 bound (with
// the 16-bit transform factor: the pick may be cuDNN's) and several times smaller than the bf16
// pick's on the same layer (about 8x: on the H200 0.00026-0.00033 against 0.0021-0.0027), so an
// fp16 call that ran on bf16 rounding fails here. (The factor-8 bound alone does not tell them
// apart: the first version of this test compared the bf16 error with it, and failed.)
TEST(TunedConv2dExCuda, AnFp16ResultIsSeveralTimesMoreAccurateThanABf16One) {
  KTUNE_REQUIRE_GPU();
  const conv::Shape s{1, 14, 14, 64, 64, 3, 3, 1, 1};
  DeviceLayer fp16(s, kFp16), bf16(s, kBf16);
  ktune::conv2d_ex(kFp16, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, fp16.x.data(),
                   fp16.w.data(), fp16.output(), nullptr);
  ktune::conv2d_ex(kBf16, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, bf16.x.data(),
                   bf16.w.data(), bf16.output(), nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double fp16_error = fp16.error(fp16.result()), bf16_error = bf16.error(bf16.result());
  EXPECT_LE(fp16_error, conv::error_bound(fp16.shape, 2));
  EXPECT_GT(fp16_error, 0.0);
  EXPECT_LT(3 * fp16_error, bf16_error);
}

// Runs the cuDNN candidate on l's data into `out` (NaN first) and returns its relative error;
// NaN when cuDNN refused the call (a failure unless `may_refuse`: the fallback order serves then).
double cudnn_error(ktune::Conv2dPrecision p, int index, const DeviceLayer& l, const void* x,
                   float* out, std::vector<float>* result = nullptr, bool may_refuse = false,
                   cudaStream_t stream = nullptr) {
  const conv::Shape& s = l.shape;
  const size_t count = size_t(s.output_elements());
  EXPECT_EQ(cudaMemset(out, 0xFF, count * 4), cudaSuccess);  // all-ones bytes are NaN floats
  const bool ran = ktune::tuned_conv2d_ex_run_config_cuda(
      p, index, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, x, l.w.data(), out, stream);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name(s);
  if (!ran) {
    EXPECT_TRUE(may_refuse) << "cuDNN refused " << name(s);
    return std::numeric_limits<double>::quiet_NaN();
  }
  std::vector<float> host(count);
  EXPECT_EQ(cudaMemcpy(host.data(), out, count * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  const double error = l.error(host);
  if (result) *result = std::move(host);
  return error;
}

// The deployed cuDNN call (deploy/vendor_cudnn.hpp): its first call per layer and alignment
// searches the legacy Find and the backend engines and keeps the faster; later calls run the kept
// choice, an engine plan through variant packs kept per buffer set (a ring of 8). Every call is
// judged against the float64 reference with the precision's bound (cuDNN's pick may be Winograd:
// the 16-bit transform factor, as the sweep's cudnn row): the search's call, a steady-state call,
// input only 2-byte aligned (a search of its own), more output buffers than the ring keeps, two
// streams taking turns (scratch kept per stream) and a call captured into a CUDA graph; and
// a planted error must fail the same check. Network-sized layers, where the backend engines beat
// the legacy Find in the sweeps, beside small ones. (fp16: the engine's fp16 output is widened
// as fp16 bits, which a bf16 widening would get wrong far past the bound.)
void cudnn_candidate_matches_the_reference(ktune::Conv2dPrecision p) {
  const int index = cudnn_index(p);
  ASSERT_GE(index, 0) << "the " << precision_name(p) << " selector ships no vendor=cudnn candidate";
  const std::vector<conv::Shape> layers = {
      {1, 56, 56, 64, 64, 3, 3, 1, 1},   {2, 28, 28, 128, 128, 3, 3, 1, 1},
      {2, 14, 14, 256, 512, 1, 1, 1, 0}, {1, 23, 21, 3, 64, 7, 7, 2, 3},
      {1, 13, 13, 64, 256, 3, 3, 2, 1},  {1, 10, 9, 24, 40, 3, 3, 1, 1}};
  for (const conv::Shape& s : layers) {
    DeviceLayer l(s, p);
    const double bound = conv::error_bound(l.shape, 2);
    std::vector<float> out;
    const double search = cudnn_error(p, index, l, l.x.data(), l.output(), &out);
    EXPECT_LE(search, bound) << "the search's call on " << name(s);
    EXPECT_GT(search, 0.0) << name(s) << ": " << precision_name(p) << " is not exact";
    const double steady = cudnn_error(p, index, l, l.x.data(), l.output());
    EXPECT_LE(steady, bound) << "a steady-state call on " << name(s);
    // The input one 16-bit element past a 16-byte boundary: a plan of its own alignment.
    ktune::cuda::DeviceBuffer<uint16_t> shifted(l.x.size() + 8, "shifted 16-bit input");
    ASSERT_EQ(cudaMemcpy(shifted.data() + 1, l.x.data(), l.x.bytes(), cudaMemcpyDeviceToDevice),
              cudaSuccess);
    // cuDNN may refuse such a pointer (the selector's fallback order then serves the layer).
    const double shifted_error =
        cudnn_error(p, index, l, shifted.data() + 1, l.output(), nullptr, true);
    if (std::isnan(shifted_error))
      std::printf("conv2d_ex %s cuDNN refused 2-byte aligned input on %s\n", precision_name(p),
                  name(s).c_str());
    else
      EXPECT_LE(shifted_error, bound) << "2-byte aligned input on " << name(s);
    // Planted: one output moved by twice the bound's share of the reference's norm.
    double norm = 0;
    for (double v : l.reference) norm += v * v;
    out[out.size() / 2] += float(2 * bound * std::sqrt(norm));
    EXPECT_GT(l.error(out), bound)
        << "a planted error passed the " << precision_name(p) << " check on " << name(s);
    std::printf(
        "conv2d_ex %s cuDNN on %s: relative error %.3g (search), %.3g (later; bound %.3g)\n",
        precision_name(p), name(s).c_str(), search, steady, bound);
  }
  // More output buffers than the packs a layer keeps: each call right, old packs replaced.
  const conv::Shape s{1, 14, 14, 64, 64, 3, 3, 1, 1};
  DeviceLayer l(s, p);
  const double bound = conv::error_bound(l.shape, 2);
  std::vector<ktune::cuda::DeviceBuffer<float>> outputs;
  for (int i = 0; i < 11; ++i) outputs.emplace_back(size_t(s.output_elements()), "rotated output");
  for (int round = 0; round < 2; ++round)
    for (size_t i = 0; i < outputs.size(); ++i)
      EXPECT_LE(cudnn_error(p, index, l, l.x.data(), outputs[i].data()), bound)
          << "output buffer " << i << ", round " << round;
  // The call's scratch and cuDNN's workspace are kept per stream between calls
  // (kernels/common/cuda/call_workspace.hpp): two streams taking turns, each call right.
  cudaStream_t streams[2] = {nullptr, nullptr};
  for (cudaStream_t& st : streams) ASSERT_EQ(cudaStreamCreate(&st), cudaSuccess);
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < 2; ++i)
      EXPECT_LE(cudnn_error(p, index, l, l.x.data(), outputs[size_t(i)].data(), nullptr, false,
                            streams[i]),
                bound)
          << "stream " << i << ", round " << round;
  // Captured into a CUDA graph, the call takes its scratch per call (the graph's own
  // allocation and free): the replayed graph writes the right output, twice.
  const size_t count = size_t(s.output_elements());
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const bool captured = ktune::tuned_conv2d_ex_run_config_cuda(
      p, index, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, l.x.data(), l.w.data(),
      outputs[2].data(), streams[0]);
  ASSERT_EQ(cudaStreamEndCapture(streams[0], &graph), cudaSuccess);
  ASSERT_TRUE(captured);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    ASSERT_EQ(cudaMemset(outputs[2].data(), 0xFF, count * 4), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, streams[0]), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(streams[0]), cudaSuccess);
    std::vector<float> host(count);
    ASSERT_EQ(cudaMemcpy(host.data(), outputs[2].data(), count * 4, cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_LE(l.error(host), bound) << "graph replay " << replay;
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  for (cudaStream_t st : streams) EXPECT_EQ(cudaStreamDestroy(st), cudaSuccess);
}

TEST(TunedConv2dExCuda, TheCudnnCandidateMatchesTheReferenceOnEveryCallAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  cudnn_candidate_matches_the_reference(kBf16);
}

TEST(TunedConv2dExCuda, TheFp16CudnnCandidateMatchesTheReferenceOnEveryCallAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  cudnn_candidate_matches_the_reference(kFp16);
}

TEST(TunedConv2dExCuda, BadArgumentsThrowBeforeTouchingTheDevice) {
  void* fake = reinterpret_cast<void*>(uintptr_t(256));  // never dereferenced
  float* out = static_cast<float*>(fake);
  auto message = [](auto&& call) { return ktune::test::thrown_message<ktune::Conv2dError>(call); };
  EXPECT_NE(message([&] {
              ktune::conv2d_ex(ktune::Conv2dPrecision(7), 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, fake,
                               out, nullptr);
            }).find("ktune::conv2d_ex: precision 7 is none of tf32 (1), bf16 (2), fp16 (3)"),
            std::string::npos);
  // tf32 takes FP32 output only, and is refused where the library is built without a tf32
  // selector (-DKTUNE_CONV_CUDA_TF32_SELECTOR=).
  const std::string tf32_bf16_output = message([&] {
    ktune::conv2d_ex(kTf32, ktune::Conv2dOutput::bf16, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, fake, out,
                     nullptr);
  });
  EXPECT_NE(tf32_bf16_output.find("output type bf16 (2) needs precision bf16 (tf32: output fp32)"),
            std::string::npos)
      << tf32_bf16_output;
  if (ktune::tuned_conv2d_ex_info_cuda(kTf32).num_configs == 0) {
    EXPECT_EQ(message([&] {
                ktune::conv2d_ex(kTf32, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, fake, out, nullptr);
              }),
              "ktune::conv2d_ex: this library ships no tf32 selector (NAMED_SELECTORS tf32)");
  }
  EXPECT_NE(message([&] {
              ktune::conv2d_ex(kFp16, ktune::Conv2dOutput::bf16, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake,
                               fake, out, nullptr);
            }).find("output type bf16 (2) needs precision bf16"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d_ex(kBf16, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake, nullptr, out, nullptr);
            }).find("ktune::conv2d_ex: filter is a null pointer"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d_ex(kBf16, 1, 8, 8, 64, 4, 3, 3, 0, 1, fake, fake, out, nullptr);
            }).find("stride = 0"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::tuned_conv2d_ex_run_config_cuda(kBf16, 999, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake,
                                                     fake, out, nullptr);
            }).find("index = 999"),
            std::string::npos);
  EXPECT_EQ(message([&] {
              ktune::conv2d_ex(kBf16, 0, 8, 8, 64, 4, 3, 3, 1, 1, nullptr, nullptr, nullptr,
                               nullptr);
            }),
            "no error");
  // The default build ships every tensor-core precision.
  EXPECT_GT(ktune::tuned_conv2d_ex_info_cuda(kTf32).num_configs, 0);
  EXPECT_GT(ktune::tuned_conv2d_ex_info_cuda(kFp16).num_configs, 0);
}

}  // namespace
