// Calls the deployed saxpy library (ktune_tuned::saxpy_gpu::saxpy_test, y = 2.5 x + y on device
// memory) on sizes inside and outside the measured workload and checks each y against float64
// on the host; a NaN size must be refused with std::invalid_argument.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "ktune_tuned/saxpy_gpu.hpp"

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// One call on n elements; true when every y matches 2.5 x + y (float64) within float rounding.
bool check(int n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const size_t count = static_cast<size_t>(n);
  std::vector<float> x(count), y(count), out(count);
  for (int i = 0; i < n; ++i) x[size_t(i)] = u(rng), y[size_t(i)] = u(rng);
  const size_t bytes = size_t(n) * sizeof(float);
  float *dx = nullptr, *dy = nullptr;
  bool good = ok(cudaMalloc(reinterpret_cast<void**>(&dx), bytes), "cudaMalloc") &&
              ok(cudaMalloc(reinterpret_cast<void**>(&dy), bytes), "cudaMalloc") &&
              ok(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice), "upload") &&
              ok(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice), "upload") &&
              ok(ktune_tuned::saxpy_gpu::saxpy_test(dx, dy, n), "launch") &&
              ok(cudaMemcpy(out.data(), dy, bytes, cudaMemcpyDeviceToHost), "download");
  cudaFree(dx);
  cudaFree(dy);
  if (!good) return false;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const double expected = 2.5 * double(x[size_t(i)]) + double(y[size_t(i)]);
    worst = std::fmax(worst, std::fabs(double(out[size_t(i)]) - expected));
  }
  const bool right = worst <= 1e-6;
  std::printf("n=%d: %s: largest |error| %.3g %s\n", n,
              ktune_tuned::saxpy_gpu::saxpy_test_config(n), worst, right ? "ok" : "WRONG");
  return right;
}

}  // namespace

int main() {
  std::mt19937 rng(11);
  int failures = 0;
  for (int n : {1000, 100003, 4096, 7, 3000017}) failures += check(n, rng) ? 0 : 1;
  try {
    (void)ktune_tuned::saxpy_gpu::saxpy_test(nullptr, nullptr, std::nan(""));
    std::printf("a NaN size was not refused\n");
    ++failures;
  } catch (const std::invalid_argument& e) {
    std::printf("refused: %s\n", e.what());
  }
  return failures == 0 ? 0 : 1;
}
