#include "nn/cuda/stream_graph.hpp"

#include "ktune/cuda/device_buffer.hpp"
#include "ktune/error.hpp"

namespace ktune::nn::cuda {

using ktune::cuda::check;

void StreamGraph::reset() {
  if (exec_) cudaGraphExecDestroy(exec_), exec_ = nullptr;
  if (graph_) cudaGraphDestroy(graph_), graph_ = nullptr;
}

void StreamGraph::begin(cudaStream_t stream) {
  reset();
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
}

void StreamGraph::end(cudaStream_t stream) {
  // Ends the capture even when a call inside invalidated it, so the stream runs eagerly again.
  const cudaError_t status = cudaStreamEndCapture(stream, &graph_);
  if (status != cudaSuccess && graph_) cudaGraphDestroy(graph_), graph_ = nullptr;
  check(status, "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
}

void StreamGraph::capture(cudaStream_t stream, const std::function<void()>& calls) {
  begin(stream);
  try {
    calls();
  } catch (...) {
    cudaGraph_t dropped = nullptr;
    if (cudaStreamEndCapture(stream, &dropped) == cudaSuccess && dropped) cudaGraphDestroy(dropped);
    throw;
  }
  end(stream);
}

void StreamGraph::launch(cudaStream_t stream) const {
  if (!exec_) throw Error("launch of a CUDA graph that was not captured");
  check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
}

double StreamGraph::launch_timed_ms(cudaStream_t stream) const {
  ktune::cuda::Event start, stop;
  check(cudaEventRecord(start.get(), stream), "cudaEventRecord");
  launch(stream);
  check(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
  check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
  return ms;
}

}  // namespace ktune::nn::cuda
