#pragma once
// Checked calls into the CUDA runtime, NVRTC and cuBLAS: every failure becomes a CudaError whose
// message names the call and the error. A "sticky" error (illegal address, a trap, ...) corrupts
// the CUDA context for the rest of the process: it is recorded, and every later check refuses to
// go on with a message saying that the process must be restarted.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>
#include <string_view>

#include "ktune/error.hpp"

namespace ktune::cuda {

class CudaError : public Error {
 public:
  CudaError(const std::string& message, int code, bool sticky)
      : Error(message), code_(code), sticky_(sticky) {}
  int code() const { return code_; }
  bool sticky() const { return sticky_; }  // the CUDA context is unusable from now on

 private:
  int code_;
  bool sticky_;
};

// "cudaErrorIllegalAddress (an illegal memory access was encountered)".
std::string error_text(cudaError_t error);

// Errors that leave the context corrupted: all later CUDA calls in the process fail
// (is_sticky_error of sticky_error.hpp, which the deployed libraries use too).
bool is_sticky(cudaError_t error);

// Classifies a failed call: clears the non-sticky error state, records a sticky one, and
// returns the message "<call>: <error>[; CUDA context corrupted ...]".
std::string describe_failure(cudaError_t error, std::string_view call);

// Throws CudaError when error != cudaSuccess.
void check(cudaError_t error, std::string_view call);
void check_nvrtc(nvrtcResult result, std::string_view call);
void check_cublas(cublasStatus_t status, std::string_view call);

// Throws CudaError (sticky) once any sticky error was seen in this process.
void ensure_context_usable();
bool context_corrupted();

}  // namespace ktune::cuda
