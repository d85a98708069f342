#pragma once
// Several calls of one problem timed in turns with the sweep's device protocol
// (ktune/cuda/device_measure.hpp: verify, then median of event-timed runs over rotated copies):
// round r times the calls starting with call r mod N, and each call's time is the median of its
// round medians. Timed one after another, a call's time also holds the GPU's clock and the host's
// state of its moment (tuned_gemm_bench times the deployed library first on each shape); in
// turns, two calls that cost the same time the same. Each call is verified in its first round.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/cuda/device_measure.hpp"

namespace tuned_gemm {

struct TurnCall {
  std::string name;
  std::function<void(int copy)> launch;
};

// One Outcome per call, in the calls' order; a call that is not ok in some round keeps that
// round's status and message.
inline std::vector<ktune::Outcome> time_in_turns(ktune::cuda::DeviceContext& device,
                                                 const ktune::cuda::DeviceRun& run,
                                                 const ktune::TimingPolicy& policy,
                                                 const std::vector<TurnCall>& calls, int rounds) {
  const size_t n = calls.size();
  std::vector<ktune::Outcome> out(n);
  std::vector<std::vector<double>> medians(n);
  for (int round = 0; round < rounds; ++round) {
    for (size_t turn = 0; turn < n; ++turn) {
      const size_t i = (size_t(round) + turn) % n;
      if (round > 0 && out[i].status != ktune::Status::ok) continue;
      ktune::cuda::DeviceRun timed = run;
      timed.launch = calls[i].launch;
      if (round > 0) timed.verify = [] { return ktune::RunVerdict{true, 0.0, ""}; };
      ktune::Outcome o =
          ktune::cuda::verify_then_time_on_device(device, timed, policy, calls[i].name);
      if (round == 0) out[i] = o;
      if (o.status != ktune::Status::ok) {
        out[i] = std::move(o);
        continue;
      }
      medians[i].push_back(o.timing.median_ms);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (out[i].status != ktune::Status::ok) continue;
    std::vector<double>& m = medians[i];
    std::sort(m.begin(), m.end());
    out[i].timing.median_ms = m[m.size() / 2];
  }
  return out;
}

}  // namespace tuned_gemm
