#pragma once
// Helpers of the bf16 conv2d_ex GPU tests: bf16 bits on the host (round to nearest even, as the
// kernels' stores) and typed copies to and from the device.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"

namespace ktune::test {

// bf16 bits of x rounded to nearest even, and their value: the shared input rounding
// (kernels/common/gemm_reference.hpp), as the kernels' stores round.
inline uint16_t to_bf16(float x) {
  return ktune::kernels::gemm::input_bits(x, ktune::kernels::gemm::Precision::bf16);
}
inline std::vector<uint16_t> to_bf16(const std::vector<float>& values) {
  return ktune::kernels::gemm::to_input_bits(values, ktune::kernels::gemm::Precision::bf16);
}
inline float widen(uint16_t b) {
  return ktune::kernels::gemm::input_value(b, ktune::kernels::gemm::Precision::bf16);
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
