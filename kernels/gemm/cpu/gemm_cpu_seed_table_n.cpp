// The seed kernel's instantiations with A not transposed (gemm_cpu_seed_table.hpp).
#include "kernels/gemm/cpu/gemm_cpu_seed_table.hpp"

namespace ktune::kernels::gemm::cpu {

template const SeedTable& seed_table<false>();

}  // namespace ktune::kernels::gemm::cpu
