#pragma once
// The nvcc (sm_90a) instantiations of the cuda_igemm_wgmma kernel that aot_check_wgmma.cu compiles
// (the path a deployed build takes), each with its config string and a launch through
// conv2d_wgmma_launch.hpp; tests/gpu runs them against the float64 reference.
#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"

namespace ktune::kernels::conv2d::cuda {

struct WgmmaAotInstance {
  const char* config;  // "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=4"
  gemm::Precision precision;
  // launch_igemm_wgmma with this instantiation (the caller ran igemm_wgmma_aot_opt_in).
  ConvLaunch (*launch)(const ConvDims& d, const WgmmaConvMaps& maps, float* y, cudaStream_t stream);
  ConvLaunch (*opt_in)();  // igemm_wgmma_opt_in of this instantiation
};

extern const WgmmaAotInstance kWgmmaAotInstances[];
extern const int kWgmmaAotInstanceCount;

}  // namespace ktune::kernels::conv2d::cuda
