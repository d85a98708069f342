#include "ktune/cuda/device_measure.hpp"

#include <fmt/format.h>

#include "ktune/cuda/cuda_error.hpp"
#include "ktune/error.hpp"

namespace ktune::cuda {

int rotation_copies(const DeviceContext& device, double bytes) {
  return ktune::rotation_copies(bytes, double(device.l2_bytes()));
}

Outcome verify_then_time_on_device(DeviceContext& device, const DeviceRun& run,
                                   const TimingPolicy& policy, const std::string& what) {
  if (const std::string problem = timing_policy_problem(policy); !problem.empty())
    throw Error("timing policy: " + problem);
  Outcome out;
  auto end = [&](Status status, const std::string& message) {
    out.status = status;
    out.message = what + ": " + message;
    out.timing = {};
    return out;
  };
  try {
    run.poison();
    const double first_ms = device.time([&] { run.launch(0); });
    const RunVerdict verdict = run.verify();
    out.rel_error = verdict.rel_error;
    if (!verdict.ok) return end(Status::wrong, verdict.message);
    if (first_ms > policy.timeout_ms)
      return end(Status::timeout, fmt::format("one run took {:.1f} ms > timeout {:.1f} ms",
                                              first_ms, policy.timeout_ms));
    // Copy 0 was just written by the verification run: start with the next one.
    int next = run.copies > 1 ? 1 : 0;
    const Outcome timed = time_adaptive(
        [&] {
          const int copy = next;
          next = (next + 1) % run.copies;
          return device.time([&] { run.launch(copy); });
        },
        policy);
    if (timed.status != Status::ok) return end(timed.status, timed.message);
    out.status = Status::ok;
    out.timing = timed.timing;
  } catch (const RunAbort& abort) {
    return end(abort.status, abort.message);
  } catch (const CudaError& e) {
    return end(Status::failed, e.what());
  }
  return out;
}

}  // namespace ktune::cuda
