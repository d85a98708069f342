// ktune-cuda-bf16's wgmma conv candidate (nn/cuda/wgmma_conv.hpp): the engine's layer and bf16
// types handed to the conv2d family's public call (include/ktune/conv2d_wgmma.hpp).
#include "nn/cuda/wgmma_conv.hpp"

#include "ktune/conv2d_wgmma.hpp"

namespace ktune::nn::cuda {

namespace {

Conv2dWgmmaLayer layer_of(const ConvDesc& d) {
  return {d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad};
}

const uint16_t* bits(const bf16* p) { return reinterpret_cast<const uint16_t*>(p); }

}  // namespace

int wgmma_conv_configs() { return conv2d_wgmma_bf16_configs(); }

std::string wgmma_conv_config_name(int config) { return conv2d_wgmma_bf16_config_name(config); }

std::string wgmma_conv_refusal(const ConvDesc& d, int config) {
  return conv2d_wgmma_bf16_refusal(layer_of(d), config);
}

void wgmma_conv(int config, const ConvDesc& d, const bf16* in, const bf16* filter,
                const float* bias, const bf16* residual, bool relu, bf16* out,
                cudaStream_t stream) {
  conv2d_wgmma_bf16(config, layer_of(d), bits(in), bits(filter), bias, bits(residual), relu,
                    reinterpret_cast<uint16_t*>(out), stream);
}

}  // namespace ktune::nn::cuda
