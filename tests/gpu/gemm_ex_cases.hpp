#pragma once
// One ktune::gemm_ex case on the GPU for the tests of the tensor-core precisions (tests/gpu,
// tests/gpu_vendor_tc): inputs in the precision's storage, the float64 reference of the inputs
// as the device holds them, and a run of one config (or the selector) on a NaN-poisoned C with
// guards around it; C in FP32 or (c16) in the inputs' 16-bit type.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "ktune/gemm.hpp"

namespace ktune::test {

namespace kg = ktune::kernels::gemm;

// Inputs of one case in the precision's storage (16-bit bits or floats) on the device.
struct DeviceCase {
  kg::Shape shape;
  std::vector<float> a, b, c_in;
  std::vector<double> reference;
  void *da = nullptr, *db = nullptr;
  float* dc = nullptr;
  size_t c_elements = 0;
};

inline constexpr size_t kGuard = 64;

inline void upload_operand(const std::vector<float>& values, kg::Precision q, void** device) {
  const auto bits = kg::to_input_bits(values, q);
  const size_t bytes = bits.empty() ? values.size() * 4 : bits.size() * 2;
  ASSERT_EQ(cudaMalloc(device, std::max<size_t>(bytes, 16)), cudaSuccess);
  cudaMemcpy(*device, bits.empty() ? static_cast<const void*>(values.data()) : bits.data(), bytes,
             cudaMemcpyHostToDevice);
}

// c16: C is stored in q's 16-bit type, so the reference reads the old C rounded to it (c_in holds
// those rounded values: what the device holds).
inline DeviceCase make_case(kg::Precision q, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                            int64_t batch, bool aligned, float alpha, float beta,
                            bool c16 = false) {
  DeviceCase d;
  kg::Shape& s = d.shape;
  s.transa = ta, s.transb = tb, s.m = m, s.n = n, s.k = k, s.batch = batch, s.precision = q;
  // Padded leading dimensions: on the 16-byte grid TMA needs (a multiple of 8 elements), or odd.
  auto ld = [&](int64_t rows) { return aligned ? (rows + 8) / 8 * 8 : rows + 1; };
  s.lda = ld(ta ? k : m), s.ldb = ld(tb ? n : k), s.ldc = m + 1;
  d.a = kg::random_matrix(size_t(s.stride_a() * batch), 5);
  d.b = kg::random_matrix(size_t(s.stride_b() * batch), 6);
  d.c_elements = size_t(s.stride_c() * batch);
  d.c_in = kg::random_matrix(d.c_elements, 7);
  if (c16)
    for (float& x : d.c_in) x = kg::round_input(x, q);
  // The reference sees the inputs as the device holds them (rounded to 16 bits); tf32 rounds
  // inside the MMA, which the bound's input term covers.
  std::vector<float> a = d.a, b = d.b;
  if (q != kg::Precision::tf32) {
    for (float& x : a) x = kg::round_input(x, q);
    for (float& x : b) x = kg::round_input(x, q);
  }
  d.reference = kg::reference_gemm(s, a.data(), b.data(), alpha, beta, d.c_in.data());
  upload_operand(d.a, q, &d.da);
  upload_operand(d.b, q, &d.db);
  return d;
}

// One call of config (or the selector: gemm_ex, when config < 0) of the selector serving
// (q, output) on the case's A and B, with C at c (device memory); false when the config refused.
inline bool call_config(const DeviceCase& d, ktune::GemmPrecision q, ktune::GemmOutput output,
                        int config, float alpha, float beta, void* c) {
  const kg::Shape& s = d.shape;
  const ktune::Trans ta = s.transa ? ktune::Trans::yes : ktune::Trans::no,
                     tb = s.transb ? ktune::Trans::yes : ktune::Trans::no;
  if (config >= 0)
    return ktune::gemm_ex_config(config, q, output, ta, tb, s.m, s.n, s.k, alpha, d.da, s.lda,
                                 s.stride_a(), d.db, s.ldb, s.stride_b(), beta, c, s.ldc,
                                 s.stride_c(), s.batch, nullptr);
  ktune::gemm_ex(q, output, ta, tb, s.m, s.n, s.k, alpha, d.da, s.lda, s.stride_a(), d.db, s.ldb,
                 s.stride_b(), beta, c, s.ldc, s.stride_c(), s.batch, nullptr);
  return true;
}

// One run of config (or the selector when config < 0) with C in the 16-bit type of q (output bf16
// or fp16), C NaN-poisoned when beta == 0, guards around it; returns C's values, empty when the
// config refused the problem.
inline std::vector<float> run_16bit_c(const DeviceCase& d, ktune::GemmPrecision q,
                                      ktune::GemmOutput output, int config, float alpha, float beta,
                                      std::string& guard_failure) {
  const auto kq = kg::Precision(int(q));
  constexpr uint16_t kGuardBits = 0xBEEF;
  const uint16_t nan_bits = kq == kg::Precision::bf16 ? 0x7FC0 : 0x7E00;
  const std::vector<uint16_t> old = kg::to_input_bits(d.c_in, kq);
  std::vector<uint16_t> c(d.c_elements + 2 * kGuard, kGuardBits);
  for (size_t i = 0; i < d.c_elements; ++i) c[kGuard + i] = beta == 0 ? nan_bits : old[i];
  uint16_t* dc = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * 2) != cudaSuccess) return {};
  cudaMemcpy(dc, c.data(), c.size() * 2, cudaMemcpyHostToDevice);
  const bool ran = call_config(d, q, output, config, alpha, beta, dc + kGuard);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost);
  cudaFree(dc);
  if (!ran) return {};
  for (size_t i = 0; i < kGuard; ++i)
    if (c[i] != kGuardBits || c[c.size() - 1 - i] != kGuardBits) guard_failure = "write outside C";
  return kg::from_input_bits(
      std::vector<uint16_t>(c.begin() + long(kGuard), c.end() - long(kGuard)), kq);
}

// Runs config (or the selector when config < 0) on a fresh C (NaN-poisoned when beta == 0,
// guards around it), C of floats or (output bf16 / fp16) of q's 16-bit type; returns the
// relative error, -1 when the config refused the problem.
inline double run_case(const DeviceCase& d, ktune::GemmPrecision q, int config, float alpha,
                       float beta, std::string& guard_failure,
                       ktune::GemmOutput output = ktune::GemmOutput::fp32) {
  if (output != ktune::GemmOutput::fp32) {
    const std::vector<float> c = run_16bit_c(d, q, output, config, alpha, beta, guard_failure);
    return c.empty() ? -1 : kg::relative_error(d.shape, c.data(), d.reference);
  }
  const kg::Shape& s = d.shape;
  std::vector<float> c(d.c_elements + 2 * kGuard, -777.0f);
  for (size_t i = 0; i < d.c_elements; ++i)
    c[kGuard + i] = beta == 0 ? std::numeric_limits<float>::quiet_NaN() : d.c_in[i];
  float* dc = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * 4) != cudaSuccess) return 1e9;
  cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
  const bool ran = call_config(d, q, ktune::GemmOutput::fp32, config, alpha, beta, dc + kGuard);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
  cudaFree(dc);
  if (!ran) return -1;
  for (size_t i = 0; i < kGuard; ++i)
    if (c[i] != -777.0f || c[c.size() - 1 - i] != -777.0f) guard_failure = "write outside C";
  return kg::relative_error(s, c.data() + kGuard, d.reference);
}

inline void free_case(DeviceCase& d) {
  cudaFree(d.da);
  cudaFree(d.db);
}

// A shape for check_shipped: aligned = leading dimensions on the 16-byte grid; false: odd ones.
struct ShippedCase {
  int64_t m, n, k, batch;
  float alpha, beta;
  bool aligned;
};

// Runs the shipped configs of the selector serving (q, output) (when `configs`: those of
// tuned_gemm_ex_info_cuda(q, output), the 16-bit-C selector's where the library ships one) and the
// selector (config -1, when
// `selector`) on c in the four transpose pairs against the float64 reference: each within the
// precision's bound, nothing written outside C, none refused where c is aligned (on odd leading
// dimensions a config may refuse, the selector's fallback serves them) except cuBLASLt's answers
// past the first ("vendor=cublaslt;heuristic=<i>"): the heuristic offers #i for some problems
// only, and the library refuses it elsewhere. Returns the name of every config that ran ("the
// selector" for it), once a run. output: C's type (bf16 / fp16: q's 16-bit type, bound
// error_bound_16bit_output).
inline std::vector<std::string> check_shipped(ktune::GemmPrecision q, const ShippedCase& c,
                                              bool configs, bool selector,
                                              ktune::GemmOutput output = ktune::GemmOutput::fp32) {
  const bool c16 = output != ktune::GemmOutput::fp32;
  const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(q, output);
  const auto kq = kg::Precision(int(q));
  std::vector<std::string> ran;
  for (int t = 0; t < 4; ++t) {
    DeviceCase d =
        make_case(kq, t & 1, t & 2, c.m, c.n, c.k, c.batch, c.aligned, c.alpha, c.beta, c16);
    for (int config = selector ? -1 : 0; config < (configs ? info.num_configs : 0); ++config) {
      const std::string name = config < 0 ? "the selector" : info.configs[config];
      std::string guard;
      const double error = run_case(d, q, config, c.alpha, c.beta, guard, output);
      const std::string what = name + " t=" + std::to_string(t) + " m=" + std::to_string(c.m);
      const bool may_be_unoffered = name.rfind("vendor=cublaslt;heuristic=", 0) == 0;
      if ((c.aligned && !may_be_unoffered) || config < 0) {
        EXPECT_GE(error, 0) << what << ": refused";
      }
      EXPECT_LE(error, c16 ? kg::error_bound_16bit_output(c.k, kq) : kg::error_bound(c.k, kq))
          << what;
      EXPECT_EQ(guard, "") << what;
      if (error >= 0) ran.push_back(name);
    }
    free_case(d);
  }
  return ran;
}

}  // namespace ktune::test
