#pragma once
// The CUDA backend of the stencil family. A problem's program (user function + frame, per
// element type and borders) is compiled once by NVRTC with the disk cache when the problem is
// opened; the work-group is the launch's block shape, so all 65 configs share one kernel.
// Each config is verified on poisoned output against the host reference, then timed with CUDA
// events, rotating input/output copies when the data would stay in L2. Work-groups beyond the
// kernel's max threads per block, or whose staged tile exceeds the opt-in shared memory per
// block, are refused (not launched); launch failures for resources are refused too.
#include <memory>
#include <string>
#include <vector>

#include "kernels/stencil/stencil_family.hpp"
#include "ktune/cuda/nvrtc_compile.hpp"

namespace ktune::stencil::cuda {

// The NVRTC request of a scenario's program for `arch` ("sm_90"). --fmad=false keeps a*b+c
// as two roundings, as the host reference computes it.
ktune::cuda::NvrtcRequest nvrtc_request(const Scenario& s, const std::string& arch);

// Dynamic shared memory of one block: the staged tile plus border.
size_t shared_bytes(const Scenario& s, const WorkGroup& wg);

// Throws Error naming "cuda:<index>" when the device is unavailable.
std::unique_ptr<Backend> make_backend(const Family& family, int device_index);


}  // namespace ktune::stencil::cuda
