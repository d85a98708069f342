#pragma once
// A CUDA graph recorded from the calls made on a stream and replayed on it: how a served network
// runs (CudaBackend's whole-pass graphs) and how load-time choices time their candidates
// (ktune-cuda-bf16's per-layer pick), so that launch gaps between a candidate's kernels count
// as they do when the network runs.
#include <cuda_runtime_api.h>

#include <functional>

namespace ktune::nn::cuda {

class StreamGraph {
 public:
  StreamGraph() = default;
  ~StreamGraph() { reset(); }
  StreamGraph(const StreamGraph&) = delete;
  StreamGraph& operator=(const StreamGraph&) = delete;

  // begin() starts recording the stream (relaxed mode: libraries may query or allocate lazily
  // in their first calls; warm them up first); end() stops and instantiates. end() throws
  // ktune::Error naming the failing call when the calls in between could not be recorded; the
  // stream runs eagerly afterwards either way.
  void begin(cudaStream_t stream);
  void end(cudaStream_t stream);
  // begin(), the calls, end(); a throwing call ends the recording before the error leaves.
  void capture(cudaStream_t stream, const std::function<void()>& calls);
  void launch(cudaStream_t stream) const;
  // One launch between two events, waited for: its milliseconds on the GPU.
  double launch_timed_ms(cudaStream_t stream) const;
  bool empty() const { return exec_ == nullptr; }
  void reset();

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace ktune::nn::cuda
