#pragma once
// A conv2d problem's sizes (layouts and meaning in kernels/conv2d/conv2d_family.hpp).
// Self-contained C++17: the CPU kernels and the deployed libraries use it without ktune's core.
#include <cstdint>

#include "kernels/common/gemm_config.hpp"  // Precision (self-contained)

namespace ktune::kernels::conv2d {

struct Shape {
  int64_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, s = 1, stride = 1, pad = 0;
  // fp32: FP32 input and filter; bf16 / fp16: 16-bit input and filter (same layouts), FP32
  // accumulation and FP32 output in both (the problem's optional `precision` feature).
  gemm::Precision precision = gemm::Precision::fp32;

  int64_t p() const { return (h + 2 * pad - r) / stride + 1; }  // output height
  int64_t q() const { return (w + 2 * pad - s) / stride + 1; }  // output width
  int64_t input_elements() const { return n * h * w * c; }
  int64_t filter_elements() const { return k * r * s * c; }
  int64_t output_elements() const { return n * p() * q() * k; }
  // The implicit GEMM: (n·p·q) × k outputs, each a dot product of length c·r·s.
  int64_t gemm_m() const { return n * p() * q(); }
  int64_t gemm_n() const { return k; }
  int64_t gemm_k() const { return c * r * s; }
  double flops() const { return 2.0 * double(gemm_m()) * double(gemm_n()) * double(gemm_k()); }
  // Compulsory traffic: input, filter and output once each, FP32 (also for 16-bit problems: the
  // learned features keep the numbers they had before precisions existed).
  double bytes() const {
    return 4.0 * double(input_elements() + filter_elements() + output_elements());
  }
  bool winograd_applies() const { return r == 3 && s == 3 && stride == 1; }
};

}  // namespace ktune::kernels::conv2d
