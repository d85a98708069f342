#pragma once
// Helpers of the bf16 conv2d_ex GPU tests: bf16 bits on the host (round to nearest even, as the
// kernels' stores) and typed copies to and from the device.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"

namespace ktune::test {

// bf16 bits of x, rounded to nearest even (NaN stays NaN).
inline uint16_t to_bf16(float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}
inline std::vector<uint16_t> to_bf16(const std::vector<float>& values) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) bits[i] = to_bf16(values[i]);
  return bits;
}
inline float widen(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
ktune::cuda::DeviceBuffer<T> upload(const std::vector<T>& host, const std::string& what) {
  ktune::cuda::DeviceBuffer<T> buffer(host.size(), what);
  ktune::cuda::check(cudaMemcpy(buffer.data(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice),
                     "cudaMemcpy(" + what + ")");
  return buffer;
}
template <typename T>
std::vector<T> download(const T* data, size_t count) {
  std::vector<T> host(count);
  ktune::cuda::check(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost),
                     "cudaMemcpy(download)");
  return host;
}
template <typename T>
std::vector<T> download(const ktune::cuda::DeviceBuffer<T>& buffer) {
  return download(buffer.data(), buffer.size());
}

}  // namespace ktune::test
