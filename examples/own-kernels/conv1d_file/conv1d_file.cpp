// The built-in conv1d example family (examples/families/conv1d) re-expressed as a file family,
// to cross-check the two paths: this unit calls the very kernel header the built-in sweep and its
// tuned library use, with the config's block and acc as template arguments (x-ktune.Parameters
// "template": as -D defines, the lower-case names would rewrite the header's own identifiers).
#include <cstdint>

#include "../../families/conv1d/cpu/conv1d_cpu_kernel.hpp"

template <int block, int acc>
void conv1d_file(const float* x, const float* w, float* y, int64_t n, int64_t taps) {
  ktune::kernels::conv1d::conv<acc>(n, taps, block, x, w, y);
}
