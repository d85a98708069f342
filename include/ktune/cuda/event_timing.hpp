#pragma once
// The one CUDA event timing of the project, header-only on the CUDA runtime API so that the
// deployed libraries (which link no ktune library) time a run exactly as the sweep does
// (DeviceContext::time): the start event recorded on the stream, the run enqueued, the stop event
// recorded and waited for, the milliseconds between the two. Errors are returned, not thrown:
// the sweep turns them into its CudaError, a deployed library into its own. C++17.
#include <cuda_runtime_api.h>

namespace ktune::cuda {

struct EventStep {
  cudaError_t error = cudaSuccess;
  const char* what = "";  // the step that failed ("kernel execution": the run faulted)
  double ms = 0;          // set by event_elapsed_ms
};

inline EventStep event_start(cudaEvent_t start, cudaStream_t stream) {
  return {cudaEventRecord(start, stream), "cudaEventRecord(start)"};
}

// Records stop after the enqueued run, waits for it (a fault of the run surfaces here) and reads
// the time since start.
inline EventStep event_elapsed_ms(cudaEvent_t start, cudaEvent_t stop, cudaStream_t stream) {
  if (cudaError_t e = cudaEventRecord(stop, stream); e != cudaSuccess)
    return {e, "cudaEventRecord(stop)"};
  if (cudaError_t e = cudaEventSynchronize(stop); e != cudaSuccess) return {e, "kernel execution"};
  float ms = 0;
  if (cudaError_t e = cudaEventElapsedTime(&ms, start, stop); e != cudaSuccess)
    return {e, "cudaEventElapsedTime"};
  EventStep done;
  done.ms = ms;
  return done;
}

// One timed run: launch() enqueues it on stream (and may throw: the start event is then left
// recorded, which the next timing overwrites).
template <typename Launch>
EventStep time_with_events(cudaEvent_t start, cudaEvent_t stop, cudaStream_t stream,
                           Launch&& launch) {
  if (EventStep s = event_start(start, stream); s.error != cudaSuccess) return s;
  launch();
  return event_elapsed_ms(start, stop, stream);
}

}  // namespace ktune::cuda
