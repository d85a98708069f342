#pragma once
// The deployed conv1d API: what a tuned library of the conv1d example family defines
// (ktune_add_tuned_library(<t> FAMILY conv1d BACKENDS cpu SELECTOR <header>), or a package
// written by `ktune deploy --family conv1d`). Self-contained; host pointers.
#include <cstdint>
#include <stdexcept>

namespace ktune {

class Conv1dError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// y[i] = sum_{j < taps} w[j] * x[i + j] for i < n - taps + 1 (a "valid" convolution, float32)
// with the config the library's selector picks for (n, taps). A bad argument (taps < 1,
// n < taps, a null pointer) throws Conv1dError naming it before anything is written.
void conv1d(int64_t n, int64_t taps, const float* x, const float* w, float* y);

struct TunedConv1dInfo {
  const char* backend;         // "cpu"
  int num_configs;             // K
  const char* const* configs;  // the K config strings, as in the selector header
  int baseline;                // index served when the selector cannot decide
};
const TunedConv1dInfo& tuned_conv1d_info_cpu();
int tuned_conv1d_choice_cpu(int64_t n, int64_t taps);  // index into configs

}  // namespace ktune
