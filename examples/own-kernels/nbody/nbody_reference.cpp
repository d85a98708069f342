// The check of nbody.cpp and nbody.cu (x-ktune.Reference): the same sums in double.
#include <cmath>
#include <cstdint>

void nbody_reference(const float* pos, double* acc, float eps2, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    double a[3] = {0, 0, 0};
    for (int32_t j = 0; j < n; ++j) {
      const double d[3] = {double(pos[4 * j]) - pos[4 * i], double(pos[4 * j + 1]) - pos[4 * i + 1],
                           double(pos[4 * j + 2]) - pos[4 * i + 2]};
      const double inv = 1.0 / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + double(eps2));
      for (int c = 0; c < 3; ++c) a[c] += double(pos[4 * j + 3]) * inv * inv * inv * d[c];
    }
    for (int c = 0; c < 3; ++c) acc[4 * i + c] = a[c];
    acc[4 * i + 3] = 0;
  }
}
