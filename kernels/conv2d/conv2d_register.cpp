// Registers the conv2d family and its CPU backend (called by ktune::register_builtin).
#include <memory>

#include "kernels/conv2d/conv2d_family.hpp"

namespace ktune::kernels::conv2d {

void register_cpu_backend();  // kernels/conv2d/cpu/conv2d_cpu_backend.cpp

void register_builtin() {
  register_family(std::make_unique<Conv2dFamily>());
  register_cpu_backend();
}

}  // namespace ktune::kernels::conv2d
