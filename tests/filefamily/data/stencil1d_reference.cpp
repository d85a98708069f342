// The float64 check of stencil1d.cpp.
#include <cstdint>

void stencil1d_reference(const float* x, double* y, int32_t n) {
  y[0] = x[0];
  y[n - 1] = x[n - 1];
  for (int32_t i = 1; i < n - 1; ++i)
    y[i] = 0.25 * double(x[i - 1]) + 0.5 * double(x[i]) + 0.25 * double(x[i + 1]);
}
