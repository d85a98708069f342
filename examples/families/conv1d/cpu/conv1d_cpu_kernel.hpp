#pragma once
// The conv1d CPU kernel: blocks of `block` outputs (a unit of OpenMP work), each output summed in
// Acc interleaved partial sums over the taps. Shared by the sweep (conv1d_cpu_backend.cpp) and
// the tuned library (deploy/tuned_cpu.inl); needs nothing of ktune.
#include <algorithm>
#include <cstdint>

namespace ktune::kernels::conv1d {

// Outputs [begin, end) of y[i] = sum_{j < taps} w[j] * x[i + j].
template <int Acc>
void conv_block(const float* x, const float* w, float* y, int64_t taps, int64_t begin,
                int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    float part[Acc] = {};
    int64_t j = 0;
    for (; j + Acc <= taps; j += Acc)
      for (int a = 0; a < Acc; ++a) part[a] += w[j + a] * x[i + j + a];
    for (; j < taps; ++j) part[0] += w[j] * x[i + j];
    float sum = 0;
    for (int a = 0; a < Acc; ++a) sum += part[a];
    y[i] = sum;
  }
}

// The n - taps + 1 outputs of a signal of n samples and a filter of taps.
template <int Acc>
void conv(int64_t n, int64_t taps, int block, const float* x, const float* w, float* y) {
  const int64_t outputs = n - taps + 1;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < (outputs + block - 1) / block; ++b) {
    const int64_t begin = b * block, end = std::min(outputs, begin + block);
    conv_block<Acc>(x, w, y, taps, begin, end);
  }
}

}  // namespace ktune::kernels::conv1d
