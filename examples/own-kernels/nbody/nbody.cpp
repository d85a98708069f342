// The all-pairs gravitational acceleration of n bodies, written afresh after L. Nyland, M.
// Harris, J. Prins, "Fast N-Body Simulation with CUDA" (GPU Gems 3, ch. 31), for the CPU:
//   acc_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2)
// pos holds x, y, z, mass per body (float4 in the problem file); acc gets x, y, z and 0. The
// sources are visited in tiles of TILE bodies (the paper's tiles, here for the cache), each
// body's sum over a tile kept in LANES independent partial sums. Parameters are -D defines.
#include <cmath>
#include <cstdint>

void nbody(const float* pos, float* acc, float eps2, int32_t n) {
  for (int32_t i = 0; i < 4 * n; ++i) acc[i] = 0;
  for (int32_t j0 = 0; j0 < n; j0 += TILE) {
    const int32_t j1 = j0 + TILE < n ? j0 + TILE : n;
    for (int32_t i = 0; i < n; ++i) {
      const float xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
      float ax[LANES] = {}, ay[LANES] = {}, az[LANES] = {};
      int32_t j = j0;
      auto add = [&](int lane, int32_t s) {
        const float dx = pos[4 * s] - xi, dy = pos[4 * s + 1] - yi, dz = pos[4 * s + 2] - zi;
        const float inv = 1.0f / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
        const float f = pos[4 * s + 3] * inv * inv * inv;
        ax[lane] += f * dx, ay[lane] += f * dy, az[lane] += f * dz;
      };
      for (; j + LANES <= j1; j += LANES)
        for (int l = 0; l < LANES; ++l) add(l, j + l);
      for (; j < j1; ++j) add(0, j);
      for (int l = 0; l < LANES; ++l)
        acc[4 * i] += ax[l], acc[4 * i + 1] += ay[l], acc[4 * i + 2] += az[l];
    }
  }
}
