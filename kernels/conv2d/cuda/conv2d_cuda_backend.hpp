#pragma once
// The CUDA backend of the conv2d family: opens problems on one GPU (random NHWC input and KRSC
// filter, a float64 reference computed once per problem by a device kernel), runs the configs of
// the cuda_* kinds (kernels compiled by NVRTC), verifies each on NaN-poisoned output and times
// it with CUDA events, rotating input copies when the problem would otherwise stay in L2.
// Vendor baseline "cudnn" (conv2d_cudnn.hpp). A backend and its sessions are used from one
// thread at a time; sessions must not outlive their backend.
#include <memory>

#include "ktune/family.hpp"

namespace ktune::kernels::conv2d::cuda {

// Throws Error naming "cuda:<index>" when the device is unavailable.
std::unique_ptr<Backend> make_backend(const Family& family, int device_index);


}  // namespace ktune::kernels::conv2d::cuda
