#pragma once
// The precisions of the cuDNN baseline's convolutions, all with FLOAT compute (FP32
// accumulation): fp32 (FP32 data, FMA math only), tf32 (FP32 data, TF32 tensor-core math
// permitted, as PyTorch's allow_tf32), bf16 and fp16 (16-bit data in and out, tensor-core math).
#include <cudnn.h>

#include <cstddef>

namespace ktune::kernels::conv2d::cuda {

enum class CudnnPrecision { fp32, tf32, bf16, fp16 };

constexpr const char* cudnn_precision_name(CudnnPrecision p) {
  constexpr const char* names[] = {"fp32", "tf32", "bf16", "fp16"};
  return names[int(p)];
}
constexpr cudnnDataType_t cudnn_data_type(CudnnPrecision p) {
  return p == CudnnPrecision::bf16   ? CUDNN_DATA_BFLOAT16
         : p == CudnnPrecision::fp16 ? CUDNN_DATA_HALF
                                     : CUDNN_DATA_FLOAT;
}
constexpr size_t cudnn_element_bytes(CudnnPrecision p) {
  return p == CudnnPrecision::bf16 || p == CudnnPrecision::fp16 ? 2 : 4;
}

}  // namespace ktune::kernels::conv2d::cuda
