// Test kernel with template parameters: writes VALUE everywhere, front to back or back to front.
// fill.json expects 3 (VALUE=4 is wrong) and refuses VALUE=5 by its LocalSize of 0.
#include <cstdint>

template <int VALUE, bool REVERSE>
void fill(float* out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[REVERSE ? n - 1 - i : i] = float(VALUE);
}
