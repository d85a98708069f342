// The check for dot.cpp (x-ktune.Reference): the same product in double. Inputs arrive with
// the kernel's types; outputs are written in double.
#include <cstdint>

void dot_reference(const float* x, const float* y, double* out, int32_t n) {
  double sum = 0;
  for (int32_t i = 0; i < n; ++i) sum += double(x[i]) * double(y[i]);
  out[0] = sum;
}
