#pragma once
// The CUDA backend of file families whose Language is CUDA: each config compiled by NVRTC (the
// disk cache of src/cuda), the problem's host data (problem_data.hpp) uploaded, and every config
// measured by verify_then_time_on_device. Built only with the CUDA toolkit.
#include <string>

#include "ktune/cuda/nvrtc_compile.hpp"
#include "ktune/space.hpp"

namespace ktune::filefamily {

class FileFamily;

// The NVRTC request of a config: the kernel file's text, -I its folder, the CompilerOptions,
// and the parameters as -D defines or as template arguments of the name expression.
cuda::NvrtcRequest nvrtc_request(const FileFamily& family, const Config& config,
                                 const std::string& arch);

// Registers the family's "cuda" backend.
void register_cuda_file_backend(const std::string& family);

}  // namespace ktune::filefamily
