#pragma once
// A deployed library of three fake configs for the tune-and-remember runtime's tests (the test
// program and the worker processes): running config i busy-waits the microseconds a test gives.
#include <chrono>
#include <functional>
#include <string>

#include "ktune/remember.hpp"

namespace ktune_test {

inline constexpr const char* kFakeConfigs[] = {"c=0", "c=1", "c=2"};
inline const ktune::remember::Library kFakeLibrary{"fake", "cpu", "test-v1", 3, kFakeConfigs};
inline const std::string kFakeDevice = "test device";

inline void busy_wait_us(double us) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// The config served for shape s, candidates {0, 1, 2} (0: the selector's answer); each run of
// config i costs cost_us(i) and adds one to *runs.
inline int fake_choose(int64_t s, const std::function<double(int)>& cost_us, int* runs) {
  ktune::remember::Shape shape;
  shape.values[shape.count++] = s;
  const int candidates[] = {0, 1, 2};
  return ktune::remember::choose(
      kFakeLibrary, kFakeDevice, shape, [&] { return "s=" + std::to_string(s); }, candidates, 3,
      [&](int config) {
        ++*runs;
        busy_wait_us(cost_us(config));
      });
}

}  // namespace ktune_test
