#pragma once
// Run-time compiled GEMM kernels for one CUDA device: instantiations of the seed kernel
// (gemm_seed.cuh) per tile, the verification kernel (gemm_verify.cuh), and a checked launch
// that classifies failures into the measurement statuses.
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/measurement.hpp"
#include "src/cuda/device_buffer.hpp"
#include "src/cuda/loaded_kernel.hpp"
#include "src/cuda/nvrtc_compile.hpp"

namespace ktune::kernels::gemm::cuda {

using ktune::cuda::LoadedKernel;


// "ktune_gemm_seed<4,2,8>"
std::string seed_name_expression(const Tile& tile);

// NVRTC options of every seed instantiation (part of the cache key).
std::vector<std::string> seed_compile_options();

// Instantiations of one kernel source for one architecture, by NVRTC name expression
// ("ktune_gemm_seed<4,2,8>"), compiled on demand or all at once in parallel by prepare(), then
// loaded on the calling thread's current device. Compile failures are remembered per name, so a
// broken instantiation costs one compile per process.
class KernelCache {
 public:
  KernelCache(std::string arch, std::string source, std::string file_name);

  // Compiles (NVRTC, disk cache) all names not compiled yet on `threads` threads (0: hardware
  // concurrency), then loads them. Failures are recorded, never thrown.
  void prepare(const std::vector<std::string>& names, unsigned threads = 0);
  // The loaded kernel; throws CompileError (or CudaError) when it cannot be had.
  const LoadedKernel& get(const std::string& name);
  // How many of the compiles so far were served by the disk cache.
  int cache_hits() const { return cache_hits_; }
  const std::string& arch() const { return arch_; }

 private:
  struct Entry {
    std::unique_ptr<LoadedKernel> kernel;
    std::string error;  // compile or load failure, first line
    bool compile_error = false;
  };
  void install(const std::string& name, const ktune::cuda::CubinImage* image,
               const std::string& error, bool compile_error);

  std::string arch_, source_, file_name_;
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  int cache_hits_ = 0;
};

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

// ||c - ref||_F / ||ref||_F on the GPU in float64 (ref in float64 with c's layout).
class RelErrorKernel {
 public:
  explicit RelErrorKernel(const std::string& arch);
  // Synchronizes `stream`; NaN/Inf in c give NaN/Inf. Throws CudaError on CUDA failures.
  double operator()(const float* c, const double* ref, const Shape& shape, cudaStream_t stream);

 private:
  static constexpr int kThreads = 256;  // KTUNE_VERIFY_THREADS in gemm_verify.cuh
  static constexpr int kMaxBlocks = 1024;
  std::unique_ptr<LoadedKernel> kernel_;
  ktune::cuda::DeviceBuffer<double> partials_;
};

}  // namespace ktune::kernels::gemm::cuda
