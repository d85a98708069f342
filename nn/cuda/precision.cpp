#include "nn/cuda/precision.hpp"

#include <cmath>

#include "ktune/error.hpp"

namespace ktune::nn::cuda {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::tf32:
      return "tf32";
    case Precision::bf16:
      return "bf16";
    default:
      return "fp32";
  }
}

Precision parse_precision(const std::string& name) {
  for (const Precision p : {Precision::fp32, Precision::tf32, Precision::bf16})
    if (name == precision_name(p)) return p;
  throw Error("precision '" + name + "': expected fp32, tf32 or bf16");
}

double input_roundoff(Precision p) {
  // Half an ulp of 1 with 23 (fp32) or 7 (bf16, rounded to nearest by the engine) stored
  // mantissa bits; tf32: a whole ulp with 10 bits, since the tensor cores may truncate an FP32
  // operand to TF32 rather than round it.
  return std::ldexp(1.0, p == Precision::fp32 ? -24 : p == Precision::tf32 ? -10 : -8);
}

double storage_roundoff(Precision p) { return std::ldexp(1.0, p == Precision::bf16 ? -8 : -24); }

}  // namespace ktune::nn::cuda
