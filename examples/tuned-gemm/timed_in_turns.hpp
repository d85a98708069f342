#pragma once
// Several calls of one problem timed in turns, launch by launch: each call is verified once with
// the sweep's device protocol (ktune/cuda/device_measure.hpp: poisoned output, checked, one
// warm-up), then the calls take turns run after run (run r starts with call r mod N), each run
// event-timed on the next rotated copy, and each call's time is the median of its runs.
// Why run by run: timed call after call in rounds of ~10 ms, three cuBLASLt calls that differ on
// the GPU only in the workspace's address measured up to 12 % apart on the largest shapes, in the
// order of their median round's place (results/h100-80gb-hbm3/tc-lt-call-ab: the library, 6th of
// 9, 0.863 ms vs its own plan, 4th, 0.765 ms on 27648x2048x5120 bf16; over 0.5 ms the library the
// slowest on 28 of 33 shapes): the likeliest reading is the clock falling over a power-bound
// shape's rounds. Alternating every run gives each call the same clock.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_measure.hpp"
#include "ktune/timing.hpp"

namespace tuned_gemm {

struct TurnCall {
  std::string name;
  std::function<void(int copy)> launch;
};

// One Outcome per call, in the calls' order. A call's timed runs: rounds times the runs one
// round of the policy takes (its budget over the verification run's time, within min_reps and
// max_reps). A call that is not ok (wrong, timeout, refused, failed) keeps that status and message.
inline std::vector<ktune::Outcome> time_in_turns(ktune::cuda::DeviceContext& device,
                                                 const ktune::cuda::DeviceRun& run,
                                                 const ktune::TimingPolicy& policy,
                                                 const std::vector<TurnCall>& calls, int rounds) {
  const size_t n = calls.size();
  std::vector<ktune::Outcome> out(n);
  std::vector<std::vector<double>> samples(n);
  // Verification (and the policy's warm-ups): one timed run each, which sizes the rounds.
  ktune::TimingPolicy once = policy;
  once.min_reps = once.max_reps = 1;
  once.budget_ms = 0;
  double slowest_ms = 0;
  for (size_t i = 0; i < n; ++i) {
    ktune::cuda::DeviceRun checked = run;
    checked.launch = calls[i].launch;
    out[i] = ktune::cuda::verify_then_time_on_device(device, checked, once, calls[i].name);
    if (out[i].status == ktune::Status::ok)
      slowest_ms = std::max(slowest_ms, out[i].timing.median_ms);
  }
  const int per_round = std::clamp(int(policy.budget_ms / std::max(slowest_ms, 1e-3)),
                                   policy.min_reps, std::max(policy.min_reps, policy.max_reps));
  const int runs = std::max(rounds, 1) * per_round;
  int next = run.copies > 1 ? 1 : 0;  // copy 0 holds the last verification's output
  for (int r = 0; r < runs; ++r) {
    for (size_t turn = 0; turn < n; ++turn) {
      const size_t i = (size_t(r) + turn) % n;
      if (out[i].status != ktune::Status::ok) continue;
      const int copy = next;
      next = (next + 1) % run.copies;
      try {
        const double ms = device.time([&] { calls[i].launch(copy); });
        if (ms > policy.timeout_ms) {
          out[i].status = ktune::Status::timeout;
          out[i].message = calls[i].name + ": one run over the timeout";
          continue;
        }
        samples[i].push_back(ms);
      } catch (const ktune::cuda::RunAbort& abort) {
        out[i].status = abort.status;
        out[i].message = calls[i].name + ": " + abort.message;
      } catch (const ktune::cuda::CudaError& e) {
        out[i].status = ktune::Status::failed;
        out[i].message = calls[i].name + ": " + e.what();
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (out[i].status != ktune::Status::ok) {
      out[i].timing = {};
      continue;
    }
    out[i].timing = ktune::summarize(samples[i]);
  }
  return out;
}

}  // namespace tuned_gemm
