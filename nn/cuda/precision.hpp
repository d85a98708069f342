#pragma once
// The precision a CUDA network backend computes in (docs/networks.md, "Precisions"):
//   fp32  FP32 activations and weights, FP32 FMA math (no tensor cores)
//   tf32  FP32 activations and weights, convolutions and GEMMs on the tensor cores in TF32
//         (inputs cut to 10 mantissa bits in the MMA), FP32 accumulation
//   bf16  bf16 activations between layers and bf16 weights (7 mantissa bits), FP32
//         accumulation in convolutions and GEMMs; bias, pooling, add and softmax computed in
//         FP32 and rounded once to bf16; biases kept in FP32
#include <string>

namespace ktune::nn::cuda {

enum class Precision { fp32, tf32, bf16 };

// "fp32", "tf32", "bf16".
const char* precision_name(Precision p);
// The inverse; throws ktune::Error naming `name` for anything else.
Precision parse_precision(const std::string& name);
// Relative error bound of one input of a layer's dot products: 2^-24 (fp32), 2^-10 (tf32:
// truncation allowed), 2^-8 (bf16, rounded to nearest).
double input_roundoff(Precision p);
// Unit roundoff of the stored activations: 2^-24 (fp32, tf32), 2^-8 (bf16).
double storage_roundoff(Precision p);

}  // namespace ktune::nn::cuda
