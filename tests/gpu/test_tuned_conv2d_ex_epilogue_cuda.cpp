// ktune::conv2d_ex's fused epilogue (Conv2dEpilogue: y = act(conv + bias[k] + residual)) on every
// shipped config of the bf16 selector (cuda_igemm_mma, cuda_igemm_wgmma, cuDNN) and the
// selector's picks, FP32 and bf16 output, with bias only, bias + ReLU, bias + residual + ReLU and
// the residual in place (the output itself); the same for the fp16 selector with FP32 and fp16
// output and the tf32 selector with FP32 output (the only one tf32 writes); precision fp32
// (ktune::conv2d's kinds + one pass).
// Data: uniform in [-1, 1), never zero (so about half the sums are negative and ReLU matters);
// the output poisoned (every bit set: NaN) before each run. Judged against the float64 reference
// relu(conv + bias + residual) of the FP32 data the 16-bit inputs were rounded from (the residual's
// values as stored), with the bound of epilogue_bound below. ktune's own kernels must also write
// bit for bit what their plain call's output gives with the epilogue applied on the host in the
// same FP32 order (fused in the store: the same accumulators, one rounding). A planted error must
// fail the bound; bad epilogue arguments throw Conv2dError naming them.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
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
namespace kg = ktune::kernels::gemm;
constexpr auto kBf16 = ktune::Conv2dPrecision::bf16;
constexpr auto kFp16 = ktune::Conv2dPrecision::fp16;
constexpr auto kTf32 = ktune::Conv2dPrecision::tf32;

using conv::cuda::test::cudnn_index;
using conv::cuda::test::is_vendor;
using conv::cuda::test::upload_as_read;
using ktune::test::download;
using ktune::test::upload;

// Which parts of the epilogue a run uses.
struct Parts {
  const char* name;
  bool bias, residual, relu, in_place;
};
constexpr Parts kParts[] = {{"bias", true, false, false, false},
                            {"bias+relu", true, false, true, false},
                            {"bias+residual+relu", true, true, true, false},
                            {"bias+residual(in place)+relu", true, true, true, true}};

double norm(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x * x;
  return std::sqrt(sum);
}

// The norm-wise bound of an epilogue run, ||ŷ − y|| / ||y|| with y = act(conv + b + res) in
// float64 (act 1-Lipschitz, so errors before it carry through unchanged at most):
//   conv error          e·||conv||, e = error_bound(shape, winograd_m) of the FP32-output conv;
//   first rounding      (cuDNN: its engine may store the conv in 16 bits before the pass, for
//                       either output type) u16·||ŷconv||, ||ŷconv|| ≤ (1 + e)·||conv||, u16 =
//                       2^-8 (bf16) or 2^-11 (fp16: the engine's output is the precision's type);
//   two FP32 additions  each moves a sum by at most 2^-24 of its magnitude: ≤ 2^-23·(||ŷconv|| +
//                       ||b|| + ||res||) with a factor 2 of slack;
//   16-bit store        u16·||ŷ|| ≤ u16·(||y|| + the errors above) (the output is the data's
//                       type: u16 as above).
// Tested: a planted error of twice the bound fails it (TheSelectorsPicks... below).
double epilogue_bound(double e, double conv_norm, double bias_norm, double residual_norm,
                      double y_norm, bool out16, bool conv_rounded, double u16) {
  double abs = e * conv_norm;
  if (conv_rounded) abs += u16 * (1 + e) * conv_norm;
  abs += std::ldexp(1.0, -22) * ((1 + e) * conv_norm + bias_norm + residual_norm);
  if (out16) abs += u16 * (y_norm + abs);
  return abs / y_norm;
}

// The output types of a precision (out16 or not): FP32, and the data's 16 bits (bf16, fp16; tf32
// writes FP32 only).
std::vector<bool> outputs16(ktune::Conv2dPrecision p) {
  return p == kTf32 ? std::vector<bool>{false} : std::vector<bool>{false, true};
}

// A layer on the device: input and filter in the precision (bf16 or fp16 bits, or tf32's FP32
// values), FP32 bias, a residual in each output type, the output buffers (FP32 and the data's 16
// bits), and the float64 conv of the FP32 data.
struct Layer {
  explicit Layer(const conv::Shape& s, ktune::Conv2dPrecision p = kBf16) : shape(s) {
    in_host = kg::random_matrix(size_t(s.input_elements()), 17);
    fl_host = kg::random_matrix(size_t(s.filter_elements()), 18);
    conv_ref = conv::reference_conv2d(s, in_host.data(), fl_host.data());
    shape.precision = kg::Precision(int(p));  // conv2d_ex's codes are the sweep's
    x = upload_as_read(in_host, shape.precision, "input");
    w = upload_as_read(fl_host, shape.precision, "filter");
    count = size_t(s.output_elements());
    bias_host = ktune::kernels::gemm::random_matrix(size_t(s.k), 19);
    residual32 = ktune::kernels::gemm::random_matrix(count, 20);
    // tf32 writes FP32 only: its 16-bit residual is bf16, never used.
    residual16 = kg::to_input_bits(residual32, sixteen() ? shape.precision : kg::Precision::bf16);
    bias = upload(bias_host, "bias");
    res32 = upload(residual32, "FP32 residual");
    res16 = upload(residual16, "16-bit residual");
    y32 = ktune::cuda::DeviceBuffer<float>(count, "FP32 output");
    y16 = ktune::cuda::DeviceBuffer<uint16_t>(count, "16-bit output");
    plain32 = ktune::cuda::DeviceBuffer<float>(count, "FP32 plain output");
    plain16 = ktune::cuda::DeviceBuffer<uint16_t>(count, "16-bit plain output");
  }
  bool sixteen() const { return kg::input_bytes(shape.precision) == 2; }
  // A cuDNN pick's transform factor (its algorithm may be Winograd): F(2x2)'s in 16 bits, F(4x4)'s
  // in tf32 (as tuned_conv_bench); whether its conv is rounded before the epilogue pass: a 16-bit
  // engine output is, tf32's FP32 output is not.
  int vendor_m() const { return sixteen() ? 2 : 4; }
  // The data's 16-bit type: bits of a float (nearest even, as the stores) and their value.
  uint16_t narrow(float v) const { return kg::input_bits(v, shape.precision); }
  float widen(uint16_t b) const { return kg::input_value(b, shape.precision); }
  ktune::Conv2dOutput output(bool out16) const {
    return out16 ? ktune::Conv2dOutput(int(shape.precision)) : ktune::Conv2dOutput::fp32;
  }
  const char* output_name(bool out16) const {
    return out16 ? kg::precision_name(shape.precision) : "fp32";
  }
  void* out(bool out16) const {
    return out16 ? static_cast<void*>(y16.data()) : static_cast<void*>(y32.data());
  }
  // The output before a run: poisoned, or the residual itself for an in-place run.
  // Waits for the copy or memset: both go to the legacy default stream, which a run on a
  // non-blocking stream (the picks test's) does not wait for. Without the wait the picks test
  // read all-ones NaNs (the poison) in 7 of 18 runs with 6 processes at once on an H200.
  void prepare(bool out16, const Parts& parts) const {
    if (parts.in_place)
      ktune::cuda::check(cudaMemcpy(out(out16), out16 ? (const void*)res16.data() : res32.data(),
                                    count * (out16 ? 2 : 4), cudaMemcpyDeviceToDevice),
                         "residual into the output");
    else
      ktune::cuda::check(cudaMemset(out(out16), 0xFF, count * (out16 ? 2 : 4)), "poison output");
    ktune::cuda::check(cudaDeviceSynchronize(), "output prepared");
  }
  ktune::Conv2dEpilogue epilogue(bool out16, const Parts& parts) const {
    ktune::Conv2dEpilogue e;
    if (parts.bias) e.bias = bias.data();
    if (parts.residual)
      e.residual = parts.in_place ? out(out16)
                   : out16        ? static_cast<const void*>(res16.data())
                                  : static_cast<const void*>(res32.data());
    e.relu = parts.relu;
    return e;
  }
  // The output's values on the host.
  std::vector<float> values(bool out16) const {
    if (!out16) return download(y32.data(), count);
    const auto bits = download(y16.data(), count);
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = widen(bits[i]);
    return v;
  }
  // The float64 reference and the bound's norms for these parts.
  std::vector<double> reference(bool out16, const Parts& parts) const {
    std::vector<double> y(count);
    const size_t k = size_t(shape.k);
    for (size_t i = 0; i < count; ++i) {
      double v = conv_ref[i];
      if (parts.bias) v += bias_host[i % k];
      if (parts.residual) v += out16 ? double(widen(residual16[i])) : double(residual32[i]);
      y[i] = parts.relu && v < 0 ? 0.0 : v;
    }
    return y;
  }
  double bound(bool out16, const Parts& parts, int winograd_m, bool conv_rounded) const {
    const auto y = reference(out16, parts);
    double bias_sq = 0, residual_sq = 0;
    const size_t k = size_t(shape.k);
    for (size_t i = 0; i < count; ++i) {
      if (parts.bias) bias_sq += double(bias_host[i % k]) * bias_host[i % k];
      if (parts.residual) {
        const double r = out16 ? double(widen(residual16[i])) : double(residual32[i]);
        residual_sq += r * r;
      }
    }
    const double u16 = std::ldexp(1.0, shape.precision == kg::Precision::fp16 ? -11 : -8);
    return epilogue_bound(conv::error_bound(shape, winograd_m), norm(conv_ref), std::sqrt(bias_sq),
                          std::sqrt(residual_sq), norm(y), out16, conv_rounded, u16);
  }
  double error(const std::vector<float>& out, bool out16, const Parts& parts) const {
    const auto y = reference(out16, parts);
    double diff = 0;
    for (size_t i = 0; i < count; ++i) {
      const double d = double(out[i]) - y[i];
      diff += d * d;  // NaN (a poisoned element left) makes the error NaN: fails EXPECT_LE
    }
    return std::sqrt(diff) / norm(y);
  }
  // The host's epilogue over a plain run's output, in the kernels' FP32 order, stored like them.
  std::vector<float> host_epilogue(const std::vector<float>& plain, bool out16,
                                   const Parts& parts) const {
    std::vector<float> y(count);
    const size_t k = size_t(shape.k);
    for (size_t i = 0; i < count; ++i) {
      float v = plain[i];
      if (parts.bias) v += bias_host[i % k];
      if (parts.residual) v += out16 ? widen(residual16[i]) : residual32[i];
      if (parts.relu) v = std::fmax(v, 0.0f);
      y[i] = out16 ? widen(narrow(v)) : v;
    }
    return y;
  }

  conv::Shape shape;
  size_t count = 0;
  std::vector<double> conv_ref;
  std::vector<float> bias_host, residual32;
  std::vector<uint16_t> residual16;
  std::vector<float> in_host, fl_host;            // the FP32 data before the rounding
  ktune::cuda::DeviceBuffer<unsigned char> x, w;  // as the kernels read them (upload_as_read)
  ktune::cuda::DeviceBuffer<float> bias, res32, y32, plain32;
  ktune::cuda::DeviceBuffer<uint16_t> res16, y16, plain16;
};

std::string name(const conv::Shape& s) { return conv::problem_of(s).key(); }

// The stem (mma and cuDNN only), c % 64 (wgmma), 1x1, stride 2, and an odd k (wgmma refuses it).
std::vector<conv::Shape> test_layers() {
  return {{1, 15, 13, 3, 64, 3, 3, 1, 1},
          {1, 14, 14, 64, 64, 3, 3, 1, 1},
          {2, 12, 12, 128, 64, 1, 1, 1, 0},
          {1, 13, 13, 64, 256, 3, 3, 2, 1},
          {1, 9, 9, 64, 37, 3, 3, 1, 1}};
}

void every_shipped_config_fuses_each_epilogue(ktune::Conv2dPrecision p) {
  const auto& info = ktune::tuned_conv2d_ex_info_cuda(p);
  ASSERT_GT(info.num_configs, 0) << "the library ships no selector of precision " << int(p);
  std::vector<int> ran(size_t(info.num_configs), 0);
  for (const conv::Shape& s : test_layers()) {
    const Layer l(s, p);
    for (int i = 0; i < info.num_configs; ++i) {
      const bool vendor = is_vendor(info.configs[i]);
      for (bool out16 : outputs16(p)) {
        const auto output = l.output(out16);
        // The plain call first, in this output type (whether the config runs) and in FP32 (its
        // accumulators: ktune's kernels' fused output must be their epilogue exactly).
        void* plain = out16 ? static_cast<void*>(l.plain16.data()) : l.plain32.data();
        const bool applies = ktune::tuned_conv2d_ex_run_config_cuda(
            p, output, i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, l.x.data(),
            l.w.data(), plain, nullptr);
        if (applies && out16 && !vendor) {
          ASSERT_TRUE(ktune::tuned_conv2d_ex_run_config_cuda(
              p, ktune::Conv2dOutput::fp32, i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
              l.x.data(), l.w.data(), l.plain32.data(), nullptr));
        }
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << info.configs[i] << " on " << name(s);
        const std::vector<float> plain_values = download(l.plain32.data(), l.count);
        for (const Parts& parts : kParts) {
          l.prepare(out16, parts);
          const bool fused = ktune::tuned_conv2d_ex_run_config_cuda(
              p, output, i, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, l.x.data(),
              l.w.data(), l.out(out16), l.epilogue(out16, parts), nullptr);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << info.configs[i] << " " << parts.name;
          ASSERT_EQ(fused, applies) << info.configs[i] << " " << parts.name << " on " << name(s)
                                    << ": the epilogue changed whether the config runs";
          if (!applies) continue;
          ++ran[size_t(i)];
          const std::vector<float> out = l.values(out16);
          const double error = l.error(out, out16, parts);
          const double bound =
              l.bound(out16, parts, vendor ? l.vendor_m() : 0, vendor && l.sixteen());
          EXPECT_LE(error, bound) << info.configs[i] << " " << parts.name << " on " << name(s)
                                  << " " << l.output_name(out16) << " output";
          EXPECT_GT(error, 0.0) << info.configs[i] << " " << parts.name << " on " << name(s);
          std::printf(
              "conv2d_ex %s epilogue %s, %s output, config %d %s on %s: error %.3g (bound %.3g)\n",
              kg::precision_name(l.shape.precision), parts.name, l.output_name(out16), i,
              info.configs[i], name(s).c_str(), error, bound);
          if (vendor) continue;  // cuDNN: judged by the bound only
          const std::vector<float> expect = l.host_epilogue(plain_values, out16, parts);
          size_t differ = 0;
          for (size_t e = 0; e < l.count; ++e) differ += std::memcmp(&out[e], &expect[e], 4) != 0;
          EXPECT_EQ(differ, 0u) << info.configs[i] << " " << parts.name << " on " << name(s)
                                << ": the fused output is not the plain output's epilogue";
        }
      }
    }
  }
  for (int i = 0; i < info.num_configs; ++i)
    EXPECT_GT(ran[size_t(i)], 0) << info.configs[i] << " ran on none of the test layers";
}

TEST(TunedConv2dExCudaEpilogue, EveryShippedConfigFusesEachEpilogueWithinTheBound) {
  KTUNE_REQUIRE_GPU();
  every_shipped_config_fuses_each_epilogue(kBf16);
}

TEST(TunedConv2dExCudaEpilogue, EveryShippedFp16ConfigFusesEachEpilogueWithinTheBound) {
  KTUNE_REQUIRE_GPU();
  every_shipped_config_fuses_each_epilogue(kFp16);
}

TEST(TunedConv2dExCudaEpilogue, EveryShippedTf32ConfigFusesEachEpilogueWithinTheBound) {
  KTUNE_REQUIRE_GPU();
  every_shipped_config_fuses_each_epilogue(kTf32);
}

// conv2d_ex's picks with bias + residual + ReLU in each output type, on a stream of its own; a
// planted error (one output moved by twice the bound's share of the reference's norm) fails.
void picks_fuse_the_epilogue(ktune::Conv2dPrecision p) {
  ASSERT_GT(ktune::tuned_conv2d_ex_info_cuda(p).num_configs, 0);
  const ktune::cuda::Stream stream;
  const auto api_stream = reinterpret_cast<ktune::cudaStream_t>(stream.get());
  const Parts& parts = kParts[2];
  for (const conv::Shape& s : test_layers())
    for (bool out16 : outputs16(p)) {
      const Layer l(s, p);
      l.prepare(out16, parts);
      ktune::conv2d_ex(p, l.output(out16), s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
                       l.x.data(), l.w.data(), l.out(out16), l.epilogue(out16, parts), api_stream);
      ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess) << name(s);
      std::vector<float> out = l.values(out16);
      const double bound =  // the pick may be cuDNN
          l.bound(out16, parts, l.vendor_m(), l.sixteen());
      EXPECT_LE(l.error(out, out16, parts), bound) << name(s) << " " << l.output_name(out16);
      const auto y = l.reference(out16, parts);
      const size_t at = out.size() / 2;
      out[at] += float(2 * bound * norm(y));
      EXPECT_GT(l.error(out, out16, parts), bound) << "a planted error passed on " << name(s);
    }
}

TEST(TunedConv2dExCudaEpilogue, TheSelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  picks_fuse_the_epilogue(kBf16);
}

TEST(TunedConv2dExCudaEpilogue, TheFp16SelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  picks_fuse_the_epilogue(kFp16);
}

TEST(TunedConv2dExCudaEpilogue, TheTf32SelectorsPicksMatchTheReferenceAndAPlantedErrorFails) {
  KTUNE_REQUIRE_GPU();
  picks_fuse_the_epilogue(kTf32);
}

// Precision p's cuDNN candidate with each epilogue in FP32 and the data's 16-bit output: the
// search's call and a steady-state one (FP32: one pass after the engine widens its 16-bit output
// (or after an FP32-output engine) and applies the epilogue; 16 bits: the engine writes the
// output, one pass in place applies it). A layer no earlier test searched.
void the_cudnn_candidate_applies_each_epilogue(ktune::Conv2dPrecision p, const Layer& l) {
  const int index = cudnn_index(p);
  ASSERT_GE(index, 0) << "the selector of precision " << int(p) << " ships no vendor=cudnn";
  const conv::Shape& s = l.shape;
  for (bool out16 : outputs16(p))
    for (const Parts& parts : kParts)
      for (const char* call : {"first", "second"}) {
        l.prepare(out16, parts);
        ASSERT_TRUE(ktune::tuned_conv2d_ex_run_config_cuda(
            p, l.output(out16), index, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
            l.x.data(), l.w.data(), l.out(out16), l.epilogue(out16, parts), nullptr))
            << "cuDNN refused " << name(s);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const double error = l.error(l.values(out16), out16, parts);
        EXPECT_LE(error, l.bound(out16, parts, l.vendor_m(), l.sixteen()))
            << call << " " << parts.name << " " << l.output_name(out16);
        EXPECT_GT(error, 0.0);
      }
}

TEST(TunedConv2dExCudaEpilogue, TheFp16CudnnCandidateAppliesTheEpilogue) {
  KTUNE_REQUIRE_GPU();
  the_cudnn_candidate_applies_each_epilogue(kFp16, Layer({1, 28, 28, 128, 128, 3, 3, 1, 1}, kFp16));
}

// tf32's: cuDNN writes the FP32 output itself, one pass in place applies the epilogue.
TEST(TunedConv2dExCudaEpilogue, TheTf32CudnnCandidateAppliesTheEpilogue) {
  KTUNE_REQUIRE_GPU();
  the_cudnn_candidate_applies_each_epilogue(kTf32, Layer({1, 28, 28, 128, 128, 3, 3, 1, 1}, kTf32));
}

// The bf16 cuDNN candidate as above, and precision fp32 (ktune::conv2d's kinds, then the pass).
TEST(TunedConv2dExCudaEpilogue, TheCudnnCandidateAndPrecisionFp32ApplyTheEpilogue) {
  KTUNE_REQUIRE_GPU();
  const conv::Shape s{1, 28, 28, 128, 128, 3, 3, 1, 1};
  const Layer l(s);
  the_cudnn_candidate_applies_each_epilogue(kBf16, l);
  // Precision fp32: the FP32 data of the same values (the bf16 ones widened), FP32 output; the
  // FP32 kinds include Winograd F(4x4, 3x3). The reference is of the data before the bf16
  // rounding, so the bf16 shape's bound (which counts that rounding) applies.
  std::vector<float> in32(l.in_host.size()), fl32(l.fl_host.size());
  for (size_t i = 0; i < in32.size(); ++i) in32[i] = l.widen(l.narrow(l.in_host[i]));
  for (size_t i = 0; i < fl32.size(); ++i) fl32[i] = l.widen(l.narrow(l.fl_host[i]));
  const auto x32 = upload(in32, "FP32 input");
  const auto w32 = upload(fl32, "FP32 filter");
  for (const Parts& parts : kParts) {
    l.prepare(false, parts);
    ktune::conv2d_ex(ktune::Conv2dPrecision::fp32, ktune::Conv2dOutput::fp32, s.n, s.h, s.w, s.c,
                     s.k, s.r, s.s, s.stride, s.pad, x32.data(), w32.data(), l.out(false),
                     l.epilogue(false, parts), nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const double error = l.error(l.values(false), false, parts);
    EXPECT_LE(error, l.bound(false, parts, 4, false)) << "fp32 " << parts.name;
    EXPECT_GT(error, 0.0);
  }
}

TEST(TunedConv2dExCudaEpilogue, BadEpilogueArgumentsThrowBeforeTouchingTheDevice) {
  // Never dereferenced: the checks run on the addresses. The output: 1·8·8·4 FP32 = 1 KiB.
  char* base = reinterpret_cast<char*>(uintptr_t(1) << 20);
  void* out = base;
  const void* x = base + 65536;
  auto message = [&](const ktune::Conv2dEpilogue& e, ktune::Conv2dOutput o) {
    return ktune::test::thrown_message<ktune::Conv2dError>(
        [&] { ktune::conv2d_ex(kBf16, o, 1, 8, 8, 64, 4, 3, 3, 1, 1, x, x, out, e, nullptr); });
  };
  const auto fp32 = ktune::Conv2dOutput::fp32, bf16 = ktune::Conv2dOutput::bf16;
  ktune::Conv2dEpilogue e;
  e.residual = base + 512;
  EXPECT_NE(message(e, fp32).find("ktune::conv2d_ex: epilogue residual overlaps the output"),
            std::string::npos);
  e.residual = base + 2;
  EXPECT_NE(message(e, fp32).find("epilogue residual is not aligned to 4 bytes"),
            std::string::npos);
  e.residual = base + 4096 + 1;
  EXPECT_NE(message(e, bf16).find("epilogue residual is not aligned to 2 bytes"),
            std::string::npos);
  e = {};
  e.bias = reinterpret_cast<const float*>(base + 1020);
  EXPECT_NE(message(e, fp32).find("epilogue bias overlaps the output"), std::string::npos);
  e.bias = reinterpret_cast<const float*>(base + 4096 + 2);
  EXPECT_NE(message(e, fp32).find("epilogue bias is not aligned to 4 bytes"), std::string::npos);
  // Precision fp32 checks the same.
  e = {};
  e.residual = base + 4;
  EXPECT_NE(ktune::test::thrown_message<ktune::Conv2dError>([&] {
              ktune::conv2d_ex(ktune::Conv2dPrecision::fp32, fp32, 1, 8, 8, 64, 4, 3, 3, 1, 1, x, x,
                               out, e, nullptr);
            }).find("epilogue residual overlaps the output"),
            std::string::npos);
}

}  // namespace
