#pragma once
// The CUDA network backends (library ktune_nn_cuda) and their registration by name.
#include <memory>

#include "ktune/nn/backend.hpp"

namespace ktune::nn {

// Registers "cublas", "cudnn" (when cuDNN is found) and "ktune-cuda" (when the tuned CUDA
// conv2d and GEMM libraries are built) with ktune::nn::register_backend. Constructing one
// without a GPU throws ktune::Error naming the failing CUDA call.
void register_cuda_backends();

namespace cuda {
std::unique_ptr<Backend> make_cublas_backend();
std::unique_ptr<Backend> make_cudnn_backend();  // nn/cuda/cudnn_backend.cpp (with cuDNN)
std::unique_ptr<Backend> make_ktune_backend();  // nn/cuda/ktune_backend.cpp (with the libraries)
}  // namespace cuda

}  // namespace ktune::nn
