// The separate pass a caller of the plain ktune::conv2d_ex would run after it: y = relu(y +
// bias[k] + residual) in place, FP32 or bf16 (bits, rounded to nearest even) NHWC, one thread an
// element (the baseline tuned_conv_epilogue_bench times the fused epilogue against).
#include <cuda_runtime_api.h>

#include "examples/tuned-conv/epilogue_pass.hpp"

namespace {

__device__ float widen(float v) { return v; }
__device__ float widen(unsigned short b) { return __uint_as_float(unsigned(b) << 16); }
__device__ void put(float* y, long long i, float v) { y[i] = v; }
__device__ void put(unsigned short* y, long long i, float v) {
  const unsigned u = __float_as_uint(v);
  y[i] = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fc0u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

template <class Y>
__global__ void epilogue_pass(Y* y, const float* bias, const Y* residual, long long count, int k) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    put(y, i, fmaxf(widen(y[i]) + bias[i % k] + widen(residual[i]), 0.0f));
}

}  // namespace

namespace tuned_conv {

cudaError_t launch_epilogue_pass(void* y, bool bf16, const float* bias, const void* residual,
                                 long long count, int k, cudaStream_t stream) {
  const long long blocks = (count + 255) / 256 < 65535 ? (count + 255) / 256 : 65535;
  if (bf16)
    epilogue_pass<<<unsigned(blocks), 256, 0, stream>>>(
        static_cast<unsigned short*>(y), bias, static_cast<const unsigned short*>(residual), count,
        k);
  else
    epilogue_pass<<<unsigned(blocks), 256, 0, stream>>>(
        static_cast<float*>(y), bias, static_cast<const float*>(residual), count, k);
  return cudaGetLastError();
}

}  // namespace tuned_conv
