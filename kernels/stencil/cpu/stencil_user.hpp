#pragma once
// The stencil user functions on the CPU: the very headers NVRTC compiles for CUDA
// (kernels/stencil/cuda/stencil_<program>.cuh), with the names their prelude provides there
// (KTUNE_HD, ktune_sqrt) defined for C++. Synthetic programs are generated text on CUDA; here
// they are ktune::stencil::cpu::synthetic (stencil_cpu_kernel.hpp), the same operation order.
#include <cmath>

#define KTUNE_HD inline

inline float ktune_sqrt(float x) { return std::sqrt(x); }
inline double ktune_sqrt(double x) { return std::sqrt(x); }

#include "kernels/stencil/cuda/stencil_gaussian.cuh"
#include "kernels/stencil/cuda/stencil_heat.cuh"
#include "kernels/stencil/cuda/stencil_life.cuh"
#include "kernels/stencil/cuda/stencil_nms.cuh"
#include "kernels/stencil/cuda/stencil_sobel.cuh"
#include "kernels/stencil/cuda/stencil_threshold.cuh"
