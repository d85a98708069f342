// The seed kernel's instantiations with A transposed (gemm_cpu_seed_table.hpp).
#include "kernels/gemm/cpu/gemm_cpu_seed_table.hpp"

namespace ktune::kernels::gemm::cpu {

template const SeedTable& seed_table<true>();

}  // namespace ktune::kernels::gemm::cpu
