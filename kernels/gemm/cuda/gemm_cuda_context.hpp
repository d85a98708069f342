#pragma once
// Per-device resources shared by the GEMM CUDA backend and its problem sessions (internal).
#include <cublas_v2.h>

#include <cstdint>
#include <memory>

#include "kernels/gemm/cuda/gemm_cublaslt.hpp"
#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"
#include "ktune/cuda/cublas_handle.hpp"
#include "ktune/cuda/device_context.hpp"
#include "ktune/device.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::gemm::cuda {

using ktune::cuda::CublasHandle;

// The device (ktune::cuda::DeviceContext: stream, events, arch, L2) plus GEMM's own resources.
struct GemmContext {
  GemmContext(const Space& space, int device_index, const std::string& kernel_source,
              uint64_t data_seed);

  const Space& space;
  ktune::cuda::DeviceContext device;
  uint64_t data_seed;
  CublasHandle cublas;
  CublasLtHandle cublaslt;
  SeedKernels kernels;
  TiledKernels tiled;
  // The round's tiled / split-K / warp configs (Backend::prepare), one per instantiation: a
  // session compiles them for its transposes in parallel when its first one runs.
  std::vector<BlockedParams> blocked_configs;
  RelErrorKernel rel_error;
  KernelCache mma;  // gemm_mma.cuh instantiations, by name expression
  // The mma configs of the sweep (Backend::prepare): a session of a tf32/bf16/fp16 problem
  // compiles them for its precision and transposes in parallel when it opens.
  std::vector<BlockedParams> mma_configs;
  KernelCache wgmma;  // gemm_wgmma.cuh instantiations for sm_90a, by name expression
  std::vector<BlockedParams> wgmma_configs;  // likewise (wgmma, wgmmatf32)
};

// One problem on one device (see gemm_cuda_backend.hpp).
std::unique_ptr<ProblemSession> open_session(GemmContext& context, const Problem& problem);

}  // namespace ktune::kernels::gemm::cuda
