#include <cfloat>
#include <type_traits>

#include "kernels/common/cuda/mma_ptx.cuh"  // ktune_mma_tf32: cvt.rna to TF32
#include "ktune/cuda/cuda_error.hpp"
#include "nn/cuda/layer_kernels.hpp"

namespace ktune::nn::cuda {

namespace {

constexpr int kThreads = 256;

// Grid of a grid-stride loop over count items (capped: each thread loops over the rest).
unsigned blocks_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return unsigned(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8);
}

void check_launch(const char* kernel) { ktune::cuda::check(cudaGetLastError(), kernel); }

// Activations are float or bf16 (the bf16 engine); arithmetic is always in float.
__device__ __forceinline__ float load(float v) { return v; }
__device__ __forceinline__ float load(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ __forceinline__ T store(float v);
template <>
__device__ __forceinline__ float store<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 store<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// v rounded to TF32 (10-bit mantissa, nearest, ties away): the mma kinds' own conversion.
__device__ __forceinline__ float round_tf32(float v) { return __uint_as_float(ktune_mma_tf32(v)); }

// y[i] = act(acc[i] + bias[i % channels]): in place (Out = In) or from an FP32 accumulator;
// round (Out = float only) rounds the result to TF32.
template <typename In, typename Out>
__global__ void bias_act_kernel(const In* acc, Out* y, const float* bias, int64_t count,
                                int64_t channels, bool relu, bool round = false) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v = load(acc[i]) + bias[i % channels];
    v = relu ? fmaxf(v, 0.0f) : v;
    y[i] = store<Out>(round ? round_tf32(v) : v);
  }
}

// Eight values per thread in 16-byte accesses (bf16: one, float: two): for bf16 activations the
// scalar kernels above move 2 bytes per access and run at about half the memory bandwidth.
__device__ __forceinline__ void load8(const __nv_bfloat16* p, float (&f)[8]) {
  const uint4 u = *reinterpret_cast<const uint4*>(p);
  const auto* h = reinterpret_cast<const __nv_bfloat162*>(&u);
  for (int k = 0; k < 4; ++k) {
    const float2 t = __bfloat1622float2(h[k]);
    f[2 * k] = t.x, f[2 * k + 1] = t.y;
  }
}
__device__ __forceinline__ void load8(const float* p, float (&f)[8]) {
  const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
  f[0] = a.x, f[1] = a.y, f[2] = a.z, f[3] = a.w, f[4] = b.x, f[5] = b.y, f[6] = b.z, f[7] = b.w;
}
__device__ __forceinline__ void store8(__nv_bfloat16* p, const float (&f)[8]) {
  uint4 u;
  auto* h = reinterpret_cast<__nv_bfloat162*>(&u);
  for (int k = 0; k < 4; ++k) h[k] = __floats2bfloat162_rn(f[2 * k], f[2 * k + 1]);
  *reinterpret_cast<uint4*>(p) = u;
}
__device__ __forceinline__ void store8(float* p, const float (&f)[8]) {
  reinterpret_cast<float4*>(p)[0] = make_float4(f[0], f[1], f[2], f[3]);
  reinterpret_cast<float4*>(p)[1] = make_float4(f[4], f[5], f[6], f[7]);
}

// bias_act_kernel eight channels at a time (channels % 8 == 0, pointers 16-byte aligned).
template <typename In, typename Out>
__global__ void bias_act8_kernel(const In* acc, Out* y, const float* bias, int64_t count8,
                                 int64_t channels8, bool relu) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count8;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v[8], b[8];
    load8(acc + 8 * i, v);
    load8(bias + 8 * (i % channels8), b);
    for (int k = 0; k < 8; ++k) v[k] = relu ? fmaxf(v[k] + b[k], 0.0f) : v[k] + b[k];
    store8(y + 8 * i, v);
  }
}

__global__ void convert_kernel(const float* in, __nv_bfloat16* out, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16_rn(in[i]);
}

__global__ void convert_kernel(const __nv_bfloat16* in, float* out, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = __bfloat162float(in[i]);
}

// Four channels per thread when channels % 4 == 0 (every layer of VGG16 and ResNet-50).
__global__ void bias_act4_kernel(float4* y, const float4* bias, int64_t count4, int64_t channels4,
                                 bool relu, bool round) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count4;
       i += int64_t(gridDim.x) * blockDim.x) {
    float4 v = y[i];
    const float4 b = bias[i % channels4];
    v.x += b.x, v.y += b.y, v.z += b.z, v.w += b.w;
    if (relu)
      v.x = fmaxf(v.x, 0.f), v.y = fmaxf(v.y, 0.f), v.z = fmaxf(v.z, 0.f), v.w = fmaxf(v.w, 0.f);
    if (round)
      v.x = round_tf32(v.x), v.y = round_tf32(v.y), v.z = round_tf32(v.z), v.w = round_tf32(v.w);
    y[i] = v;
  }
}

// round (T = float only) rounds the sums to TF32.
template <typename T>
__global__ void add_act_kernel(const T* a, const T* b, T* out, int64_t count, bool relu,
                               bool round) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v = load(a[i]) + load(b[i]);
    v = relu ? fmaxf(v, 0.0f) : v;
    out[i] = store<T>(round ? round_tf32(v) : v);
  }
}

// add_act_kernel eight values at a time (count % 8 == 0, pointers 16-byte aligned).
template <typename T>
__global__ void add_act8_kernel(const T* a, const T* b, T* out, int64_t count8, bool relu,
                                bool round) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count8;
       i += int64_t(gridDim.x) * blockDim.x) {
    float u[8], v[8];
    load8(a + 8 * i, u);
    load8(b + 8 * i, v);
    for (int k = 0; k < 8; ++k) {
      u[k] = relu ? fmaxf(u[k] + v[k], 0.0f) : u[k] + v[k];
      if (round) u[k] = round_tf32(u[k]);
    }
    store8(out + 8 * i, u);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The epilogue from `acc` into y, eight channels per thread where the layout allows.
template <typename In, typename Out>
void launch_bias_act(const In* acc, Out* y, const float* bias, int64_t count, int64_t channels,
                     bool relu, cudaStream_t stream) {
  if (channels % 8 == 0 && aligned16(acc) && aligned16(y) && aligned16(bias))
    bias_act8_kernel<<<blocks_for(count / 8), kThreads, 0, stream>>>(acc, y, bias, count / 8,
                                                                     channels / 8, relu);
  else
    bias_act_kernel<<<blocks_for(count), kThreads, 0, stream>>>(acc, y, bias, count, channels,
                                                                relu);
}

template <typename T>
__global__ void clamp_kernel(const T* in, T* out, int64_t count, float lo, float hi) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = store<T>(fminf(fmaxf(load(in[i]), lo), hi));
}

template <bool kMax, typename T>
__global__ void pool_kernel(PoolDesc d, int64_t p, int64_t q, const T* in, T* out) {
  const int64_t count = d.n * p * q * d.c;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ch = i % d.c;
    const int64_t x = (i / d.c) % q;
    const int64_t y = (i / (d.c * q)) % p;
    const int64_t b = i / (d.c * q * p);
    float acc = kMax ? -FLT_MAX : 0.0f;
    for (int64_t u = 0; u < d.window; ++u) {
      const int64_t iy = y * d.stride - d.pad + u;
      if (iy < 0 || iy >= d.h) continue;
      for (int64_t v = 0; v < d.window; ++v) {
        const int64_t ix = x * d.stride - d.pad + v;
        if (ix < 0 || ix >= d.w) continue;
        const float value = load(in[((b * d.h + iy) * d.w + ix) * d.c + ch]);
        acc = kMax ? fmaxf(acc, value) : acc + value;
      }
    }
    out[i] = store<T>(kMax ? acc : acc / float(d.window * d.window));
  }
}

// One block per row: block-wide max, then the sum of exponentials, then the quotients.
template <typename T>
__global__ void softmax_kernel(const T* in, T* out, int64_t cols) {
  __shared__ float partial[kThreads];
  const T* row = in + blockIdx.x * cols;
  T* dst = out + blockIdx.x * cols;
  float m = -FLT_MAX;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, load(row[j]));
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  m = partial[0];
  __syncthreads();
  float sum = 0.0f;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) sum += expf(load(row[j]) - m);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  const float inv = 1.0f / partial[0];
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
    dst[j] = store<T>(expf(load(row[j]) - m) * inv);
}

// One thread per (output pixel, tap, channel): consecutive threads copy consecutive channels.
template <typename T>
__global__ void im2col_kernel(ConvDesc d, int64_t p, int64_t q, const T* in, T* col) {
  const int64_t patch = d.r * d.s * d.c;
  const int64_t count = d.n * p * q * patch;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ch = i % d.c;
    const int64_t tap = (i / d.c) % (d.r * d.s);
    const int64_t pixel = i / patch;
    const int64_t x = pixel % q, y = (pixel / q) % p, b = pixel / (p * q);
    const int64_t iy = y * d.stride - d.pad + tap / d.s;
    const int64_t ix = x * d.stride - d.pad + tap % d.s;
    col[i] = (iy < 0 || iy >= d.h || ix < 0 || ix >= d.w)
                 ? T(0.0f)
                 : in[((b * d.h + iy) * d.w + ix) * d.c + ch];
  }
}

}  // namespace

void bias_act(float* y, const float* bias, int64_t rows, int64_t channels, bool relu,
              cudaStream_t stream, bool round_tf32) {
  const int64_t count = rows * channels;
  if (count == 0) return;
  const bool aligned = channels % 4 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(bias) % 16 == 0;
  if (aligned) {
    bias_act4_kernel<<<blocks_for(count / 4), kThreads, 0, stream>>>(
        reinterpret_cast<float4*>(y), reinterpret_cast<const float4*>(bias), count / 4,
        channels / 4, relu, round_tf32);
  } else {
    bias_act_kernel<<<blocks_for(count), kThreads, 0, stream>>>(y, y, bias, count, channels, relu,
                                                                round_tf32);
  }
  check_launch("bias_act kernel");
}

void bias_act(bf16* y, const float* bias, int64_t rows, int64_t channels, bool relu,
              cudaStream_t stream) {
  const int64_t count = rows * channels;
  if (count == 0) return;
  launch_bias_act(y, y, bias, count, channels, relu, stream);
  check_launch("bias_act kernel (bf16)");
}

void bias_act(const float* acc, bf16* y, const float* bias, int64_t rows, int64_t channels,
              bool relu, cudaStream_t stream) {
  const int64_t count = rows * channels;
  if (count == 0) return;
  launch_bias_act(acc, y, bias, count, channels, relu, stream);
  check_launch("bias_act kernel (FP32 to bf16)");
}

void convert(const float* in, bf16* out, int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  convert_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, out, count);
  check_launch("convert kernel (FP32 to bf16)");
}

void convert(const bf16* in, float* out, int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  convert_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, out, count);
  check_launch("convert kernel (bf16 to FP32)");
}

template <typename T>
void add_act(const T* a, const T* b, T* out, int64_t count, bool relu, cudaStream_t stream,
             bool round_tf32) {
  if (count == 0) return;
  const bool round = round_tf32 && std::is_same_v<T, float>;
  if (count % 8 == 0 && aligned16(a) && aligned16(b) && aligned16(out))
    add_act8_kernel<<<blocks_for(count / 8), kThreads, 0, stream>>>(a, b, out, count / 8, relu,
                                                                    round);
  else
    add_act_kernel<<<blocks_for(count), kThreads, 0, stream>>>(a, b, out, count, relu, round);
  check_launch("add_act kernel");
}

template <typename T>
void clamp(const T* in, T* out, int64_t count, float lo, float hi, cudaStream_t stream) {
  if (count == 0) return;
  clamp_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, out, count, lo, hi);
  check_launch("clamp kernel");
}

template <typename T>
void copy_channels(const T* src, int64_t src_c, T* dst, int64_t dst_c, int64_t offset,
                   int64_t pixels, cudaStream_t stream) {
  if (pixels == 0 || src_c == 0) return;
  // A 2D copy: `pixels` rows of src_c values, src rows packed, dst rows dst_c values apart.
  ktune::cuda::check(cudaMemcpy2DAsync(dst + offset, size_t(dst_c) * sizeof(T), src,
                                       size_t(src_c) * sizeof(T), size_t(src_c) * sizeof(T),
                                       size_t(pixels), cudaMemcpyDeviceToDevice, stream),
                     "cudaMemcpy2DAsync(copy_channels)");
}

template <typename T>
void max_pool(const PoolDesc& d, const T* in, T* out, cudaStream_t stream) {
  const int64_t count = d.n * d.p() * d.q() * d.c;
  if (count == 0) return;
  pool_kernel<true><<<blocks_for(count), kThreads, 0, stream>>>(d, d.p(), d.q(), in, out);
  check_launch("max_pool kernel");
}

template <typename T>
void avg_pool(const PoolDesc& d, const T* in, T* out, cudaStream_t stream) {
  const int64_t count = d.n * d.p() * d.q() * d.c;
  if (count == 0) return;
  pool_kernel<false><<<blocks_for(count), kThreads, 0, stream>>>(d, d.p(), d.q(), in, out);
  check_launch("avg_pool kernel");
}

template <typename T>
void softmax(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  softmax_kernel<<<unsigned(rows), kThreads, 0, stream>>>(in, out, cols);
  check_launch("softmax kernel");
}

template <typename T>
void im2col(const ConvDesc& d, const T* in, T* col, cudaStream_t stream) {
  const int64_t count = d.n * d.p() * d.q() * d.r * d.s * d.c;
  if (count == 0) return;
  im2col_kernel<<<blocks_for(count), kThreads, 0, stream>>>(d, d.p(), d.q(), in, col);
  check_launch("im2col kernel");
}

// The element types of the engine's activations.
#define KTUNE_LAYER_KERNELS(T)                                                                 \
  template void add_act(const T*, const T*, T*, int64_t, bool, cudaStream_t, bool);            \
  template void clamp(const T*, T*, int64_t, float, float, cudaStream_t);                      \
  template void copy_channels(const T*, int64_t, T*, int64_t, int64_t, int64_t, cudaStream_t); \
  template void max_pool(const PoolDesc&, const T*, T*, cudaStream_t);                         \
  template void avg_pool(const PoolDesc&, const T*, T*, cudaStream_t);                         \
  template void softmax(const T*, T*, int64_t, int64_t, cudaStream_t);                         \
  template void im2col(const ConvDesc&, const T*, T*, cudaStream_t);
KTUNE_LAYER_KERNELS(float)
KTUNE_LAYER_KERNELS(bf16)
#undef KTUNE_LAYER_KERNELS

}  // namespace ktune::nn::cuda
