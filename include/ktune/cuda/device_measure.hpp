#pragma once
// The verify-then-time protocol of the CUDA backends (the device side of ktune/host_measure.hpp,
// with its rotation rule and verdicts): one run on poisoned output, judged; then adaptive timing
// with CUDA events (DeviceContext::time) over input copies rotated so that reruns do not find
// their data in L2. A timeout is a status, as on the host.
#include <functional>
#include <string>

#include "ktune/cuda/device_context.hpp"
#include "ktune/host_measure.hpp"
#include "ktune/measurement.hpp"
#include "ktune/timing.hpp"

namespace ktune::cuda {

// Thrown by a launch to end the measurement with a non-ok status (refused: the launch does not
// fit this device; failed) and its reason.
struct RunAbort {
  Status status;
  std::string message;
};

struct DeviceRun {
  std::function<void()> poison;          // enqueues poisoning copy 0's output on the stream
  std::function<void(int copy)> launch;  // enqueues one run on copy's buffers
  std::function<RunVerdict()> verify;    // judges copy 0's output after the first run
  int copies = 1;                        // rotation_copies(bytes of one copy, l2_bytes)
};

// Copies of `bytes` of per-run data to rotate among on this device.
int rotation_copies(const DeviceContext& device, double bytes);

// Poisons, runs once (timed) and verifies; then times with time_adaptive, rotating copies
// 1, 2, ..., 0. Statuses: wrong (the verdict), timeout (any run over policy.timeout_ms, the
// verification run included), the status of a RunAbort, failed for CUDA errors; messages start
// with `what`. An unusable policy throws Error.
Outcome verify_then_time_on_device(DeviceContext& device, const DeviceRun& run,
                                   const TimingPolicy& policy, const std::string& what);

}  // namespace ktune::cuda
