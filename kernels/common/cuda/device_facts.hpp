// The current device's compute capability and SM count, asked of the runtime once per device and
// process. The wgmma launchers need them on every call (the kind runs on compute capability 9.0
// only; a persistent grid has one block an SM), and each cudaDeviceGetAttribute costs about 80 ns
// on the host (results/h200/host-call-cost): three a call was a quarter of a microsecond.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace ktune::kernels::cuda_device {

struct Facts {
  int major = 0, minor = 0, sms = 0;
};

namespace detail {
// Per device ordinal: 0 until known, else major << 48 | minor << 32 | sms | 1 << 62 (set, so that
// a known value is never 0). Devices past the table are asked every time.
inline std::array<std::atomic<std::uint64_t>, 64>& known() {
  static std::array<std::atomic<std::uint64_t>, 64> table{};
  return table;
}
}  // namespace detail

// The facts of the calling thread's current device; a runtime error is returned as it came (and
// nothing is remembered).
inline cudaError_t current(Facts& facts) {
  int device = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess) return error;
  auto& table = detail::known();
  const bool cached = device >= 0 && device < int(table.size());
  if (cached) {
    const std::uint64_t v = table[size_t(device)].load(std::memory_order_relaxed);
    if (v != 0) {
      facts = {int((v >> 48) & 0xFF), int((v >> 32) & 0xFF), int(v & 0xFFFFFFFFu)};
      return cudaSuccess;
    }
  }
  Facts f;
  error = cudaDeviceGetAttribute(&f.major, cudaDevAttrComputeCapabilityMajor, device);
  if (error == cudaSuccess)
    error = cudaDeviceGetAttribute(&f.minor, cudaDevAttrComputeCapabilityMinor, device);
  if (error == cudaSuccess)
    error = cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, device);
  if (error != cudaSuccess) return error;
  if (cached)  // racing threads store the same value
    table[size_t(device)].store(std::uint64_t(1) << 62 | std::uint64_t(f.major & 0xFF) << 48 |
                                    std::uint64_t(f.minor & 0xFF) << 32 | std::uint32_t(f.sms),
                                std::memory_order_relaxed);
  facts = f;
  return cudaSuccess;
}

}  // namespace ktune::kernels::cuda_device
