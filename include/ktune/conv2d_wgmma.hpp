#pragma once
// The conv2d family's Hopper implicit-GEMM kernel (kinds cuda_igemm_wgmma / _persist,
// kernels/conv2d/cuda/conv2d_wgmma.cuh) in a few fixed configs per precision with its fused
// epilogue, for an engine that picks per layer among several convolutions (the network engine's
// ktune-cuda-bf16 and ktune-cuda-tf32):
// - bf16: bf16 NHWC input, bf16 KRSC filter, FP32 accumulation, bf16 NHWC output of
//   act(conv + bias + residual), one rounding to nearest even;
// - tf32: FP32 NHWC input and KRSC filter read as TF32 by the tensor cores (the low 13 mantissa
//   bits ignored), FP32 accumulation, FP32 NHWC output of act(conv + bias + residual).
// Compiled for sm_90a only (library ktune_conv2d_wgmma_call): on any other device every config
// is refused.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace ktune {

// One layer: input n x h x w x c, filter k x r x s x c, symmetric zero padding.
struct Conv2dWgmmaLayer {
  int64_t n = 0, h = 0, w = 0, c = 0, k = 0, r = 0, s = 0, stride = 1, pad = 0;
};

// The configs, each named as its kind's config string without the kind, ";persist" added for the
// persistent grid (cuda_igemm_wgmma_persist): "tp=8;tq=16;bn=64;st=6;persist".
int conv2d_wgmma_bf16_configs();
std::string conv2d_wgmma_bf16_config_name(int config);
int conv2d_wgmma_tf32_configs();
std::string conv2d_wgmma_tf32_config_name(int config);

// Why `config` cannot run the layer on this device ("" when it can): not an sm_90 device, no
// tensor-map encoder in the driver, or the kind's refusals (c % 64 in bf16, c % 32 in tf32, odd
// k, TMA box limits, ...). The tensors are taken to be 16-byte aligned (CUDA allocations are).
std::string conv2d_wgmma_bf16_refusal(const Conv2dWgmmaLayer& layer, int config);
std::string conv2d_wgmma_tf32_refusal(const Conv2dWgmmaLayer& layer, int config);

// out = bf16(act(conv(in, filter) + bias + residual)), act = ReLU when relu; bias (FP32, k
// values) and residual (bf16, the output's shape) may be null; bf16 values as their 16 bits.
// Asynchronous on `stream`; a refused tensor map throws ktune::Error, a launch error
// ktune::cuda::CudaError.
void conv2d_wgmma_bf16(int config, const Conv2dWgmmaLayer& layer, const uint16_t* in,
                       const uint16_t* filter, const float* bias, const uint16_t* residual,
                       bool relu, uint16_t* out, cudaStream_t stream);

// out = act(conv(in, filter) + bias + residual) in FP32, the products in TF32 (the operands'
// low 13 mantissa bits ignored: pass operands already rounded to TF32 where that truncation's
// one-sided error matters); bias (k values) and residual (the output's shape) may be null;
// round_to_tf32 stores the result rounded to TF32 (nearest, ties away), so that a next tf32 layer
// reads it exactly. Asynchronous, errors as conv2d_wgmma_bf16.
void conv2d_wgmma_tf32(int config, const Conv2dWgmmaLayer& layer, const float* in,
                       const float* filter, const float* bias, const float* residual, bool relu,
                       float* out, bool round_to_tf32, cudaStream_t stream);

}  // namespace ktune
