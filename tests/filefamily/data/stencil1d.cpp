// Test kernel: a 3-point smoothing stencil over tiles of TILE outputs, UNROLL outputs per step.
// It accepts only power-of-two tiles (the static_assert), so TILE=24 fails to compile: the
// problem file's failed configs.
#include <algorithm>
#include <cstdint>

static_assert((TILE & (TILE - 1)) == 0, "TILE must be a power of two");

void stencil1d(const float* x, float* y, int32_t n) {
  y[0] = x[0];
  y[n - 1] = x[n - 1];
  for (int32_t t = 1; t < n - 1; t += TILE) {
    const int32_t end = std::min(t + TILE, n - 1);
    int32_t i = t;
    for (; i + UNROLL <= end; i += UNROLL)
      for (int u = 0; u < UNROLL; ++u)
        y[i + u] = 0.25f * x[i + u - 1] + 0.5f * x[i + u] + 0.25f * x[i + u + 1];
    for (; i < end; ++i) y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
  }
}
