// The float64 check of saxpy.cu: y arrives as the initial values, in double.
#include <cstdint>

void saxpy_reference(const float* x, double* y, float a, int32_t n) {
  for (int32_t i = 0; i < n; ++i) y[i] = double(a) * double(x[i]) + y[i];
}
