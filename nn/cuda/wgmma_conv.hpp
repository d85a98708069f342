#pragma once
// The Hopper wgmma implicit-GEMM convolution as a layer candidate of ktune-cuda-bf16 and
// ktune-cuda-tf32, through the conv2d family's public call (include/ktune/conv2d_wgmma.hpp,
// library ktune_conv2d_wgmma_call): NHWC input, KRSC filter, NHWC output through the kernel's
// fused epilogue act(conv + bias + residual); bf16 in and out (one rounding), or tf32: FP32 in
// and out, the products in TF32. sm_90a code only: on any other device every config is refused.
// A few fixed tile configs per precision; the backend times them at load beside its other
// candidates (nn/cuda/layer_pick.hpp).
#include <cuda_runtime_api.h>

#include <string>

#include "ktune/nn/backend.hpp"
#include "nn/cuda/layer_kernels.hpp"
#include "nn/cuda/precision.hpp"

namespace ktune::nn::cuda {

// The configs of a precision (bf16, tf32; none in fp32), named as the kind's config strings
// without the kind, ";persist" for the persistent grid ("tp=8;tq=16;bn=64;st=6;persist").
int wgmma_conv_configs(Precision precision);
std::string wgmma_conv_config_name(Precision precision, int config);
// Why `config` cannot run layer d here ("" when it can): c % 64 (tf32: c % 32), odd k, a TMA box
// past 256 elements, a device other than sm_90, no tensor-map encoder in the driver.
std::string wgmma_conv_refusal(Precision precision, const ConvDesc& d, int config);
// out = bf16(act(conv(in, filter) + bias + residual)), act = ReLU when relu; bias and residual
// may be null. Asynchronous on `stream`; a launch error throws ktune::cuda::CudaError.
void wgmma_conv(int config, const ConvDesc& d, const bf16* in, const bf16* filter,
                const float* bias, const bf16* residual, bool relu, bf16* out, cudaStream_t stream);
// tf32: out = act(conv(in, filter) + bias + residual) in FP32, likewise; round_to_tf32 stores
// it rounded to TF32 (the engine's TF32 storage).
void wgmma_conv(int config, const ConvDesc& d, const float* in, const float* filter,
                const float* bias, const float* residual, bool relu, float* out, bool round_to_tf32,
                cudaStream_t stream);

}  // namespace ktune::nn::cuda
