#pragma once
// Runtime dispatch from a tile config to its compile-time instantiation.
#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/gemm/gemm_family.hpp"

namespace ktune::kernels::gemm::cpu {

void run_seed(const Args& args, const Tile& tile);

}  // namespace ktune::kernels::gemm::cpu
