#pragma once
// The rule by which ktune-cuda-bf16 picks a conv layer's candidate at load (gemm_ex or cuDNN):
// interleaved rounds (2 warm-up rounds, then at least 10 and up to 40 until 20 ms were timed),
// the candidate with the fastest single sample kept. The noise of microsecond-long GPU runs
// only adds time, and a GPU whose clocks are still ramping slows whichever ran first; the old
// rule (the mean of 3 runs after one, one candidate after the other) picked gemm_ex on 10 of
// VGG16 batch 1's 13 convs where cuDNN was faster on most. Header-only and CUDA-free, so
// planted timings test it without a GPU.
#include <vector>

#include "ktune/timing_loop.hpp"

namespace ktune::nn::cuda {

inline constexpr TimingPolicy kLayerPickRounds{
    .warmups = 2, .min_reps = 10, .max_reps = 40, .budget_ms = 20, .timeout_ms = 1e9};

// time_once(c) runs candidate c once (or a fixed batch of runs) and returns its milliseconds.
// Returns the index picked; `samples` gets each candidate's timed samples.
template <typename TimeOnce>
int pick_layer_candidate(int candidates, TimeOnce&& time_once,
                         std::vector<std::vector<double>>& samples) {
  samples = run_interleaved(candidates, time_once, kLayerPickRounds);
  return fastest_candidate(samples, true);
}

}  // namespace ktune::nn::cuda
