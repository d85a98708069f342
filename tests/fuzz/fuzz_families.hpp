#pragma once
// The workload and model harnesses register the families' descriptions (features, problems,
// codegen signatures) directly, without their CPU backends: no harness runs a kernel, and the
// kernels' sources under ASan would make this build many times longer. Called once per
// process (LLVMFuzzerInitialize).
#include <memory>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "kernels/stencil/stencil_family.hpp"
#include "ktune/family.hpp"

inline void register_fuzz_families() {
  ktune::register_family(std::make_unique<ktune::kernels::gemm::GemmFamily>());
  ktune::register_family(std::make_unique<ktune::stencil::StencilFamily>());
  ktune::register_family(std::make_unique<ktune::kernels::conv2d::Conv2dFamily>());
}
