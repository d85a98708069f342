// Test kernel for Generator fills (generated.json): out = SCALE * a + b, where the file fills
// a[i] = i % 7 and b[i] = 3 i and expects 2 (i % 7) + 3 i, so SCALE=2 is right, SCALE=3 wrong.
#include <cstdint>

void scale_add(const float* a, const int32_t* b, float* out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = float(SCALE) * a[i] + float(b[i]);
}
