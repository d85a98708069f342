#pragma once
// Host float64 reference convolution and the verification metric shared by the conv2d backends,
// tests and benchmarks. Inputs come from kernels/common/gemm_reference.hpp's seeded generator
// (random_matrix, seed_of): uniform in [-1, 1), never zero, stable per problem key.
#include <cstdint>
#include <vector>

#include "kernels/conv2d/conv2d_family.hpp"

namespace ktune::kernels::conv2d {

// out[n][p][q][k] in float64 over the float input (NHWC) and filter (KRSC).
std::vector<double> reference_conv2d(const Shape& s, const float* input, const float* filter);

// ||out - ref||_F / ||ref||_F over the output (NHWC); NaN or Inf anywhere gives +inf.
double relative_error(const Shape& s, const float* out, const std::vector<double>& ref);

}  // namespace ktune::kernels::conv2d
