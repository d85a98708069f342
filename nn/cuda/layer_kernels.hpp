#pragma once
// The small CUDA kernels of the network backends, NHWC, all asynchronous on `stream`: the
// epilogue of a convolution or fully connected layer (bias + optional ReLU), pooling, the
// residual add, softmax over the classes, the im2col patch gather of the GEMM backends, the
// layers only ONNX models have (a channel concatenation's copies, clamp), and the FP32 <-> bf16
// conversions of the bf16 engine. Activations are float or bf16 (T); arithmetic is in float and
// a bf16 result is rounded once, to nearest even. Launch errors throw ktune::cuda::CudaError
// naming the kernel.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "ktune/nn/backend.hpp"

namespace ktune::nn::cuda {

using bf16 = __nv_bfloat16;

// y[i][ch] = act(y[i][ch] + bias[ch]) for rows × channels values (act = ReLU when relu); with
// round_tf32 the FP32 result is rounded to TF32 (10-bit mantissa, nearest, ties away: as
// cvt.rna), so that a tensor-core layer reading it as TF32 reads it exactly (ktune-cuda-tf32).
void bias_act(float* y, const float* bias, int64_t rows, int64_t channels, bool relu,
              cudaStream_t stream, bool round_tf32 = false);
void bias_act(bf16* y, const float* bias, int64_t rows, int64_t channels, bool relu,
              cudaStream_t stream);
// The same from an FP32 accumulator: y = bf16(act(acc + bias)), one rounding.
void bias_act(const float* acc, bf16* y, const float* bias, int64_t rows, int64_t channels,
              bool relu, cudaStream_t stream);
// out = in rounded to bf16 (nearest even) / widened to FP32, count values.
void convert(const float* in, bf16* out, int64_t count, cudaStream_t stream);
void convert(const bf16* in, float* out, int64_t count, cudaStream_t stream);

// out = act(a + b) for count values; round_tf32 (float only) as bias_act's.
template <typename T>
void add_act(const T* a, const T* b, T* out, int64_t count, bool relu, cudaStream_t stream,
             bool round_tf32 = false);

// out = min(max(in, lo), hi) for count values; out may alias in.
template <typename T>
void clamp(const T* in, T* out, int64_t count, float lo, float hi, cudaStream_t stream);
// dst[px][offset + ch] = src[px][ch] for ch < src_c over `pixels` NHWC pixels: one strided copy.
template <typename T>
void copy_channels(const T* src, int64_t src_c, T* dst, int64_t dst_c, int64_t offset,
                   int64_t pixels, cudaStream_t stream);

// Pooling of NHWC [n][h][w][c] into [n][p][q][c] as ktune::nn::PoolDesc defines it.
template <typename T>
void max_pool(const PoolDesc& d, const T* in, T* out, cudaStream_t stream);
template <typename T>
void avg_pool(const PoolDesc& d, const T* in, T* out, cudaStream_t stream);

// Row-wise softmax of rows × cols values (max-subtracted, one block per row).
template <typename T>
void softmax(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream);

// im2col of NHWC input for a KRSC filter: col[(b·p + y)·q + x][(i·s + j)·c + ch] = the input
// value under filter tap (i, j) of output (y, x), zero where the tap falls in the padding.
// With the filter as a [k][r·s·c] matrix, output = col · filterᵀ (d.k and d.relu unused).
template <typename T>
void im2col(const ConvDesc& d, const T* in, T* col, cudaStream_t stream);

}  // namespace ktune::nn::cuda
