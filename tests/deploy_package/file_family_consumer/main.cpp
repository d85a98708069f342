// Calls the deployed dot library (ktune_tuned::dot_demo::dot) on problem sizes inside and
// outside the measured workload, checks each product against a float64 one, and checks that a
// problem no shipped config can take (a non-finite size) is refused with std::invalid_argument.
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "ktune_tuned/dot_demo.hpp"

int main() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int failures = 0;
  for (int n : {1000, 4096, 65536, 77777, 3}) {
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) x[size_t(i)] = u(rng), y[size_t(i)] = u(rng);
    double expected = 0, magnitude = 0;
    for (int i = 0; i < n; ++i) {
      expected += double(x[size_t(i)]) * double(y[size_t(i)]);
      magnitude += std::fabs(double(x[size_t(i)]) * double(y[size_t(i)]));
    }
    float out = std::numeric_limits<float>::quiet_NaN();
    ktune_tuned::dot_demo::dot(x.data(), y.data(), &out, n);
    const char* config = ktune_tuned::dot_demo::dot_config(n);
    const bool ok = std::fabs(double(out) - expected) <= 1e-5 * magnitude + 1e-6;
    std::printf("n=%d: %s: %.6f (float64 %.6f) %s\n", n, config, double(out), expected,
                ok ? "ok" : "WRONG");
    failures += ok ? 0 : 1;
  }
  float out = 0;
  std::vector<float> x(4), y(4);
  try {
    ktune_tuned::dot_demo::dot(x.data(), y.data(), &out, std::nan(""));
    std::printf("a NaN size was not refused\n");
    ++failures;
  } catch (const std::invalid_argument& e) {
    std::printf("refused: %s\n", e.what());
  }
  return failures == 0 ? 0 : 1;
}
