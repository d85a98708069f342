#include "ktune/cuda/cuda_error.hpp"

#include <fmt/format.h>

#include <atomic>
#include <mutex>

#include "ktune/cuda/sticky_error.hpp"

namespace ktune::cuda {
namespace {

std::atomic<bool> g_corrupted{false};
std::mutex g_corruption_mutex;
std::string g_corruption_cause;  // guarded by g_corruption_mutex

constexpr const char* kCorruptedNote =
    "CUDA context corrupted by a sticky error: no further CUDA work is possible in this "
    "process; restart it (a resumed sweep skips the measurement recorded as failed)";

void record_corruption(const std::string& cause) {
  std::lock_guard lock(g_corruption_mutex);
  if (!g_corrupted.exchange(true)) g_corruption_cause = cause;
}

}  // namespace

std::string error_text(cudaError_t error) {
  return fmt::format("{} ({})", cudaGetErrorName(error), cudaGetErrorString(error));
}

bool is_sticky(cudaError_t error) { return is_sticky_error(error); }

std::string describe_failure(cudaError_t error, std::string_view call) {
  std::string message = fmt::format("{}: {}", call, error_text(error));
  // Clear the error so that a non-sticky one does not leak into the next check; a sticky one
  // stays and shows up again on synchronization, which is how unknown sticky codes are caught.
  (void)cudaGetLastError();
  bool sticky = is_sticky(error);
  if (!sticky && error != cudaErrorNoDevice && error != cudaErrorInsufficientDriver &&
      error != cudaErrorInitializationError) {
    const cudaError_t probe = cudaDeviceSynchronize();
    (void)cudaGetLastError();
    sticky = probe != cudaSuccess && is_sticky(probe);
  }
  if (sticky) {
    record_corruption(message);
    message += std::string("; ") + kCorruptedNote;
  }
  return message;
}

void check(cudaError_t error, std::string_view call) {
  if (error == cudaSuccess) return;
  const std::string message = describe_failure(error, call);
  throw CudaError(message, int(error), context_corrupted());
}

void check_nvrtc(nvrtcResult result, std::string_view call) {
  if (result == NVRTC_SUCCESS) return;
  throw CudaError(fmt::format("{}: {}", call, nvrtcGetErrorString(result)), int(result), false);
}

void check_cublas(cublasStatus_t status, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::string message =
      fmt::format("{}: {} ({})", call, cublasGetStatusName(status), cublasGetStatusString(status));
  // cuBLAS reports kernel faults as EXECUTION_FAILED; the runtime knows whether they stuck.
  const cudaError_t pending = cudaGetLastError();
  if (pending != cudaSuccess) message = describe_failure(pending, message);
  throw CudaError(message, int(status), context_corrupted());
}

bool context_corrupted() { return g_corrupted.load(); }

void ensure_context_usable() {
  if (!context_corrupted()) return;
  std::lock_guard lock(g_corruption_mutex);
  throw CudaError(fmt::format("{} (first error: {})", kCorruptedNote, g_corruption_cause), 0, true);
}

}  // namespace ktune::cuda
