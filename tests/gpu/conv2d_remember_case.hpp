#pragma once
// Runs of the CUDA tuned conv2d library for its tune-and-remember tests
// (test_tuned_conv2d_remember_cuda.cpp and the worker process): a layer's data on the device as the
// precision reads it, and one call — by the library (config -1: ktune::conv2d for fp32, else
// ktune::conv2d_ex) or a direct call of one shipped config — on an output poisoned with NaN
// (every bit set) between guard bytes, returning the output's bytes (nothing when the config
// refused the layer).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "tests/gpu/conv2d_tc_checks.hpp"

namespace ktune::test::conv_remember {

namespace conv = ktune::kernels::conv2d;
namespace kg = ktune::kernels::gemm;
inline constexpr size_t kGuardBytes = 256;
inline constexpr unsigned char kGuardByte = 0xA5;

// A layer in precision p (fp32: ktune::conv2d's FP32 data): random FP32 data uploaded as p reads
// it, the float64 reference of that FP32 data.
struct Layer {
  Layer(const conv::Shape& s, ktune::Conv2dPrecision p) : shape(s), precision(p) {
    shape.precision = kg::Precision(int(p));  // conv2d_ex's codes are the sweep's
    input = kg::random_matrix(size_t(s.input_elements()), 31);
    filter = kg::random_matrix(size_t(s.filter_elements()), 32);
    x = conv::cuda::test::upload_as_read(input, shape.precision, "input");
    w = conv::cuda::test::upload_as_read(filter, shape.precision, "filter");
  }
  const std::vector<double>& reference() {
    if (reference_.empty()) reference_ = conv::reference_conv2d(shape, input.data(), filter.data());
    return reference_;
  }
  size_t count() const { return size_t(shape.output_elements()); }
  conv::Shape shape;
  ktune::Conv2dPrecision precision;
  std::vector<float> input, filter;
  ktune::cuda::DeviceBuffer<unsigned char> x, w;

 private:
  std::vector<double> reference_;
};

inline size_t output_bytes(bool out16) { return out16 ? 2 : 4; }

inline const ktune::TunedConv2dInfo& info_of(ktune::Conv2dPrecision p) {
  return p == ktune::Conv2dPrecision::fp32 ? ktune::tuned_conv2d_info_cuda()
                                           : ktune::tuned_conv2d_ex_info_cuda(p);
}

// One call on the output `initial` (its bytes; empty: NaN everywhere) between guards, on stream;
// the output's bytes after it, or nothing when the direct call of `config` refused the layer.
// The epilogue's residual, when `residual_in_place`, is the output itself (initial holds it).
inline std::optional<std::vector<unsigned char>> run(const Layer& l, bool out16, int config,
                                                     ktune::Conv2dEpilogue epilogue = {},
                                                     bool residual_in_place = false,
                                                     const std::vector<unsigned char>& initial = {},
                                                     cudaStream_t stream = nullptr) {
  const size_t bytes = l.count() * output_bytes(out16);
  std::vector<unsigned char> host(bytes + 2 * kGuardBytes, kGuardByte);
  if (initial.empty())
    std::memset(host.data() + kGuardBytes, 0xFF, bytes);
  else
    std::memcpy(host.data() + kGuardBytes, initial.data(), bytes);
  ktune::cuda::DeviceBuffer<unsigned char> y(host.size(), "output");
  ktune::cuda::check(cudaMemcpy(y.data(), host.data(), host.size(), cudaMemcpyHostToDevice),
                     "cudaMemcpy(output)");
  void* out = y.data() + kGuardBytes;
  if (residual_in_place) epilogue.residual = out;
  const conv::Shape& s = l.shape;
  const auto out_type = out16 ? ktune::Conv2dOutput(int(l.precision)) : ktune::Conv2dOutput::fp32;
  auto* st = reinterpret_cast<ktune::cudaStream_t>(stream);
  bool ran = true;
  if (l.precision == ktune::Conv2dPrecision::fp32) {
    const auto* x = reinterpret_cast<const float*>(l.x.data());
    const auto* w = reinterpret_cast<const float*>(l.w.data());
    if (config < 0)
      ktune::conv2d(s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, x, w,
                    static_cast<float*>(out), st);
    else
      ran = ktune::tuned_conv2d_run_config_cuda(config, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride,
                                                s.pad, x, w, static_cast<float*>(out), st);
  } else if (config < 0) {
    ktune::conv2d_ex(l.precision, out_type, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
                     l.x.data(), l.w.data(), out, epilogue, st);
  } else {
    ran = ktune::tuned_conv2d_ex_run_config_cuda(l.precision, out_type, config, s.n, s.h, s.w, s.c,
                                                 s.k, s.r, s.s, s.stride, s.pad, l.x.data(),
                                                 l.w.data(), out, epilogue, st);
  }
  ktune::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  ktune::cuda::check(cudaMemcpy(host.data(), y.data(), host.size(), cudaMemcpyDeviceToHost),
                     "cudaMemcpy(output back)");
  for (size_t i = 0; i < kGuardBytes; ++i) {
    EXPECT_EQ(host[i], kGuardByte) << "guard before the output, byte " << i;
    EXPECT_EQ(host[host.size() - 1 - i], kGuardByte) << "guard after the output, byte " << i;
  }
  if (!ran) return std::nullopt;
  return std::vector<unsigned char>(host.begin() + long(kGuardBytes),
                                    host.end() - long(kGuardBytes));
}

// The output's values as floats (a 16-bit output widened exactly).
inline std::vector<float> values_of(const Layer& l, bool out16,
                                    const std::vector<unsigned char>& bytes) {
  std::vector<float> out(l.count());
  if (!out16) {
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t b = 0;
    std::memcpy(&b, bytes.data() + 2 * i, 2);
    out[i] = kg::input_value(b, l.shape.precision);
  }
  return out;
}

// The worker's layers: bf16 with bf16 output, 64 channels (the wgmma kinds apply), each its own
// size.
inline conv::Shape worker_layer(int index) {
  return conv::Shape{1, 8 + 2 * index, 8 + 2 * index, 64, 64, 3, 3, 1, 1};
}

}  // namespace ktune::test::conv_remember
