// Ahead-of-time compile check of the conv2d kernel headers with nvcc: a deployed conv2d
// library instantiates its configs from the same headers that NVRTC compiles in the sweep, so
// these must keep building (see cmake/cuda_aot.cmake).
#include "kernels/conv2d/cuda/conv2d_direct.cuh"
#include "kernels/conv2d/cuda/conv2d_igemm_mma.cuh"
#include "kernels/conv2d/cuda/conv2d_im2col.cuh"
#include "kernels/conv2d/cuda/conv2d_winograd.cuh"

#define KTUNE_INSTANTIATE_DIRECT(TP, TQ, VK, VC, SMEM, WG)                                       \
  template __global__ void ktune_conv2d_direct<TP, TQ, VK, VC, SMEM, WG>(                        \
      const float*, const float*, float*, int, int, int, int, int, int, int, int, int, int, int, \
      int, int, int);

KTUNE_INSTANTIATE_DIRECT(1, 1, 2, 1, 0, 128)
KTUNE_INSTANTIATE_DIRECT(2, 4, 4, 4, 1, 256)
KTUNE_INSTANTIATE_DIRECT(4, 1, 8, 4, 0, 128)

template __global__ void ktune_conv2d_im2col<1>(const float*, float*, int, int, int, int, int, int,
                                                int, int, int, int, long long);
template __global__ void ktune_conv2d_im2col<4>(const float*, float*, int, int, int, int, int, int,
                                                int, int, int, int, long long);

#define KTUNE_INSTANTIATE_WINO(M, VC)                                                           \
  template __global__ void ktune_conv2d_wino_filter<M, VC>(const float*, float*, int, int);     \
  template __global__ void ktune_conv2d_wino_input<M, VC>(const float*, float*, int, int, int,  \
                                                          int, int, int, int);                  \
  template __global__ void ktune_conv2d_wino_output<M, VC>(const float*, float*, int, int, int, \
                                                           int, int, int);

KTUNE_INSTANTIATE_WINO(2, 1)
KTUNE_INSTANTIATE_WINO(2, 4)
KTUNE_INSTANTIATE_WINO(4, 1)
KTUNE_INSTANTIATE_WINO(4, 4)

// The tensor-core kind: the largest and smallest tiles, the three precisions and both loaders.
#define KTUNE_INSTANTIATE_IGEMM(BM, BN, BK, WM, WN, ST, PREC, VEC)                             \
  template __global__ void ktune_conv2d_igemm_mma<BM, BN, BK, WM, WN, ST, PREC, VEC>(          \
      const KtuneMmaElem<PREC>::type*, const KtuneMmaElem<PREC>::type*, float*, int, int, int, \
      int, int, int, int, int, int, int, int, const float*, const float*, int);

KTUNE_INSTANTIATE_IGEMM(128, 128, 64, 64, 64, 4, 2, 8)
KTUNE_INSTANTIATE_IGEMM(128, 128, 32, 32, 64, 3, 3, 8)
KTUNE_INSTANTIATE_IGEMM(64, 64, 32, 32, 32, 3, 2, 1)
KTUNE_INSTANTIATE_IGEMM(64, 128, 64, 64, 32, 4, 3, 1)
KTUNE_INSTANTIATE_IGEMM(128, 128, 32, 64, 64, 3, 1, 8)
KTUNE_INSTANTIATE_IGEMM(64, 64, 64, 32, 32, 4, 1, 1)
