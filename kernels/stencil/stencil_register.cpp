// Registers the stencil family and its CPU backend (called by ktune::register_builtin).
#include <memory>

#include "kernels/stencil/stencil_family.hpp"

namespace ktune::stencil {

void register_cpu_backend();  // kernels/stencil/cpu/stencil_cpu_backend.cpp

void register_builtin() {
  register_family(std::make_unique<StencilFamily>());
  register_cpu_backend();
}

}  // namespace ktune::stencil
