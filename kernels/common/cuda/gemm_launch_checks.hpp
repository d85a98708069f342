#pragma once
// What every GEMM kernel launcher returns and the checks they all make: the tiled / split-K /
// warp launchers (gemm_tiled_launch.hpp) and the GEMM family's tensor-core ones. Header-only,
// CUDA runtime API and <string> only, like the launchers (the sweep and the deployed libraries
// share them). Each check takes the launcher's `refuse(why)`, which names its kernel
// instantiation in the message.
#include <cuda_runtime_api.h>

#include <optional>
#include <string>

namespace ktune::kernels::gemm::cuda {

struct TiledLaunch {
  cudaError_t error = cudaSuccess;  // a launch failure that is not a refusal
  bool refused = false;             // the config cannot run this problem (limits, resources)
  std::string message;              // why, when error != cudaSuccess or refused
};

namespace launch_checks {

// The problem of C = alpha*op(A)*op(B) + beta*C (column-major): negative sizes are refused, no
// work (m, n or batch 0) is an empty result, and so is a leading dimension below the rows of
// op(A), op(B) (at least 1) or C a refusal. nullopt: go on.
template <class Refuse>
std::optional<TiledLaunch> check_problem(const Refuse& refuse, bool transa, bool transb,
                                         long long m, long long n, long long k, long long batch,
                                         long long lda, long long ldb, long long ldc) {
  if (m < 0 || n < 0 || k < 0 || batch < 0) return refuse("negative problem size");
  if (m == 0 || n == 0 || batch == 0) return TiledLaunch{};  // nothing to compute
  const long long a_rows = transa ? k : m, b_rows = transb ? n : k;
  if (lda < (a_rows > 1 ? a_rows : 1) || ldb < (b_rows > 1 ? b_rows : 1) || ldc < m)
    return refuse("leading dimension smaller than the matrix rows");
  return std::nullopt;
}

// Dynamic shared memory beyond the device's limit is refused; nullopt: it fits.
template <class Refuse>
std::optional<TiledLaunch> check_shared_memory(const Refuse& refuse, long long shared,
                                               int max_shared_bytes) {
  if (shared <= max_shared_bytes) return std::nullopt;
  return refuse(std::to_string(shared) + " bytes of shared memory exceed the device's " +
                std::to_string(max_shared_bytes));
}

// The result of a CUDA call of a launch (`what`: "launch", "shared memory opt-in", ...): none;
// a lack of resources or a configuration the device rejects is a refusal "<what> refused: ..."
// (the sticky error cleared); anything else an error "<name()>: <what> failed: ..." that the
// caller reports. name() is only called for that message.
template <class Refuse, class Name>
TiledLaunch classify(cudaError_t error, const std::string& what, const Refuse& refuse,
                     const Name& name) {
  if (error == cudaSuccess) return {};
  const std::string text = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
  if (error == cudaErrorLaunchOutOfResources || error == cudaErrorInvalidConfiguration) {
    (void)cudaGetLastError();
    return refuse(what + " refused: " + text);
  }
  return {error, false, name() + ": " + what + " failed: " + text};
}

}  // namespace launch_checks
}  // namespace ktune::kernels::gemm::cuda
