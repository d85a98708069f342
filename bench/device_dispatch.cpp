// Dispatch cost of a multi-device selector (docs/deploy.md, "Several devices in one library"):
// its select() after the first call (the device chosen once, cached) against the same device's
// single-device select() called directly, and what the first call adds (identifying this CPU and
// choosing the nearest measured device; the one stderr line left out). The header is the test
// library's two-device selector (tests/deploy_multidevice/two-devices-k2.hpp).
//
//   device_dispatch [benchmark flags]
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "ktune/tuned_device.hpp"

namespace two_devices {
#include "tests/deploy_multidevice/two-devices-k2.hpp"
}  // namespace two_devices

namespace {

namespace sel = two_devices::ktune_selector;

// Sizes rotate so that successive calls take both branches of the trees.
const std::array<long long, 8> kSizes = {64, 3072, 96, 2048, 128, 1536, 192, 1024};

void BM_MultiDeviceSelect(benchmark::State& state) {
  benchmark::DoNotOptimize(sel::device_index());  // the first call (and its log line) first
  size_t i = 0;
  for (auto _ : state) {
    const long long s = kSizes[i++ % kSizes.size()];
    benchmark::DoNotOptimize(sel::select(0, 0, s, s, s, 1));
  }
}
BENCHMARK(BM_MultiDeviceSelect);

void BM_OneDeviceSelect(benchmark::State& state) {
  size_t i = 0;
  for (auto _ : state) {
    const long long s = kSizes[i++ % kSizes.size()];
    benchmark::DoNotOptimize(sel::device_0::select(0, 0, s, s, s, 1));
  }
}
BENCHMARK(BM_OneDeviceSelect);

void BM_FirstCallChoice(benchmark::State& state) {
  std::vector<ktune::tuned_device::Device> measured;
  for (const char* record : sel::kDeviceRecords)
    measured.push_back(ktune::tuned_device::parse_record(record));
  for (auto _ : state) {
    ktune::TunedDeviceChoice choice;
    benchmark::DoNotOptimize(
        ktune::tuned_device::choose(ktune::tuned_device::detect_cpu(), measured, choice));
  }
}
BENCHMARK(BM_FirstCallChoice);

}  // namespace

BENCHMARK_MAIN();
