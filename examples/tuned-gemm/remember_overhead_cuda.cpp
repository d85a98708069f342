// What tune and remember (ktune/remember.hpp) costs in the shipped CUDA GEMM library
// (ktune_tuned_gemm_cuda), one CSV row per measurement, per precision (fp32: ktune::gemm; tf32,
// bf16: ktune::gemm_ex with FP32 C):
//   steady: us per call of a 64 x 64 x 64 GEMM (host wall time of 2000 calls and one
//           synchronization, median of 15 rounds) with tune-and-remember off, and on with the
//           answer remembered (one candidate: the same config runs both ways, so the difference
//           is the lookup);
//   first:  ms of the first call of a ViT shape with an empty cache (its candidates timed on the
//           GPU within the budget, host wall time to the end of the call's work) beside the
//           median of its later calls measured the same way.
// Every shape is tuned (KTUNE_REMEMBER_SHAPES=all), whatever the shipped selectors are unsure of.
//   remember_overhead_cuda [--cache DIR] [--budget-ms 100] [--candidates 3]
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "examples/tuned-gemm/remember_overhead_common.hpp"
#include "ktune/gemm.hpp"
#include "ktune/remember.hpp"
#include "ktune/timing_loop.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using ktune::GemmPrecision;
using ktune::Trans;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

// Device operands of one m x n x k GEMM (A m x k, B k x n, both NN), random values in
// [-1, 1] in the precision's storage (floats, or bf16 bits).
struct Operands {
  GemmPrecision q;
  int64_t m, n, k;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  Operands(GemmPrecision q_, int64_t m_, int64_t n_, int64_t k_) : q(q_), m(m_), n(n_), k(k_) {
    const size_t in = q == GemmPrecision::bf16 ? 2 : 4;
    std::mt19937 rng{7};
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> values(size_t(std::max(m * k, k * n)));
    for (float& x : values) x = u(rng);
    std::vector<unsigned char> bytes(values.size() * in);
    for (size_t i = 0; i < values.size(); ++i)  // bf16: a float's upper half (truncated)
      std::memcpy(bytes.data() + i * in,
                  reinterpret_cast<const unsigned char*>(&values[i]) + (in == 2 ? 2 : 0), in);
    check(cudaMalloc(&a, size_t(m * k) * in), "cudaMalloc");
    check(cudaMalloc(&b, size_t(k * n) * in), "cudaMalloc");
    check(cudaMalloc(&c, size_t(m * n) * 4), "cudaMalloc");
    check(cudaMemcpy(a, bytes.data(), size_t(m * k) * in, cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(b, bytes.data(), size_t(k * n) * in, cudaMemcpyHostToDevice), "upload");
  }
  ~Operands() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  void gemm() {
    if (q == GemmPrecision::fp32)
      ktune::gemm(Trans::no, Trans::no, m, n, k, 1, static_cast<const float*>(a), m,
                  static_cast<const float*>(b), k, 0, static_cast<float*>(c), m, nullptr);
    else
      ktune::gemm_ex(q, Trans::no, Trans::no, m, n, k, 1, a, m, 0, b, k, 0, 0,
                     static_cast<float*>(c), m, 0, 1, nullptr);
  }
  // Host wall time of one call to the end of its work.
  double call_ms() {
    const auto t0 = Clock::now();
    gemm();
    check(cudaDeviceSynchronize(), "gemm");
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
};

// Median over 15 rounds of the us per call of `calls` calls (one synchronization a round).
double us_per_call(Operands& p, int calls) {
  return remember_overhead::per_call([&] { p.gemm(); },
                                     [] { check(cudaDeviceSynchronize(), "gemm"); }, calls, 1e3);
}

using remember_overhead::fresh_cache;

const char* name_of(GemmPrecision q) {
  return q == GemmPrecision::fp32 ? "fp32" : q == GemmPrecision::tf32 ? "tf32" : "bf16";
}

}  // namespace

int main(int argc, char** argv) {
  const remember_overhead::Setup setup =
      remember_overhead::setup(argc, argv, "ktune-remember-overhead-cuda");
  ktune::RememberSettings settings = setup.settings;
  const std::string& dir = setup.dir;
  check(cudaFree(nullptr), "CUDA context");  // starting CUDA is not the library's cost
  std::printf("measure,precision,shape,value,unit,detail\n");
  for (GemmPrecision q : {GemmPrecision::fp32, GemmPrecision::tf32, GemmPrecision::bf16}) {
    const char* prec = name_of(q);
    Operands tiny(q, 64, 64, 64);
    ktune::remember_disable();
    tiny.gemm();  // kernels and vendor handles loaded
    const int calls = 2000;
    std::printf("steady,%s,64x64x64,%.3f,us/call,remember off\n", prec, us_per_call(tiny, calls));
    ktune::RememberSettings one = settings;
    one.cache = fresh_cache(dir, std::string("steady-") + prec + ".sqlite");
    one.candidates = 1;  // the selector's pick only: the same config as with it off
    ktune::remember_enable(one);
    tiny.gemm();  // the first call remembers it
    std::printf("steady,%s,64x64x64,%.3f,us/call,remember on (answer remembered)\n", prec,
                us_per_call(tiny, calls));
    ktune::remember_disable();
    std::fflush(stdout);

    // First calls: ViT-B shapes (tokens 197 and 1576), each with an empty cache.
    settings.cache = fresh_cache(dir, std::string("first-") + prec + ".sqlite");
    ktune::remember_enable(settings);
    for (const auto& [m, n, k] : std::vector<std::array<int64_t, 3>>{
             {768, 197, 768}, {2304, 197, 768}, {3072, 1576, 768}, {768, 1576, 3072}}) {
      Operands p(q, m, n, k);
      const std::string shape =
          std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
      const double first = p.call_ms();
      std::vector<double> later;
      for (int r = 0; r < 9; ++r) later.push_back(p.call_ms());
      std::printf("first,%s,%s,%.3f,ms,budget %g ms; %d candidates\n", prec, shape.c_str(), first,
                  settings.budget_ms, settings.candidates);
      std::printf("later,%s,%s,%.3f,ms,median of 9 calls\n", prec, shape.c_str(),
                  ktune::median_of_samples(later));
      std::fflush(stdout);
    }
    ktune::remember_disable();
  }
  remember_overhead::finish(setup);
  return 0;
}
