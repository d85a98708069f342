#pragma once
// The CUDA backend of the GEMM family: opens problems on one GPU (random inputs, a float64
// cuBLAS reference computed once per problem), runs configs of the seed kernel compiled with
// NVRTC, verifies them on NaN-poisoned output and times them with CUDA events, rotating input
// copies when the problem would otherwise stay in L2. Vendor baseline: "cublas" (FP32, no
// TF32). A backend and its sessions are used from one thread at a time; sessions must not
// outlive their backend.
#include <cstdint>
#include <memory>
#include <string>

#include "ktune/family.hpp"

namespace ktune::kernels::gemm::cuda {

struct BackendOptions {
  std::string kernel_source;  // seed kernel program text; empty: embedded gemm_seed.cuh
  uint64_t data_seed = 0;  // xor-ed into the per-problem input seed (kernels::gemm::seed_of(key))
};

// Throws Error naming "cuda:<index>" when the device is unavailable.
std::unique_ptr<Backend> make_backend(const Family& family, int device_index,
                                      BackendOptions options = {});


}  // namespace ktune::kernels::gemm::cuda
