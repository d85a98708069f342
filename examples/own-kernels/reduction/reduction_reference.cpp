// The check of reduction.cpp and reduction.cu (x-ktune.Reference): the sum in double.
#include <cstdint>

void reduction_reference(const float* x, double* out, int32_t n) {
  double sum = 0;
  for (int32_t i = 0; i < n; ++i) sum += double(x[i]);
  out[0] = sum;
}
