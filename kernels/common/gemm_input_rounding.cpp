// Rounding of GEMM inputs to the tensor-core formats on the host: the CUDA sessions upload
// bf16 / fp16 bits made here, and tests emulate the kernels' arithmetic with round_input.
#include <cmath>
#include <cstring>

#include "kernels/common/gemm_reference.hpp"

namespace ktune::kernels::gemm {
namespace {

uint32_t bits_of(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

uint16_t bf16_bits(float x) {
  const uint32_t u = bits_of(x);
  if (std::isnan(x)) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);  // nearest even
}

uint16_t fp16_bits(float x) {
  const uint32_t u = bits_of(x), sign = (u >> 16) & 0x8000, ax = u & 0x7FFFFFFF;
  if (ax > 0x7F800000) return uint16_t(sign | 0x7E00);  // NaN
  if (ax < 0x38800000) {  // below 2^-14: a subnormal half, in units of 2^-24 (exact scaling)
    return uint16_t(sign | uint32_t(std::nearbyint(std::fabs(x) * 16777216.0f)));
  }
  const uint32_t rounded = ax + 0xFFF + ((ax >> 13) & 1);  // nearest even at the 10th bit
  const uint32_t h = (rounded - 0x38000000) >> 13;         // exponent bias 127 -> 15
  return uint16_t(sign | (h >= 0x7C00 ? 0x7C00 : h));
}

float fp16_value(uint16_t h) {
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  const int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  if (exponent == 0) return sign * std::ldexp(float(mantissa), -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

}  // namespace

uint16_t input_bits(float x, Precision precision) {
  return precision == Precision::bf16 ? bf16_bits(x) : fp16_bits(x);
}

float input_value(uint16_t bits, Precision precision) {
  return precision == Precision::bf16 ? float_of(uint32_t(bits) << 16) : fp16_value(bits);
}

std::vector<uint16_t> to_input_bits(const std::vector<float>& values, Precision precision) {
  if (input_bytes(precision) != 2) return {};
  std::vector<uint16_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = input_bits(values[i], precision);
  return out;
}

std::vector<float> from_input_bits(const std::vector<uint16_t>& bits, Precision precision) {
  std::vector<float> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) out[i] = input_value(bits[i], precision);
  return out;
}

float round_input(float x, Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return x;
    case Precision::tf32:  // add half an ulp of the 10-bit mantissa to the magnitude, truncate
      return std::isfinite(x) ? float_of((bits_of(x) + 0x1000) & ~0x1FFFu) : x;
    case Precision::bf16:
      return float_of(uint32_t(bf16_bits(x)) << 16);
    case Precision::fp16:
      return fp16_value(fp16_bits(x));
  }
  return x;
}

}  // namespace ktune::kernels::gemm
