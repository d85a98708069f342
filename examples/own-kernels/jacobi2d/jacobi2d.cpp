// One sweep of the 2D 5-point Jacobi stencil (the explicit step of the heat equation, the
// stencil of Datta et al., "Stencil Computation Optimization and Auto-tuning on State-of-the-Art
// Multicore Architectures", SC 2008), written afresh: inside an ny x nx row-major grid,
// out = (north + south + west + east) / 4; the border is copied. Cache blocking visits the
// interior in tiles of TILE_Y rows by TILE_X columns. Parameters arrive as -D defines.
#include <cstdint>

void jacobi2d(const float* in, float* out, int32_t nx, int32_t ny) {
  for (int32_t j = 0; j < nx; ++j) {
    out[j] = in[j];
    out[(ny - 1) * nx + j] = in[(ny - 1) * nx + j];
  }
  for (int32_t i = 0; i < ny; ++i) {
    out[i * nx] = in[i * nx];
    out[i * nx + nx - 1] = in[i * nx + nx - 1];
  }
  for (int32_t i0 = 1; i0 < ny - 1; i0 += TILE_Y)
    for (int32_t j0 = 1; j0 < nx - 1; j0 += TILE_X) {
      const int32_t i1 = i0 + TILE_Y < ny - 1 ? i0 + TILE_Y : ny - 1;
      const int32_t j1 = j0 + TILE_X < nx - 1 ? j0 + TILE_X : nx - 1;
      for (int32_t i = i0; i < i1; ++i)
        for (int32_t j = j0; j < j1; ++j) {
          const int32_t k = i * nx + j;
          out[k] = 0.25f * (in[k - nx] + in[k + nx] + in[k - 1] + in[k + 1]);
        }
    }
}
