#include "ktune/cuda/device_context.hpp"

#include <cuda_runtime_api.h>

#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/cuda_error.hpp"

namespace ktune::cuda {
namespace {

// Selects the device before the stream and events are created on it.
int selected(int index) {
  require_device(index);
  use_device(index);
  return index;
}

}  // namespace

DeviceContext::DeviceContext(int index)
    : index_(selected(index)),
      info_(query_cuda_device(index)),
      arch_(device_arch(index)),
      l2_bytes_(device_attribute(index, cudaDevAttrL2CacheSize, "l2_bytes")) {}

void DeviceContext::make_current() const { use_device(index_); }

void DeviceContext::record_start() {
  check(cudaEventRecord(start_.get(), stream_.get()), "cudaEventRecord(start)");
}

double DeviceContext::wait_elapsed_ms() {
  check(cudaEventRecord(stop_.get(), stream_.get()), "cudaEventRecord(stop)");
  check(cudaEventSynchronize(stop_.get()), "kernel execution");  // kernel faults surface here
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_.get(), stop_.get()), "cudaEventElapsedTime");
  return ms;
}

}  // namespace ktune::cuda
