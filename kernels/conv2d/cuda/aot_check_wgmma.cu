// Ahead-of-time nvcc check of the Hopper wgmma conv kernel (conv2d_wgmma.cuh) for sm_90a, the only
// target with wgmma and setmaxnreg (cmake/cuda_aot.cmake builds it with architecture 90a). The
// device check and bench of the kernel is wgmma_conv_check.cu (scripts/conv_wgmma/gpu_run.sh).
#include "kernels/conv2d/cuda/conv2d_wgmma.cuh"

#define KTUNE_INSTANTIATE_CONV_WGMMA(HT, WT, NB, BN, ST, PREC)                                    \
  template __global__ void ktune_conv2d_wgmma<HT, WT, NB, BN, ST, PREC>(                          \
      const __grid_constant__ KtuneTmaMap, const __grid_constant__ KtuneTmaMap, KtuneConvWgShape, \
      float*);

// Every tile shape and BN once, both precisions.
KTUNE_INSTANTIATE_CONV_WGMMA(8, 16, 1, 128, 4, 2)
KTUNE_INSTANTIATE_CONV_WGMMA(16, 8, 1, 256, 3, 3)
KTUNE_INSTANTIATE_CONV_WGMMA(8, 8, 2, 64, 6, 2)
KTUNE_INSTANTIATE_CONV_WGMMA(4, 8, 4, 128, 4, 3)
