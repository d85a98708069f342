#include "ktune/cuda/device_context.hpp"

#include <cuda_runtime_api.h>

#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/event_timing.hpp"

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

// The steps of ktune/cuda/event_timing.hpp, which the deployed libraries time with too.
void DeviceContext::record_start() {
  const EventStep s = event_start(start_.get(), stream_.get());
  check(s.error, s.what);
}

double DeviceContext::wait_elapsed_ms() {
  const EventStep s = event_elapsed_ms(start_.get(), stop_.get(), stream_.get());
  check(s.error, s.what);  // kernel faults surface here, as "kernel execution"
  return s.ms;
}

}  // namespace ktune::cuda
