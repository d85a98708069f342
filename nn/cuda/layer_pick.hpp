#pragma once
// The rule by which ktune-cuda (every precision) picks a layer's candidate at load (a conv: the
// tuned library's path, im2col + cuBLAS, cuDNN, wgmma; an FC layer: the tuned GEMM or cuBLAS):
// interleaved rounds (2 warm-up rounds, then at least 10 and up to 40 until 20 ms were timed),
// the candidate with the fastest single sample kept. The noise of microsecond-long GPU runs
// only adds time, and a GPU whose clocks are still ramping slows whichever ran first; the old
// rule (the mean of 3 runs after one, one candidate after the other) picked gemm_ex on 10 of
// VGG16 batch 1's 13 convs where cuDNN was faster on most. Header-only and CUDA-free, so
// planted timings test it without a GPU.
#include <fmt/format.h>

#include <algorithm>
#include <string>
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

// The pick among named candidates and the note the layer reports: "pick=cublas (conv2d 0.0500
// ms, cublas 0.0300 ms, cudnn 0.0400 ms at load: fastest of 12 interleaved rounds)" (the word
// before a name's first space is the pick's kind: "wgmma tp=16;..." is a wgmma pick).
struct LayerPick {
  int index;
  std::string note;
};
template <typename TimeOnce>
LayerPick pick_layer(const std::vector<std::string>& names, TimeOnce&& time_once) {
  std::vector<std::vector<double>> samples;
  const int pick = pick_layer_candidate(int(names.size()), time_once, samples);
  std::string times;
  for (size_t c = 0; c < names.size(); ++c)
    times += fmt::format("{}{} {:.4f} ms", c ? ", " : "", names[c],
                         *std::min_element(samples[c].begin(), samples[c].end()));
  return {pick,
          fmt::format("pick={} ({} at load: fastest of {} interleaved rounds)",
                      names[pick].substr(0, names[pick].find(' ')), times, samples[0].size())};
}

}  // namespace ktune::nn::cuda
