#pragma once
// Float64-accumulating conv2d and FC (bias, optional ReLU; results rounded to float once), the
// yardstick of the tests and the `reference` backend.
#include "ktune/nn/backend.hpp"

namespace ktune::nn::cpu {

void reference_conv2d(const ConvDesc& d, const float* in, const float* filter_krsc,
                      const float* bias, float* out);
void reference_fc(const FcDesc& d, const float* x, const float* weight_oi, const float* bias,
                  float* y);

void register_reference_backend();
void register_ktune_backend();   // nn/cpu/ktune_backend.cpp
void register_onednn_backend();  // nn/cpu/onednn_backend.cpp (only with oneDNN)
void register_auto_backend();    // nn/cpu/auto_backend.cpp (only with oneDNN)

}  // namespace ktune::nn::cpu
