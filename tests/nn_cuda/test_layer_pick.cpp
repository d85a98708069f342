// ktune-cuda's per-layer pick rule (nn/cuda/layer_pick.hpp) on planted timings: no GPU.
#include <gtest/gtest.h>

#include <string>
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

// ResNet-50 batch 1 in fp32 (issue #25): the tuned conv library took 2.32 ms for the network where
// im2col + cuBLAS took 1.31. Planted per-layer times, the library's conv the slowest on this
// layer and a cuBLAS sample spiking now and then: the pick is cuBLAS, the note names the pick
// and every candidate's fastest sample, in the candidates' order.
TEST(NnCudaLayerPick, Fp32ConvPicksAmongTheLibraryCublasAndCudnn) {
  const std::vector<std::string> names{"conv2d", "cublas", "cudnn"};
  int cublas_runs = 0;
  const auto time_once = [&](int c) {
    const double us[] = {50, 30, 40};
    return (us[c] + (c == 1 && cublas_runs++ % 4 == 3 ? 40 : 0)) / 1000;
  };
  const LayerPick pick = pick_layer(names, time_once);
  EXPECT_EQ(pick.index, 1);
  EXPECT_TRUE(
      pick.note.starts_with("pick=cublas (conv2d 0.0500 ms, cublas 0.0300 ms, cudnn "
                            "0.0400 ms at load: fastest of "))
      << pick.note;
}

// An FC layer (VGG16's classifier.0 at batch 1 in tf32: 0.124 ms on gemm_ex, 0.084 on cuBLAS):
// cuBLAS is picked; where the tuned GEMM is faster it is kept.
TEST(NnCudaLayerPick, FcPicksTheFasterOfTheTunedGemmAndCublas) {
  const std::vector<std::string> names{"gemm_ex", "cublas"};
  EXPECT_EQ(pick_layer(names, [](int c) { return c == 0 ? 0.124 : 0.084; }).index, 1);
  const LayerPick kept = pick_layer(names, [](int c) { return c == 0 ? 0.080 : 0.084; });
  EXPECT_EQ(kept.index, 0);
  EXPECT_TRUE(kept.note.starts_with("pick=gemm_ex (gemm_ex 0.0800 ms, cublas 0.0840 ms"))
      << kept.note;
}

// A wgmma candidate's name carries its config: the note's pick is its kind ("wgmma").
TEST(NnCudaLayerPick, AWgmmaPickIsNamedByItsKind) {
  const std::vector<std::string> names{"gemm_ex", "cudnn", "wgmma tp=16;tq=8;bn=128;st=4"};
  const LayerPick pick = pick_layer(names, [](int c) { return c == 2 ? 0.01 : 0.02; });
  EXPECT_EQ(pick.index, 2);
  EXPECT_TRUE(pick.note.starts_with("pick=wgmma (")) << pick.note;
  EXPECT_NE(pick.note.find("wgmma tp=16;tq=8;bn=128;st=4 0.0100 ms"), std::string::npos);
}

}  // namespace
}  // namespace ktune::nn::cuda
