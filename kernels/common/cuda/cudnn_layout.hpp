#pragma once
// The descriptors of one cuDNN memory layout (input x, filter w, output y) of the conv2d
// family's cuDNN baseline (which the network engine's cuDNN convolutions also run): it keeps an
// NHWC and an NCHW set and must destroy a half-made set when a constructor throws.
#include <cudnn.h>

#include <string>

#include "ktune/cuda/cuda_error.hpp"

namespace ktune::kernels::cudnn {

struct LayoutDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;

  // Creates the three (still unset); throws CudaError naming the call that failed.
  void create() {
    auto check = [](cudnnStatus_t status, const char* call) {
      if (status != CUDNN_STATUS_SUCCESS)
        throw ktune::cuda::CudaError(std::string(call) + ": " + cudnnGetErrorString(status),
                                     int(status), false);
    };
    check(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    check(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
  }
  // Destroys those that exist and nulls them.
  void destroy() {
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
    *this = LayoutDescriptors{};
  }
};

}  // namespace ktune::kernels::cudnn
