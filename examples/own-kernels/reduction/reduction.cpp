// A parallel sum reduction, written afresh after M. Harris, "Optimizing Parallel Reduction in
// CUDA" (NVIDIA, 2007), for the CPU: THREADS OpenMP threads each sum a contiguous share of the
// input with UNROLL independent float accumulators (the sequential-addressing, several-elements-
// per-thread steps of the paper), then the partial sums are added. Parameters arrive as -D
// defines from reduction.json.
#include <cstdint>

void reduction(const float* x, float* out, int32_t n) {
  float total = 0;
#pragma omp parallel num_threads(THREADS) reduction(+ : total)
  {
    float acc[UNROLL] = {};
#pragma omp for schedule(static)
    for (int32_t i = 0; i < n / UNROLL; ++i)
      for (int u = 0; u < UNROLL; ++u) acc[u] += x[i * UNROLL + u];
    for (int u = 0; u < UNROLL; ++u) total += acc[u];
  }
  for (int32_t i = n / UNROLL * UNROLL; i < n; ++i) total += x[i];
  out[0] = total;
}
