#pragma once
// The bf16 CPU backends' registration and their shared check of the instruction set.
#include <string>

namespace ktune::nn::cpu {

void register_ktune_bf16_backend();   // nn/cpu/ktune_bf16_backend.cpp
void register_onednn_bf16_backend();  // nn/cpu/onednn_bf16_backend.cpp (only with oneDNN)

// Empty where this build and CPU run bf16 layers (AVX512_BF16), else why not (one line).
std::string bf16_missing();

}  // namespace ktune::nn::cpu
