#pragma once
// The CUDA network backends (library ktune_nn_cuda) and their registration by name.
#include <memory>
#include <vector>

#include "ktune/nn/backend.hpp"
#include "nn/cuda/precision.hpp"

namespace ktune::nn {

// Registers "cublas", "cudnn" (when cuDNN is found) and "ktune-cuda" (when the tuned CUDA
// conv2d and GEMM libraries are built) with ktune::nn::register_backend, in FP32, and their
// other precisions under "<name>-tf32" / "<name>-bf16" (ktune-cuda: those its tuned GEMM
// library ships a gemm_ex selector for), and
// "auto-cuda" / "auto-cuda-tf32" / "auto-cuda-bf16" over those of each precision. Constructing
// one without a GPU throws ktune::Error naming the failing CUDA call.
void register_cuda_backends();

namespace cuda {
std::unique_ptr<Backend> make_cublas_backend(Precision precision);
std::unique_ptr<Backend> make_cudnn_backend(Precision precision);  // nn/cuda/cudnn_backend.cpp
// pick_layers: each conv on the fastest at load of the tuned library's path, im2col + cuBLAS,
// cuDNN and (bf16) the wgmma conv, each FC layer on the faster of the tuned GEMM and cuBLAS (else
// the tuned library's path on all). Throws ktune::Error for a precision ktune_backend_serves()
// denies.
std::unique_ptr<Backend> make_ktune_backend(Precision precision, bool pick_layers = true);
// fp32 always; tf32 / bf16 when the tuned GEMM library ships gemm_ex's selector for it.
bool ktune_backend_serves(Precision precision);
// `auto-cuda` (nn/cuda/auto_backend.cpp): the fastest whole network among `candidates` (CUDA
// backends of `precision`), timed at build time by the engine; throws for a candidate of another
// precision or not a CUDA backend.
std::unique_ptr<Backend> make_auto_backend(Precision precision,
                                           std::vector<std::unique_ptr<Backend>> candidates);
}  // namespace cuda

}  // namespace ktune::nn
