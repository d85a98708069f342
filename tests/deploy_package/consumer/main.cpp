// Calls the deployed conv1d library on shapes of several sizes, checks every output against a
// float64 reference, and prints what the library ships and picks. Exit status 1 on a mismatch.
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "ktune/conv1d.hpp"

int main() {
  const auto& info = ktune::tuned_conv1d_info_cpu();
  std::printf("ships %d configs:", info.num_configs);
  for (int i = 0; i < info.num_configs; ++i) std::printf(" %s", info.configs[i]);
  std::printf("\n");
  int bad = 0;
  for (const auto& [n, taps] : {std::pair<long, long>{5, 5}, {37, 5}, {1000, 31}, {4096, 7}}) {
    const auto outputs = static_cast<size_t>(n - taps + 1);
    std::vector<float> x(static_cast<size_t>(n)), w(static_cast<size_t>(taps)), y(outputs, NAN);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(0.1 * double(i)));
    for (size_t j = 0; j < w.size(); ++j) w[j] = float(1.0 / double(j + 1));
    ktune::conv1d(n, taps, x.data(), w.data(), y.data());
    double worst = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      double ref = 0;
      for (size_t j = 0; j < w.size(); ++j) ref += double(w[j]) * double(x[i + j]);
      worst = std::fmax(worst, std::fabs(double(y[i]) - ref));
      if (!(std::fabs(double(y[i]) - ref) <= 1e-4)) ++bad;
    }
    std::printf("n=%ld taps=%ld: picks %s, max error %.2e\n", n, taps,
                info.configs[ktune::tuned_conv1d_choice_cpu(n, taps)], worst);
  }
  try {
    ktune::conv1d(3, 5, nullptr, nullptr, nullptr);
    std::printf("no error for n < taps\n");
    ++bad;
  } catch (const ktune::Conv1dError& e) {
    std::printf("refused: %s\n", e.what());
  }
  std::printf("%s\n", bad ? "FAILED" : "all outputs match the reference");
  return bad ? 1 : 0;
}
