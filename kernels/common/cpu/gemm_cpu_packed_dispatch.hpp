#pragma once
// Runtime dispatch from a `packed` config to its compile-time instantiation.
#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cpu {

// Runs the packed kernel with micro-tile mr×nr, (mr, nr) one of (8,4), (8,6), (8,8), (8,12),
// (16,4), (16,6), (24,4), and cache blocks kc, mc, nc > 0. Throws ktune::Error otherwise.
void run_packed(const Args& args, const PackedParams& p);

}  // namespace ktune::kernels::gemm::cpu
