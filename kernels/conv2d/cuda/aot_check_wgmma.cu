// Ahead-of-time nvcc check of the Hopper wgmma conv kernel (conv2d_wgmma.cuh, kind
// cuda_igemm_wgmma) for sm_90a, the only target with wgmma and setmaxnreg (cmake/cuda_aot.cmake
// builds it with architecture 90a, i.e. -gencode=arch=compute_90a,code=sm_90a): the path a
// deployed build takes. Configs are decoded from their config strings by the parser the sweep
// uses (conv2d_cuda_config.hpp), instantiated from the header NVRTC compiles in the sweep, and
// launched through the sweep's launcher (conv2d_wgmma_launch.hpp). The kind's device tests are
// tests/gpu/test_conv2d_igemm_wgmma.cpp (NVRTC); wgmma_conv_check.cu is the standalone bench.
#include "kernels/conv2d/cuda/conv2d_wgmma.cuh"
#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"

namespace kc = ktune::kernels::conv2d::cuda;

#define KTUNE_INSTANTIATE_CONV_WGMMA(NAME, TEXT, PREC)                                            \
  constexpr kc::CudaConvConfig NAME = kc::parse_cuda_conv_config(TEXT);                           \
  static_assert(NAME.valid && NAME.kind == kc::CudaKind::igemm_wgmma, TEXT);                      \
  template __global__ void                                                                        \
  ktune_conv2d_wgmma<NAME.tp, NAME.tq, NAME.wg_images(), NAME.bn, NAME.st, PREC>(                 \
      const __grid_constant__ KtuneTmaMap, const __grid_constant__ KtuneTmaMap, KtuneConvWgShape, \
      float*);                                                                                    \
  kc::ConvLaunch NAME##_launch(const kc::ConvDims& d, const kc::WgmmaConvMaps& maps, float* y,    \
                               cudaStream_t stream) {                                             \
    const void* kernel = reinterpret_cast<const void*>(                                           \
        &ktune_conv2d_wgmma<NAME.tp, NAME.tq, NAME.wg_images(), NAME.bn, NAME.st, PREC>);         \
    return kc::launch_igemm_wgmma(NAME, kernel, d, maps, y, stream);                              \
  }

static_assert(sizeof(KtuneConvWgShape) == sizeof(kc::WgmmaConvShape),
              "the launcher's shape is the kernel's");

// Every tile shape and width once, both precisions.
KTUNE_INSTANTIATE_CONV_WGMMA(k8x16, "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=4", 2)
KTUNE_INSTANTIATE_CONV_WGMMA(k16x8, "kind=cuda_igemm_wgmma;tp=16;tq=8;bn=256;st=3", 3)
KTUNE_INSTANTIATE_CONV_WGMMA(k8x8, "kind=cuda_igemm_wgmma;tp=8;tq=8;bn=64;st=6", 2)
KTUNE_INSTANTIATE_CONV_WGMMA(k4x8, "kind=cuda_igemm_wgmma;tp=4;tq=8;bn=128;st=4", 3)
KTUNE_INSTANTIATE_CONV_WGMMA(k4x16, "kind=cuda_igemm_wgmma;tp=4;tq=16;bn=256;st=4", 2)
