#pragma once
// The verify-then-time protocol of the CPU backends, shared by every family: one run on
// poisoned output judged against the reference, then adaptive timing with steady_clock over
// buffer copies rotated so that reruns do not find their data in the last-level cache. The CUDA
// backends follow the same protocol with the same rotation rule and verdicts (src/cuda/
// device_measure.hpp), timed by CUDA events.
#include <cstddef>
#include <functional>
#include <string>

#include "ktune/device.hpp"
#include "ktune/measurement.hpp"
#include "ktune/timing.hpp"

namespace ktune {

// The cache timed reruns must overflow: the host's L3 (or a larger L2) from its device
// features; 32 MiB when neither is known.
double last_level_cache_bytes(const DeviceInfo& cpu);

// Copies of a problem's buffers (bytes each) to rotate among so that together they cover twice
// the last-level cache (a GPU's L2): between 1 and 8.
int rotation_copies(double bytes, double llc_bytes);

struct RunVerdict {
  bool ok = false;
  double rel_error = 0;
  std::string message;  // why the result is wrong
};

// The verdict on a result whose relative error against the float64 reference is `error`: right
// when error <= bound; NaN or Inf (an unwritten, poisoned element) is never right and stores an
// infinite error. Shared by the host and CUDA backends so their messages agree.
RunVerdict judge_error(double error, double bound);

// verify() runs once on poisoned output and judges it; when right, run(copy) is timed by
// time_adaptive with copy = 0, 1, 2, ... modulo copies. Exceptions give `failed`, a run over
// the policy's timeout gives `timeout` (time_adaptive); an unusable policy throws Error.
Outcome verify_then_time_on_host(const std::function<RunVerdict()>& verify,
                                 const std::function<void(size_t copy)>& run, size_t copies,
                                 const TimingPolicy& policy);

}  // namespace ktune
