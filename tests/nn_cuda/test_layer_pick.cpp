// ktune-cuda-bf16's per-layer pick rule (nn/cuda/layer_pick.hpp) on planted timings: no GPU.
#include <gtest/gtest.h>

#include <vector>

#include "nn/cuda/layer_pick.hpp"

namespace ktune::nn::cuda {
namespace {

// gemm_ex (0) takes 36 µs, cuDNN (1) 30 µs, but every third cuDNN run is 20 µs slower (noise
// only adds time): the old rule, the mean of 3 runs after one, one candidate after the other,
// keeps gemm_ex; the rule keeps cuDNN, also when the first 6 runs of all take twice as long
// (clocks ramping up).
TEST(NnCudaLayerPick, NoiseAndAClockRampDoNotDecide) {
  int runs = 0, cudnn_runs = 0;
  bool ramp = false;
  const auto time_once = [&](int c) {
    double us = c == 0 ? 36 : 30 + (cudnn_runs++ % 3 == 2 ? 20 : 0);
    if (ramp && runs++ < 6) us *= 2;
    return us / 1000;
  };
  double old_mean[2];
  for (int c = 0; c < 2; ++c) {
    time_once(c);
    old_mean[c] = (time_once(c) + time_once(c) + time_once(c)) / 3;
  }
  EXPECT_LT(old_mean[0], old_mean[1]);  // the planted case fools the old rule
  for (const bool with_ramp : {false, true}) {
    ramp = with_ramp;
    runs = cudnn_runs = 0;
    std::vector<std::vector<double>> samples;
    EXPECT_EQ(pick_layer_candidate(2, time_once, samples), 1);
    ASSERT_EQ(samples.size(), 2u);
    EXPECT_GE(samples[1].size(), size_t(kLayerPickRounds.min_reps));
    EXPECT_LE(samples[1].size(), size_t(kLayerPickRounds.max_reps));
    EXPECT_EQ(samples[0].size(), samples[1].size());  // every round times both
  }
}

}  // namespace
}  // namespace ktune::nn::cuda
