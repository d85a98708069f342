#pragma once
// The two stream queries a tuned CUDA library's call makes each time it takes a workspace (is the
// stream being captured into a graph; which stream is it), at their lowest host cost. A call's
// host cost is inside the time a caller measures with events around it (~20 us shapes), and the
// deployed cuBLASLt call cost 0.6-1.1 us more than its cached plan called alone on an H100, the
// difference being these queries and the argument checks
// (results/h100-80gb-hbm3/tc-deployed-s15/host-call-cost.txt). So:
//  - both are asked of the driver through its entry points, resolved once, rather than through
//    the runtime's wrappers (the runtime's answer where an entry point is missing or the driver
//    call fails: its error, or its lazy context creation for the null stream, is then the
//    runtime's own);
//  - the handles that are never destroyed (the legacy and per-thread default streams) name
//    themselves, so their call asks no id: an id is needed only because a destroyed stream's
//    handle can come back as a new stream's.
// tuned_gemm_bench --host-call-cost times each query both ways beside the whole call.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ktune::kernels::cuda_workspace {

// Throws a one-line error naming the runtime call that failed.
inline void check_runtime_call(cudaError_t error, const char* what) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string("ktune: ") + what + ": " + cudaGetErrorName(error) + ": " +
                             cudaGetErrorString(error));
}

// The driver's cuStreamIsCapturing and cuStreamGetId (the caller's default-stream semantics, as
// the runtime's wrappers in this unit would use), or nullptr where the runtime cannot give them.
struct DriverStreamQueries {
  CUresult (*is_capturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  CUresult (*get_id)(CUstream, unsigned long long*) = nullptr;
};

inline const DriverStreamQueries& driver_stream_queries() {
  static const DriverStreamQueries queries = [] {
    DriverStreamQueries q;
#if CUDART_VERSION >= 12050
    auto resolve = [](const char* symbol, void** function) {
      cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
      if (cudaGetDriverEntryPointByVersion(symbol, function, 12000, cudaEnableDefault, &found) !=
              cudaSuccess ||
          found != cudaDriverEntryPointSuccess)
        *function = nullptr;
    };
    resolve("cuStreamIsCapturing", reinterpret_cast<void**>(&q.is_capturing));
    resolve("cuStreamGetId", reinterpret_cast<void**>(&q.get_id));
#endif
    return q;
  }();
  return queries;
}

// Whether `stream` is being captured into a graph (cudaStreamIsCapturing's answer).
inline bool stream_is_capturing(cudaStream_t stream) {
  const DriverStreamQueries& q = driver_stream_queries();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (q.is_capturing && q.is_capturing(stream, &status) == CUDA_SUCCESS)
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check_runtime_call(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing");
  return capture != cudaStreamCaptureStatusNone;
}

// The handles that name one stream for as long as the thread's device does: the null stream, and
// the explicit legacy and per-thread default streams (never destroyed, so never reused).
inline bool stream_is_a_default_stream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

// What names a stream's state kept between calls: its id (cudaStreamGetId's: never reused, unlike
// a destroyed stream's handle), or a default stream's handle (no query). With the device, one
// stream; a kept state of a default stream is the calling thread's (the per-thread stream is).
struct StreamKey {
  unsigned long long value = 0;
  bool is_handle = false;
  bool operator==(const StreamKey& o) const { return value == o.value && is_handle == o.is_handle; }
};

inline StreamKey stream_key(cudaStream_t stream) {
  if (stream_is_a_default_stream(stream)) {
    // The null stream is the legacy one, or the per-thread one where this unit is compiled for
    // per-thread default streams: named as that one, so the two names share one kept state.
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    const cudaStream_t named = stream ? stream : cudaStreamPerThread;
#else
    const cudaStream_t named = stream ? stream : cudaStreamLegacy;
#endif
    return {static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(named)), true};
  }
  const DriverStreamQueries& q = driver_stream_queries();
  unsigned long long id = 0;
  if (!q.get_id || q.get_id(stream, &id) != CUDA_SUCCESS)
    check_runtime_call(cudaStreamGetId(stream, &id), "cudaStreamGetId");
  return {id, false};
}

}  // namespace ktune::kernels::cuda_workspace
