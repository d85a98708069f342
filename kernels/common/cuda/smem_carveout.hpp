#pragma once
// The shared-memory carveout ktune's tensor-core kernels (GEMM mma / wgmma, conv2d igemm_mma) ask
// the driver for: an experiment knob, KTUNE_CUDA_SMEM_CARVEOUT = 0..100 (percent of an SM's
// unified L1 / shared memory given to shared memory; unset: no request, the driver's choice, as
// before). Why: timed in turns with the
// cuBLAS / cuBLASLt calls on an H200 (results/h200/gemm-deployed-turns, docs/deploy.md), each
// `mma` call (24-74 KB of shared memory) took ~1.3-3 us longer than timed back to back, each
// `wgmma` call (147-164 KB, like the vendors' big kernels) ~0.3-0.9 us, the vendors' calls
// nothing. One reading: an SM left in another carveout by the previous kernel is reconfigured
// before the next one starts there. 100 asks for the vendors' setting; tuned_gemm_bench
// --turns-probe with and without the variable tells whether it removes the cost.
#include <cuda_runtime_api.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace ktune::kernels::cuda_carveout {

// A KTUNE_CUDA_SMEM_CARVEOUT value: -1 for none (nullptr), else the percent 0..100; anything else
// throws std::invalid_argument naming the variable.
inline int parse_carveout(const char* text) {
  if (text == nullptr) return -1;
  char* end = nullptr;
  errno = 0;
  const long percent = std::strtol(text, &end, 10);
  if (!std::isdigit(static_cast<unsigned char>(*text)) || *end != '\0' || errno != 0 ||
      percent > 100)
    throw std::invalid_argument(std::string("KTUNE_CUDA_SMEM_CARVEOUT: '") + text +
                                "' is not a percent from 0 to 100");
  return int(percent);
}

// The process's request, read from the environment once (-1: none).
inline int requested_carveout() {
  static const int percent = parse_carveout(std::getenv("KTUNE_CUDA_SMEM_CARVEOUT"));
  return percent;
}

// Asks for the process's carveout on `kernel` before its launch (nothing when none is requested).
inline cudaError_t apply_requested_carveout(const void* kernel) {
  const int percent = requested_carveout();
  if (percent < 0) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent);
}

}  // namespace ktune::kernels::cuda_carveout
