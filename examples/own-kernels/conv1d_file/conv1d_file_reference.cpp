// The check of conv1d_file.cpp: y[i] = sum_{j < taps} w[j] x[i + j] in double.
#include <cstdint>

void conv1d_reference(const float* x, const float* w, double* y, int64_t n, int64_t taps) {
  for (int64_t i = 0; i + taps <= n; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < taps; ++j) sum += double(w[j]) * double(x[i + j]);
    y[i] = sum;
  }
}
