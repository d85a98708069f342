#pragma once
// Runs of the CUDA tuned GEMM library for the tune-and-remember tests (test_remember_cuda.cpp and
// the worker processes): one call, by the library (config -1) or a direct call of one shipped
// config, on C with guard bytes around it, returning C's bytes with the guards.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "ktune/gemm.hpp"
#include "tests/gpu/gemm_ex_cases.hpp"
#include "tests/remember/remember_test_util.hpp"

namespace ktune::test {

inline constexpr unsigned char kGuardByte = 0xA5;

inline size_t c_element_bytes(ktune::GemmOutput output) {
  return output == ktune::GemmOutput::fp32 ? 4 : 2;
}

// C's initial bytes: NaN everywhere when beta == 0 (all-ones bytes: NaN in every C type), else
// the case's c_in (rounded to the 16-bit type with 16-bit C).
inline std::vector<unsigned char> initial_c(const DeviceCase& d, ktune::GemmOutput output,
                                            float beta) {
  const size_t es = c_element_bytes(output);
  std::vector<unsigned char> c(d.c_elements * es, 0xFF);
  if (beta == 0) return c;
  if (es == 4) {
    std::memcpy(c.data(), d.c_in.data(), c.size());
  } else {
    const auto bits = kg::to_input_bits(d.c_in, d.shape.precision);
    std::memcpy(c.data(), bits.data(), c.size());
  }
  return c;
}

// call(c) on the case's C at c (device memory, between kGuard guard bytes on each side, its
// initial bytes initial_c); returns those bytes after it, guards included, empty when call
// returned false (refused) or the device failed.
template <typename Call>
std::vector<unsigned char> bytes_after(const DeviceCase& d, ktune::GemmOutput output, float beta,
                                       Call&& call) {
  std::vector<unsigned char> c(kGuard, kGuardByte);
  const auto body = initial_c(d, output, beta);
  c.insert(c.end(), body.begin(), body.end());
  c.insert(c.end(), kGuard, kGuardByte);
  unsigned char* dc = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&dc), c.size()) != cudaSuccess) return {};
  cudaMemcpy(dc, c.data(), c.size(), cudaMemcpyHostToDevice);
  const bool ran = call(static_cast<void*>(dc + kGuard));
  const cudaError_t synced = cudaDeviceSynchronize();
  cudaMemcpy(c.data(), dc, c.size(), cudaMemcpyDeviceToHost);
  cudaFree(dc);
  if (!ran || synced != cudaSuccess) return {};
  return c;
}

// One call on the case: config -1 is the library (ktune::gemm_strided_batched for FP32, else
// ktune::gemm_ex), config >= 0 gemm_ex_config. C's bytes as bytes_after returns them.
inline std::vector<unsigned char> run_bytes(const DeviceCase& d, ktune::GemmPrecision q,
                                            ktune::GemmOutput output, int config, float alpha,
                                            float beta) {
  const kg::Shape& s = d.shape;
  return bytes_after(d, output, beta, [&](void* c) {
    if (q != ktune::GemmPrecision::fp32) return call_config(d, q, output, config, alpha, beta, c);
    // ktune::gemm's own entry: gemm_ex_config has no FP32.
    ktune::gemm_strided_batched(s.transa ? ktune::Trans::yes : ktune::Trans::no,
                                s.transb ? ktune::Trans::yes : ktune::Trans::no, s.m, s.n, s.k,
                                alpha, static_cast<const float*>(d.da), s.lda, s.stride_a(),
                                static_cast<const float*>(d.db), s.ldb, s.stride_b(), beta,
                                static_cast<float*>(c), s.ldc, s.stride_c(), s.batch, nullptr);
    return true;
  });
}

// C's values (floats) from run_bytes' output.
inline std::vector<float> c_values(const std::vector<unsigned char>& bytes,
                                   ktune::GemmOutput output, kg::Precision q) {
  const size_t es = c_element_bytes(output);
  const size_t count = (bytes.size() - 2 * kGuard) / es;
  if (es == 4) {
    std::vector<float> v(count);
    std::memcpy(v.data(), bytes.data() + kGuard, count * 4);
    return v;
  }
  std::vector<uint16_t> bits(count);
  std::memcpy(bits.data(), bytes.data() + kGuard, count * 2);
  return kg::from_input_bits(bits, q);
}

// FNV-1a of the bytes (the worker's answer per shape).
using ktune_test::fnv1a;  // tests/remember/remember_test_util.hpp

// The worker's shapes: bf16 with bf16 C, none square, so the selector is unsure of every one.
inline DeviceCase worker_case(int shape) {
  return make_case(kg::Precision::bf16, false, false, 72 + 8 * shape, 80, 64, 1, true, 1, 0, true);
}

}  // namespace ktune::test
