#pragma once
// Host float64 reference GEMM and the verification metric shared by the backends and tests.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/gemm_shape.hpp"

namespace ktune::kernels::gemm {

// Uniform values in [-1, 1) from a seeded generator: never zeros, so unwritten outputs and wrong
// indexing show up.
std::vector<float> random_matrix(size_t count, uint64_t seed);

// C = alpha*op(A)*op(B) + beta*C in float64 over the float inputs (C read only when beta != 0).
std::vector<double> reference_gemm(const Shape& s, const float* a, const float* b, double alpha,
                                   double beta, const float* c_in);

// ||C - ref||_F / ||ref||_F over the m×n×batch logical elements; NaN/Inf anywhere gives +inf.
double relative_error(const Shape& s, const float* c, const std::vector<double>& ref);

// x's 16 bits rounded to nearest even (bf16 / fp16), and the value of such bits (exact); precision
// bf16 or fp16.
uint16_t input_bits(float x, Precision precision);
float input_value(uint16_t bits, Precision precision);
// The 16-bit bits of each value rounded to nearest even (bf16 / fp16); empty for the 4-byte
// precisions (fp32, tf32), whose inputs are the float values themselves.
std::vector<uint16_t> to_input_bits(const std::vector<float>& values, Precision precision);
// The values of bf16 / fp16 bits (exact), e.g. a 16-bit C read back; precision bf16 or fp16.
std::vector<float> from_input_bits(const std::vector<uint16_t>& bits, Precision precision);
// x as the precision's arithmetic sees it: rounded to bf16 / fp16 (nearest even) or to tf32
// (nearest, ties away: cvt.rna), unchanged for fp32. For host emulation in tests.
float round_input(float x, Precision precision);

// Stable 64-bit seed from a problem key, so every run of a problem sees the same inputs.
uint64_t seed_of(const std::string& key);

}  // namespace ktune::kernels::gemm
