#pragma once
// Runtime dispatch from a `packed` or `packedz` config to its compile-time instantiation.
#include "kernels/gemm/cpu/gemm_cpu_kernel.hpp"
#include "kernels/gemm/gemm_config.hpp"

namespace ktune::kernels::gemm::cpu {

// Runs the packed kernel with micro-tile mr×nr, (mr, nr) one of (8,4), (8,6), (8,8), (8,12),
// (16,4), (16,6), (24,4), and cache blocks kc, mc, nc > 0. Throws ktune::Error otherwise.
void run_packed(const Args& args, const PackedParams& p);

// Whether this build has the packedz kernels (its kernels' target has AVX-512F).
bool packedz_available();

// Runs the packedz kernel: micro-tile one of kPackedzMicroTiles, kc, mc, nc > 0, pa and pb 0
// or 1. Throws ktune::Error otherwise, and in builds without AVX-512 (packedz_available()).
void run_packedz(const Args& args, const PackedParams& p);

}  // namespace ktune::kernels::gemm::cpu
