#pragma once
// The small CUDA kernels of the network backends, NHWC FP32, all asynchronous on `stream`:
// the epilogue of a convolution or fully connected layer (bias + optional ReLU), pooling,
// the residual add, softmax over the classes, the im2col patch gather of the cuBLAS backend,
// and the layers only ONNX models have (a channel concatenation's copies, clamp). Launch errors
// throw ktune::cuda::CudaError naming the kernel.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "ktune/nn/backend.hpp"

namespace ktune::nn::cuda {

// y[i][ch] = act(y[i][ch] + bias[ch]) for rows × channels values (act = ReLU when relu).
void bias_act(float* y, const float* bias, int64_t rows, int64_t channels, bool relu,
              cudaStream_t stream);
// out = act(a + b) for count values.
void add_act(const float* a, const float* b, float* out, int64_t count, bool relu,
             cudaStream_t stream);

// out = min(max(in, lo), hi) for count values; out may alias in.
void clamp(const float* in, float* out, int64_t count, float lo, float hi, cudaStream_t stream);
// dst[px][offset + ch] = src[px][ch] for ch < src_c over `pixels` NHWC pixels: one strided copy.
void copy_channels(const float* src, int64_t src_c, float* dst, int64_t dst_c, int64_t offset,
                   int64_t pixels, cudaStream_t stream);

// Pooling of NHWC [n][h][w][c] into [n][p][q][c] as ktune::nn::PoolDesc defines it.
void max_pool(const PoolDesc& d, const float* in, float* out, cudaStream_t stream);
void avg_pool(const PoolDesc& d, const float* in, float* out, cudaStream_t stream);

// Row-wise softmax of rows × cols values (max-subtracted, one block per row).
void softmax(const float* in, float* out, int64_t rows, int64_t cols, cudaStream_t stream);

// im2col of NHWC input for a KRSC filter: col[(b·p + y)·q + x][(i·s + j)·c + ch] = the input
// value under filter tap (i, j) of output (y, x), zero where the tap falls in the padding.
// With the filter as a [k][r·s·c] matrix, output = col · filterᵀ (d.k and d.relu unused).
void im2col(const ConvDesc& d, const float* in, float* col, cudaStream_t stream);

}  // namespace ktune::nn::cuda
