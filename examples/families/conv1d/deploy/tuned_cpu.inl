// CPU half of a tuned conv1d library (ktune_add_tuned_library ... FAMILY conv1d BACKENDS cpu).
// Included by the generated source after the selector header, with the namespace alias
// ktune_tuned_selector naming the header's namespace. Each shipped config string
// ("block=256;acc=4") is parsed at compile time into the template argument and block size of
// the kernel the sweep measured (cpu/conv1d_cpu_kernel.hpp), so the library holds exactly the K
// configs' instantiations and needs nothing of ktune but these headers.
#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "../cpu/conv1d_cpu_kernel.hpp"
#include "ktune/conv1d.hpp"

namespace {

namespace sel = ktune_tuned_selector;
namespace kernel = ktune::kernels::conv1d;
using RunFn = void (*)(int64_t, int64_t, const float*, const float*, float*);

// The whole number after "<key>=" in a config string, or -1 when the key is absent.
constexpr long long param(const char* text, const char* key) {
  for (const char* p = text; *p; ++p) {
    if (p != text && p[-1] != ';') continue;
    const char* k = key;
    const char* q = p;
    while (*k && *q == *k) ++k, ++q;
    if (*k || *q != '=') continue;
    long long v = 0;
    for (++q; *q >= '0' && *q <= '9'; ++q) v = 10 * v + (*q - '0');
    return v;
  }
  return -1;
}

template <size_t I>
void run_config(int64_t n, int64_t taps, const float* x, const float* w, float* y) {
  constexpr long long block = param(sel::kConfigs[I], "block");
  constexpr long long acc = param(sel::kConfigs[I], "acc");
  static_assert(block > 0 && (acc == 1 || acc == 2 || acc == 4 || acc == 8),
                "a config of the selector header is not a conv1d config");
  kernel::conv<int(acc)>(n, taps, int(block), x, w, y);
}

template <size_t... I>
constexpr std::array<RunFn, sizeof...(I)> make_runners(std::index_sequence<I...>) {
  return {{&run_config<I>...}};
}
constexpr auto kRunners = make_runners(std::make_index_sequence<size_t(sel::kNumConfigs)>{});

void check(bool ok, const std::string& what) {
  if (!ok) throw ktune::Conv1dError("ktune::conv1d: " + what);
}

}  // namespace

namespace ktune {

void conv1d(int64_t n, int64_t taps, const float* x, const float* w, float* y) {
  check(taps >= 1, "taps " + std::to_string(taps) + " must be at least 1");
  check(n >= taps, "n " + std::to_string(n) + " must be at least taps " + std::to_string(taps));
  check(x && w && y, "x, w and y must not be null");
  kRunners[size_t(sel::select(n, taps))](n, taps, x, w, y);
}

const TunedConv1dInfo& tuned_conv1d_info_cpu() {
  static const TunedConv1dInfo info{"cpu", sel::kNumConfigs, sel::kConfigs, sel::kBaseline};
  return info;
}

int tuned_conv1d_choice_cpu(int64_t n, int64_t taps) { return sel::select(n, taps); }

}  // namespace ktune
