#pragma once
// The CUDA network backends (library ktune_nn_cuda) and their registration by name.
#include <memory>

#include "ktune/nn/backend.hpp"
#include "nn/cuda/precision.hpp"

namespace ktune::nn {

// Registers "cublas", "cudnn" (when cuDNN is found) and "ktune-cuda" (when the tuned CUDA
// conv2d and GEMM libraries are built) with ktune::nn::register_backend, in FP32, and their
// other precisions under "<name>-tf32" / "<name>-bf16" (ktune-cuda: bf16 only). Constructing
// one without a GPU throws ktune::Error naming the failing CUDA call.
void register_cuda_backends();

namespace cuda {
std::unique_ptr<Backend> make_cublas_backend(Precision precision);
std::unique_ptr<Backend> make_cudnn_backend(Precision precision);  // nn/cuda/cudnn_backend.cpp
std::unique_ptr<Backend> make_ktune_backend(Precision precision);  // nn/cuda/ktune_backend.cpp
}  // namespace cuda

}  // namespace ktune::nn
