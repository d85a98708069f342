// ktune-cuda-bf16's and ktune-cuda-tf32's wgmma conv candidate (nn/cuda/wgmma_conv.hpp): the
// engine's layer and element types handed to the conv2d family's public call
// (include/ktune/conv2d_wgmma.hpp).
#include "nn/cuda/wgmma_conv.hpp"

#include "ktune/conv2d_wgmma.hpp"

namespace ktune::nn::cuda {

namespace {

Conv2dWgmmaLayer layer_of(const ConvDesc& d) {
  return {d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad};
}

const uint16_t* bits(const bf16* p) { return reinterpret_cast<const uint16_t*>(p); }

}  // namespace

int wgmma_conv_configs(Precision precision) {
  switch (precision) {
    case Precision::bf16:
      return conv2d_wgmma_bf16_configs();
    case Precision::tf32:
      return conv2d_wgmma_tf32_configs();
    default:
      return 0;
  }
}

std::string wgmma_conv_config_name(Precision precision, int config) {
  return precision == Precision::bf16 ? conv2d_wgmma_bf16_config_name(config)
                                      : conv2d_wgmma_tf32_config_name(config);
}

std::string wgmma_conv_refusal(Precision precision, const ConvDesc& d, int config) {
  return precision == Precision::bf16 ? conv2d_wgmma_bf16_refusal(layer_of(d), config)
                                      : conv2d_wgmma_tf32_refusal(layer_of(d), config);
}

void wgmma_conv(int config, const ConvDesc& d, const bf16* in, const bf16* filter,
                const float* bias, const bf16* residual, bool relu, bf16* out,
                cudaStream_t stream) {
  conv2d_wgmma_bf16(config, layer_of(d), bits(in), bits(filter), bias, bits(residual), relu,
                    reinterpret_cast<uint16_t*>(out), stream);
}

void wgmma_conv(int config, const ConvDesc& d, const float* in, const float* filter,
                const float* bias, const float* residual, bool relu, float* out, bool round_to_tf32,
                cudaStream_t stream) {
  conv2d_wgmma_tf32(config, layer_of(d), in, filter, bias, residual, relu, out, round_to_tf32,
                    stream);
}

}  // namespace ktune::nn::cuda
