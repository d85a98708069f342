#pragma once
// Run-time compiled conv2d kernels for one CUDA device: the instantiations each config needs
// (conv2d_direct.cuh, conv2d_im2col.cuh, conv2d_winograd.cuh, conv2d_igemm_mma.cuh,
// conv2d_wgmma.cuh and the shared gemm_tiled.cuh), compiled by NVRTC on demand or all at once in
// parallel, plus the float64 reference kernel. conv2d_wgmma.cuh compiles for sm_90a (wgmma and
// setmaxnreg exist in that target only) and only on sm_90 devices: other devices refuse the kind
// without compiling.
#include <string>
#include <vector>

#include "kernels/common/cuda/gemm_kernel_cache.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_launch.hpp"

namespace ktune::kernels::conv2d::cuda {

// NVRTC name expressions of every kernel a config launches (any problem), by source file:
// {file name, name expression}. The GEMM instantiations come from gemm_tiled.cuh.
struct KernelName {
  std::string file;  // "conv2d_direct.cuh"
  std::string expression;
};
std::vector<KernelName> kernel_names(const CudaConvConfig& g);

// The cuda_igemm_mma instantiation of g for 16-bit `precision` and loader vec (8 or 1).
std::string igemm_mma_name(const CudaConvConfig& g, gemm::Precision precision, int vec);

// NVRTC name expression of the float64 reference kernel (conv2d_im2col.cuh).
inline constexpr const char* kReferenceName = "ktune_conv2d_reference";
// ... and of the 16-bit-to-FP32 widening of cuDNN's bf16 / fp16 outputs (same file).
inline constexpr const char* kWiden16Name = "ktune_conv2d_widen16";

class ConvKernelSet {
 public:
  explicit ConvKernelSet(std::string arch);
  // Compiles (NVRTC, disk cache) every kernel of these configs in parallel; failures are
  // recorded and reported by kernels().
  void prepare(const std::vector<CudaConvConfig>& configs, unsigned threads = 0);
  // The launchable kernels of g for problems with c % 4 == 0 (c4) or not (the im2col vector
  // width follows c). Throws CompileError or CudaError when one cannot be had.
  ConvKernels kernels(const CudaConvConfig& g, bool c4);
  // The cuda_igemm_mma kernel of g for a bf16 / fp16 problem, 16-byte loader (vec8) or not.
  const ktune::cuda::LoadedKernel& igemm_mma(const CudaConvConfig& g, gemm::Precision precision,
                                             bool vec8);
  // The cuda_igemm_wgmma kernel of g for a bf16 / fp16 problem (sm_90 devices only).
  const ktune::cuda::LoadedKernel& igemm_wgmma(const CudaConvConfig& g, gemm::Precision precision);
  // Whether this set's device runs the sm_90a kernels (cuda_igemm_wgmma).
  bool hopper() const { return hopper_; }
  const ktune::cuda::LoadedKernel& reference();
  const ktune::cuda::LoadedKernel& widen16();

 private:
  gemm::cuda::KernelCache& cache(const std::string& file);
  const ktune::cuda::LoadedKernel& get(const KernelName& name);
  bool hopper_ = false;
  gemm::cuda::KernelCache direct_, im2col_, winograd_, tiled_, igemm_mma_, wgmma_;
};

}  // namespace ktune::kernels::conv2d::cuda
