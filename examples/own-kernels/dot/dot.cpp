// A dot product of two float vectors, written for tuning: VEC products per step (the SIMD width
// the compiler may use), ACC independent accumulator groups (hiding the add latency), and ACC_T,
// the accumulator's type (float: faster; double: more accurate). The three arrive as -D defines
// (x-ktune.Parameters "defines") from examples/own-kernels/dot/dot.json.
#include <cstdint>

void dot(const float* x, const float* y, float* out, int32_t n) {
  ACC_T part[ACC][VEC] = {};
  int32_t i = 0;
  for (; i + VEC * ACC <= n; i += VEC * ACC)
    for (int a = 0; a < ACC; ++a)
      for (int v = 0; v < VEC; ++v)
        part[a][v] += ACC_T(x[i + a * VEC + v]) * ACC_T(y[i + a * VEC + v]);
  ACC_T sum = 0;
  for (int a = 0; a < ACC; ++a)
    for (int v = 0; v < VEC; ++v) sum += part[a][v];
  for (; i < n; ++i) sum += ACC_T(x[i]) * ACC_T(y[i]);
  out[0] = float(sum);
}
