#pragma once
// Runtime dispatch from a `packedz` config to its compile-time instantiation (the GEMM family's
// AVX-512 kind; the `packed` kind's dispatch is a shared building block): the FP32 kernels, and
// the bf16 ones (gemm_cpu_packedz_bf16.hpp) for bf16 problems.
#include <string>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cpu {

// Whether this build has the packedz kernels (its kernels' target has AVX-512F).
bool packedz_available();

// Runs the packedz kernel: micro-tile one of kPackedzMicroTiles, kc, mc, nc > 0, pa and pb 0
// or 1. Throws ktune::Error otherwise, and in builds without AVX-512 (packedz_available()).
void run_packedz(const Args& args, const PackedParams& p);

// Empty when this build has the bf16 kernels (its kernels' target has AVX-512F) and this CPU
// runs them (cpuid reports AVX512_BF16); else why not, for the refused record.
std::string packedz_bf16_missing();

// Runs the bf16 kernel: micro-tile one of kPackedzMicroTiles, kc, mc, nc > 0 (pa, pb unused:
// both operands are packed). Throws ktune::Error otherwise and where packedz_bf16_missing()
// is not empty.
void run_packedz_bf16(const Bf16Args& args, const PackedParams& p);

}  // namespace ktune::kernels::gemm::cpu
