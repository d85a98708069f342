// What the stencil user functions need on CUDA (the CPU side defines the same names in
// kernels/stencil/cpu/stencil_user.hpp): KTUNE_HD, ktune_sqrt and the staged-tile accessor.
// NVRTC-compatible: no standard headers.
#ifndef KTUNE_STENCIL_PRELUDE_CUH
#define KTUNE_STENCIL_PRELUDE_CUH

#define KTUNE_HD __device__ __forceinline__

__device__ __forceinline__ float ktune_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double ktune_sqrt(double x) { return sqrt(x); }

// in(dy, dx): the staged cell dy rows south and dx columns east of the output cell.
template <typename T>
struct KtuneStaged {
  const T* centre;
  int stride;
  __device__ __forceinline__ T operator()(int dy, int dx) const {
    return centre[dy * stride + dx];
  }
};

#endif
