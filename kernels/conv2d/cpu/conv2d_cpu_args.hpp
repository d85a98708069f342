#pragma once
// The arguments of every CPU conv2d kernel (layouts in kernels/conv2d/conv2d_family.hpp).
// Self-contained: the kernel headers and the deployed CPU library use it without ktune's core.
#include "kernels/conv2d/conv2d_shape.hpp"

namespace ktune::kernels::conv2d::cpu {

struct Args {
  Shape shape;
  const float* input = nullptr;
  const float* filter = nullptr;
  float* output = nullptr;
};

}  // namespace ktune::kernels::conv2d::cpu
