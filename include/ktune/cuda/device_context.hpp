#pragma once
// One CUDA device as a backend uses it: selected, with its stream and the event pair that times
// launches, its description, architecture and L2 size. Every CUDA backend (and the deployed
// library's benchmark) builds on this one context.
#include <cstdint>
#include <string>

#include "ktune/cuda/device_buffer.hpp"
#include "ktune/device.hpp"

namespace ktune::cuda {

class DeviceContext {
 public:
  // Throws Error naming "cuda:<index>" when the device does not exist or CUDA is unusable.
  explicit DeviceContext(int index);
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  int index() const { return index_; }
  const DeviceInfo& info() const { return info_; }
  const std::string& arch() const { return arch_; }  // "sm_90", for NVRTC
  int64_t l2_bytes() const { return l2_bytes_; }
  cudaStream_t stream() const { return stream_.get(); }
  // Makes the device current on the calling thread (CUDA's current device is per thread).
  void make_current() const;

  // The one CUDA event timing of the project: records the start event, enqueues launch() on
  // stream(), records the stop event and waits for it. Milliseconds between the events. A
  // fault of the launched work throws CudaError ("kernel execution: ...").
  template <typename Launch>
  double time(Launch&& launch) {
    record_start();
    launch();
    return wait_elapsed_ms();
  }

 private:
  void record_start();
  double wait_elapsed_ms();

  int index_;
  DeviceInfo info_;
  std::string arch_;
  int64_t l2_bytes_;
  Stream stream_;
  Event start_, stop_;
};

}  // namespace ktune::cuda
