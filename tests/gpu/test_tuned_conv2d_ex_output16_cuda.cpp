// ktune::conv2d_ex with a 16-bit output in the data's type (Conv2dOutput::bf16 in bf16,
// Conv2dOutput::fp16 in fp16): every shipped config of the CUDA tuned conv2d library's selector of
// that precision (cuda_igemm_mma, cuda_igemm_wgmma, cuDNN) and the selector's picks write the
// output's 16 bits themselves. Each run: the output's bits poisoned (0xFFFF, a NaN in both types)
// between guards, widened exactly on the host and judged against the float64 reference of the
// FP32 data the 16-bit inputs were rounded from with the family's 16-bit-output bound
// (conv2d_family.hpp error_bound_output16: the FP32-output bound e plus the store's rounding, half
// an ulp of the type at |y|: e + u·(1 + e), u = 2^-8 bf16, 2^-11 fp16); ktune's own kernels must
// also write exactly their FP32 output rounded once to nearest even (the same accumulators: one
// rounding at the store, no second one); a planted error must fail the bound; a 2-byte aligned
// output; argument errors.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/cuda.hpp"
#include "tests/gpu/bf16_device_util.hpp"
#include "tests/gpu/conv2d_tc_checks.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;
constexpr size_t kGuard = 64;
constexpr uint16_t kGuard16 = 0x4B1D;   // finite in both types; no kernel writes there
constexpr uint16_t kPoison16 = 0xFFFF;  // a NaN in bf16 and in fp16
constexpr auto kBf16 = ktune::Conv2dPrecision::bf16;
constexpr auto kFp16 = ktune::Conv2dPrecision::fp16;
namespace gemm = ktune::kernels::gemm;
using conv::cuda::test::cudnn_index;
using conv::cuda::test::is_vendor;

using ktune::test::download;
using ktune::test::upload;

// The 16-bit output type of a precision (its own).
ktune::Conv2dOutput output_of(ktune::Conv2dPrecision p) { return ktune::Conv2dOutput(int(p)); }
gemm::Precision data_of(ktune::Conv2dPrecision p) { return gemm::Precision(int(p)); }

// A layer on the device: random FP32 data, their 16-bit copies in `precision`, a 16-bit output
// (offset `shift` elements into its buffer, guards around it) and an FP32 output for the own
// kernels' check.
struct Layer {
  Layer(ktune::Conv2dPrecision p, const conv::Shape& s, size_t offset = 0)
      : precision(p), shape(s), shift(offset) {
    const auto in = gemm::random_matrix(size_t(s.input_elements()), 7);
    const auto fl = gemm::random_matrix(size_t(s.filter_elements()), 8);
    reference = conv::reference_conv2d(s, in.data(), fl.data());
    x = upload(gemm::to_input_bits(in, data_of(p)), "16-bit input");
    w = upload(gemm::to_input_bits(fl, data_of(p)), "16-bit filter");
    shape.precision = data_of(p);
    const size_t count = size_t(s.output_elements());
    y16 = ktune::cuda::DeviceBuffer<uint16_t>(count + 2 * kGuard + shift, "16-bit output");
    y32 = ktune::cuda::DeviceBuffer<float>(count, "FP32 output");
  }
  uint16_t narrow(float v) const { return gemm::input_bits(v, data_of(precision)); }
  float widen(uint16_t b) const { return gemm::input_value(b, data_of(precision)); }
  uint16_t* out16() const { return y16.data() + kGuard + shift; }
  // Guards and the poisoned output (every bit set) before a run.
  void poison() const {
    std::vector<uint16_t> host(y16.size(), kGuard16);
    std::fill(host.begin() + long(kGuard + shift), host.end() - long(kGuard), kPoison16);
    ktune::cuda::check(cudaMemcpy(y16.data(), host.data(), y16.bytes(), cudaMemcpyHostToDevice),
                       "poison 16-bit output");
    ktune::cuda::check(cudaMemset(y32.data(), 0xFF, y32.bytes()), "poison FP32 output");
    // Both on the legacy default stream, which a run on a non-blocking stream does not wait for.
    ktune::cuda::check(cudaDeviceSynchronize(), "outputs poisoned");
  }
  // The 16-bit output's bits (guards checked).
  std::vector<uint16_t> bits() const {
    const std::vector<uint16_t> all = download(y16);
    for (size_t i = 0; i < kGuard; ++i) {
      EXPECT_EQ(all[i + shift], kGuard16) << "guard before the output, " << i;
      EXPECT_EQ(all[all.size() - 1 - i], kGuard16) << "guard after the output, " << i;
    }
    return {all.begin() + long(kGuard + shift), all.end() - long(kGuard)};
  }
  double error(const std::vector<uint16_t>& b) const {
    std::vector<float> wide(b.size());
    for (size_t i = 0; i < b.size(); ++i) wide[i] = widen(b[i]);
    return conv::relative_error(shape, wide.data(), reference);
  }
  ktune::Conv2dPrecision precision;
  conv::Shape shape;
  size_t shift;
  std::vector<double> reference;
  ktune::cuda::DeviceBuffer<uint16_t> x, w, y16;
  ktune::cuda::DeviceBuffer<float> y32;
};

// The layer's problem key ("n=1;h=15;...").
std::string name(const conv::Shape& s) { return conv::problem_of(s).key(); }

// The layers of test_tuned_conv2d_ex_cuda.cpp (the stem, strides, 1x1 and 7x7, c % 64 for wgmma,
// c % 8 only) and an odd k (the element-wise stores).
std::vector<conv::Shape> test_layers() {
  return {{1, 15, 13, 3, 64, 3, 3, 1, 1},   {1, 23, 21, 3, 64, 7, 7, 2, 3},
          {1, 14, 14, 64, 64, 3, 3, 1, 1},  {3, 9, 11, 64, 128, 3, 3, 1, 1},
          {2, 12, 12, 128, 64, 1, 1, 1, 0}, {1, 13, 13, 64, 256, 3, 3, 2, 1},
          {2, 7, 7, 256, 128, 1, 1, 2, 0},  {1, 10, 9, 24, 40, 3, 3, 1, 1},
          {1, 9, 9, 64, 37, 3, 3, 1, 1}};
}

// Every shipped config of precision p in its 16-bit output on every test layer it runs: within
// the bound; ktune's kernels bit for bit their FP32 output rounded once; the output 2-byte aligned
// once too.
void every_shipped_config_writes_its_output16_within_the_bound(ktune::Conv2dPrecision p) {
  const char* type = p == kBf16 ? "bf16" : "fp16";
  const auto& info = ktune::tuned_conv2d_ex_info_cuda(p);
  ASSERT_GT(info.num_configs, 0) << "the library ships no " << type << " selector";
  std::vector<int> ran(size_t(info.num_configs), 0);
  for (const conv::Shape& s : test_layers())
    for (size_t shift : {size_t(0), size_t(1)}) {
      const Layer l(p, s, shift);  // one layer's data (and reference) for every config
      for (int i = 0; i < info.num_configs; ++i) {
        const bool vendor = is_vendor(info.configs[i]);
        l.poison();
        const bool applies = ktune::tuned_conv2d_ex_run_config_cuda(
            p, output_of(p), i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, l.x.data(),
            l.w.data(), l.out16(), nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << info.configs[i] << " on " << name(s);
        const std::vector<uint16_t> out = l.bits();
        if (!applies) {
          for (size_t e = 0; e < out.size(); ++e)
            ASSERT_EQ(out[e], kPoison16) << info.configs[i] << " refused but wrote " << name(s);
          continue;
        }
        ++ran[size_t(i)];
        const double error = l.error(out);
        // cuDNN's pick may be a Winograd / FFT algorithm: the 16-bit transform factor (F(2x2)'s 8).
        const double bound = conv::error_bound_output16(l.shape, vendor ? 2 : 0);
        EXPECT_LE(error, bound) << info.configs[i] << " on " << name(s) << " shift " << shift;
        EXPECT_GT(error, 0.0) << info.configs[i] << " on " << name(s);
        std::printf(
            "conv2d_ex %s output config %d %s on %s (shift %zu): relative error %.3g "
            "(bound %.3g)\n",
            type, i, info.configs[i], name(s).c_str(), shift, error, bound);
        if (vendor) continue;  // cuDNN's FP32-output search may keep another engine
        // The same config with FP32 output (aligned): it runs wherever the 16-bit output ran.
        ASSERT_TRUE(ktune::tuned_conv2d_ex_run_config_cuda(p, i, s.n, s.h, s.w, s.c, s.k, s.r, s.s,
                                                           s.stride, s.pad, l.x.data(), l.w.data(),
                                                           l.y32.data(), nullptr))
            << info.configs[i] << " on " << name(s);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const std::vector<float> wide = download(l.y32);
        size_t differ = 0;
        for (size_t e = 0; e < out.size(); ++e) differ += out[e] != l.narrow(wide[e]);
        EXPECT_EQ(differ, 0u) << info.configs[i] << " on " << name(s) << ": " << type
                              << " output is not its FP32 output rounded once";
      }
    }
  for (int i = 0; i < info.num_configs; ++i)
    EXPECT_GT(ran[size_t(i)], 0) << info.configs[i] << " ran on none of the test layers";
}

TEST(TunedConv2dExCudaBf16Output, EveryShippedConfigWritesItsBf16OutputWithinTheBound) {
  KTUNE_REQUIRE_GPU();
  every_shipped_config_writes_its_output16_within_the_bound(kBf16);
}
TEST(TunedConv2dExCudaFp16Output, EveryShippedConfigWritesItsFp16OutputWithinTheBound) {
  KTUNE_REQUIRE_GPU();
  every_shipped_config_writes_its_output16_within_the_bound(kFp16);
}

// conv2d_ex's picks in the 16-bit output (4- and 2-byte aligned), on a stream of its own; a
// planted error (one output moved by twice the bound's share of the reference's norm) must fail
// the bound.
void the_selectors_picks_match_the_reference(ktune::Conv2dPrecision p) {
  const auto& info = ktune::tuned_conv2d_ex_info_cuda(p);
  ASSERT_GT(info.num_configs, 0);
  const ktune::cuda::Stream stream;
  const auto api_stream = reinterpret_cast<ktune::cudaStream_t>(stream.get());
  for (const conv::Shape& s : test_layers())
    for (size_t shift : {size_t(0), size_t(1)}) {
      const int pick =
          ktune::tuned_conv2d_ex_choice_cuda(p, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad);
      ASSERT_TRUE(pick >= 0 && pick < info.num_configs) << name(s);
      const Layer l(p, s, shift);
      l.poison();
      ktune::conv2d_ex(p, output_of(p), s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
                       l.x.data(), l.w.data(), l.out16(), api_stream);
      ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess) << name(s);
      std::vector<uint16_t> out = l.bits();
      // A 2-byte aligned output may be refused by the pick (wgmma) and served by the fallback
      // order, cuDNN perhaps: the vendor's transform factor then.
      const bool maybe_vendor = is_vendor(info.configs[pick]) || shift != 0;
      const double bound = conv::error_bound_output16(l.shape, maybe_vendor ? 2 : 0);
      EXPECT_LE(l.error(out), bound)
          << info.configs[pick] << " on " << name(s) << " shift " << shift;
      double sum_of_squares = 0;
      for (double v : l.reference) sum_of_squares += v * v;
      const size_t at = out.size() / 2;
      out[at] = l.narrow(l.widen(out[at]) + float(2 * bound * std::sqrt(sum_of_squares)));
      EXPECT_GT(l.error(out), bound)
          << "a planted error passed the 16-bit-output check on " << name(s);
    }
}

TEST(TunedConv2dExCudaBf16Output, TheSelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  the_selectors_picks_match_the_reference(kBf16);
}
TEST(TunedConv2dExCudaFp16Output, TheSelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  the_selectors_picks_match_the_reference(kFp16);
}

// The cuDNN candidate's 16-bit output: the search's call and a steady-state one (the engine
// writes the caller's output: no scratch, no widening), each within the bound.
void the_cudnn_candidate_writes_the_output16_on_every_call(ktune::Conv2dPrecision p) {
  const char* type = p == kBf16 ? "bf16" : "fp16";
  const int index = cudnn_index(p);
  ASSERT_GE(index, 0) << "the " << type << " selector ships no vendor=cudnn candidate";
  const std::vector<conv::Shape> layers = {{1, 56, 56, 64, 64, 3, 3, 1, 1},
                                           {2, 14, 14, 256, 512, 1, 1, 1, 0},
                                           {1, 23, 21, 3, 64, 7, 7, 2, 3}};
  for (const conv::Shape& s : layers) {
    Layer l(p, s);
    const double bound = conv::error_bound_output16(l.shape, 2);
    for (const char* call : {"search", "steady state"}) {
      l.poison();
      ASSERT_TRUE(ktune::tuned_conv2d_ex_run_config_cuda(p, output_of(p), index, s.n, s.h, s.w, s.c,
                                                         s.k, s.r, s.s, s.stride, s.pad, l.x.data(),
                                                         l.w.data(), l.out16(), nullptr))
          << "cuDNN refused " << name(s);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name(s);
      const double error = l.error(l.bits());
      EXPECT_LE(error, bound) << call << " on " << name(s);
      EXPECT_GT(error, 0.0) << call << " on " << name(s);
      std::printf("conv2d_ex %s output cuDNN %s on %s: relative error %.3g (bound %.3g)\n", type,
                  call, name(s).c_str(), error, bound);
    }
  }
}

TEST(TunedConv2dExCudaBf16Output, TheCudnnCandidateWritesTheBf16OutputOnEveryCall) {
  KTUNE_REQUIRE_GPU();
  the_cudnn_candidate_writes_the_output16_on_every_call(kBf16);
}
TEST(TunedConv2dExCudaFp16Output, TheCudnnCandidateWritesTheFp16OutputOnEveryCall) {
  KTUNE_REQUIRE_GPU();
  the_cudnn_candidate_writes_the_output16_on_every_call(kFp16);
}

TEST(TunedConv2dExCudaBf16Output, BadArgumentsThrowBeforeTouchingTheDevice) {
  void* fake = reinterpret_cast<void*>(uintptr_t(256));  // never dereferenced
  auto message = [](auto&& call) { return ktune::test::thrown_message<ktune::Conv2dError>(call); };
  EXPECT_NE(message([&] {
              ktune::conv2d_ex(kBf16, ktune::Conv2dOutput(1), 1, 8, 8, 64, 4, 3, 3, 1, 1, fake,
                               fake, fake, nullptr);
            }).find("ktune::conv2d_ex: output type 1 is none of fp32 (0), bf16 (2), fp16 (3)"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d_ex(ktune::Conv2dPrecision::fp32, ktune::Conv2dOutput::bf16, 1, 8, 8, 64,
                               4, 3, 3, 1, 1, fake, fake, fake, nullptr);
            }).find("ktune::conv2d_ex: precision 0 is none of tf32 (1), bf16 (2), fp16 (3)"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::conv2d_ex(kBf16, ktune::Conv2dOutput::bf16, 1, 8, 8, 64, 4, 3, 3, 1, 1, fake,
                               fake, nullptr, nullptr);
            }).find("ktune::conv2d_ex: output is a null pointer"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ktune::tuned_conv2d_ex_run_config_cuda(kBf16, ktune::Conv2dOutput::bf16, 999, 1, 8, 8,
                                                     64, 4, 3, 3, 1, 1, fake, fake, fake, nullptr);
            }).find("index = 999"),
            std::string::npos);
}

}  // namespace
