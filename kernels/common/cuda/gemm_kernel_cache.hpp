#pragma once
// Building blocks of run-time compiled GEMM kernels shared by the families that run them (the
// GEMM family, conv2d's GEMM-based kinds): a per-device cache of NVRTC instantiations of one
// kernel source, and the float64 verification kernel (gemm_verify.cuh).
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/common/gemm_shape.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/cuda/loaded_kernel.hpp"
#include "ktune/cuda/nvrtc_compile.hpp"

namespace ktune::kernels::gemm::cuda {

using ktune::cuda::LoadedKernel;

// NVRTC options of every instantiation a KernelCache compiles (part of the cache key).
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

// ||c - ref||_F / ||ref||_F on the GPU in float64 (ref in float64 with c's layout).
class RelErrorKernel {
 public:
  explicit RelErrorKernel(const std::string& arch);
  // Synchronizes `stream`; NaN/Inf in c give NaN/Inf. Throws CudaError on CUDA failures.
  double operator()(const float* c, const double* ref, const Shape& shape, cudaStream_t stream) {
    return (*this)(c, 0, ref, shape, stream);
  }
  // The same for c of c_type: 0 floats, or GEMM's 16-bit C, 2 bf16 / 3 fp16 (Precision's values).
  double operator()(const void* c, int c_type, const double* ref, const Shape& shape,
                    cudaStream_t stream);

 private:
  static constexpr int kThreads = 256;  // KTUNE_VERIFY_THREADS in gemm_verify.cuh
  static constexpr int kMaxBlocks = 1024;
  std::unique_ptr<LoadedKernel> kernel_;
  ktune::cuda::DeviceBuffer<double> partials_;
};

}  // namespace ktune::kernels::gemm::cuda
