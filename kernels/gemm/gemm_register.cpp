// The GEMM family's registration entry (called by the generated family list).
#include <memory>

#include "kernels/gemm/gemm_family.hpp"

namespace ktune::kernels::gemm {
void register_cpu_backend();  // cpu/gemm_cpu_backend.cpp
}

KTUNE_FAMILY_ENTRY(gemm) {
  ktune::register_family(std::make_unique<ktune::kernels::gemm::GemmFamily>());
  ktune::kernels::gemm::register_cpu_backend();
}
