#pragma once
// Run-time compiled GEMM kernels for one CUDA device: instantiations of the seed kernel
// (gemm_seed.cuh) per tile, of the tiled and warp kernels, and a checked launch that classifies
// failures into the measurement statuses (the kernel cache and the verification kernel are
// shared building blocks: kernels/common/cuda/gemm_kernel_cache.hpp).
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/common/cuda/gemm_kernel_cache.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/measurement.hpp"

namespace ktune::kernels::gemm::cuda {

// "ktune_gemm_seed<4,2,8>"
std::string seed_name_expression(const Tile& tile);

// Seed-kernel instantiations by tile (r, a, c; the work-group is a launch parameter).
class SeedKernels {
 public:
  // source: the program text; empty means the embedded gemm_seed.cuh.
  explicit SeedKernels(std::string arch, std::string source = {});
  // Throws Error for tiles outside {1,2,4,8}^3; compile failures are recorded, never thrown.
  void prepare(const std::vector<Tile>& tiles, unsigned threads = 0);
  // The loaded kernel of tile.r/a/c; throws CompileError (or CudaError) when it cannot be had.
  const LoadedKernel& get(const Tile& tile);
  int cache_hits() const { return cache_.cache_hits(); }
  const std::string& arch() const { return cache_.arch(); }

 private:
  KernelCache cache_;
};

// Tiled and split-K instantiations (gemm_tiled.cuh) and warp-tiled ones (gemm_warp.cuh) by
// (params, transa, transb), and the split-K reduction kernel. Construct with the device current.
class TiledKernels {
 public:
  explicit TiledKernels(std::string arch);
  struct Instance {
    BlockedParams params;
    bool transa, transb;
  };
  void prepare(const std::vector<Instance>& instances, unsigned threads = 0);
  const LoadedKernel& get(const Instance& instance);
  const LoadedKernel& reduce();
  // cudaDevAttrMaxSharedMemoryPerBlockOptin of the device (warp kernels opt in above 48 KiB).
  int max_shared_bytes() const { return max_shared_bytes_; }

 private:
  KernelCache cache_;       // gemm_tiled.cuh
  KernelCache warp_cache_;  // gemm_warp.cuh
  int max_shared_bytes_ = 48 * 1024;
};

struct LaunchResult {
  Status status = Status::ok;  // ok, refused (resources/limits) or failed
  std::string message;
};

// One asynchronous launch of the seed kernel on `stream` (no synchronization). The grid covers
// shape (m, n, batch); leading dimensions and batch strides come from shape. Refuses block
// sizes over the kernel's limit before launching, and classifies launch errors:
// out-of-resources / invalid configuration -> refused, anything else -> failed (sticky errors
// say that the context is lost).
LaunchResult launch_seed(const LoadedKernel& kernel, const Tile& tile, const Shape& shape,
                         float alpha, const float* a, const float* b, float beta, float* c,
                         cudaStream_t stream);

// The same for a tiled, split-K or warp config (launch_tiled / launch_warp); workspace
// holds tiled_workspace_floats(...) floats when params.splits > 1.
LaunchResult launch_blocked(TiledKernels& kernels, const BlockedParams& params, const Shape& shape,
                            float alpha, const float* a, const float* b, float beta, float* c,
                            float* workspace, cudaStream_t stream);

}  // namespace ktune::kernels::gemm::cuda
