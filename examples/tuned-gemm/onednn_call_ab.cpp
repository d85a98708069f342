// The tuned library's oneDNN call (deploy/vendor_cpu.hpp: a primitive kept per shape and thread)
// against the deployed benchmark's oneDNN baseline (cpu::OnednnMatmul made once per shape), on
// the same arguments, in alternating order over several rounds, each after the benchmark's idle
// gap: whether the library's vendor call costs anything the baseline's does not (docs/deploy.md).
//   onednn_call_ab [TRANSA TRANSB M N K BATCH [ROUNDS]]   (default 0 0 64 197 197 16 6)
// Prints per round both GFLOP/s and the library / baseline speed ratio, then the median ratio and
// both calls' oneDNN implementations; exits 1 when they differ.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"
#include "kernels/gemm/deploy/vendor_cpu.hpp"

namespace gemm = ktune::kernels::gemm;

int main(int argc, char** argv) {
  if (argc != 1 && argc != 7 && argc != 8) {
    fmt::print(stderr, "usage: onednn_call_ab [TRANSA TRANSB M N K BATCH [ROUNDS]]\n");
    return 2;
  }
  gemm::Shape s;
  s.m = 64, s.n = 197, s.k = 197, s.batch = 16;
  int rounds = 6;
  if (argc >= 7) {
    s.transa = std::atoi(argv[1]) != 0, s.transb = std::atoi(argv[2]) != 0;
    s.m = std::atoll(argv[3]), s.n = std::atoll(argv[4]), s.k = std::atoll(argv[5]);
    s.batch = std::atoll(argv[6]);
  }
  if (argc == 8) rounds = std::atoi(argv[7]);
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.batch < 1 || rounds < 1) {
    fmt::print(stderr, "onednn_call_ab: sizes and rounds must be positive\n");
    return 2;
  }
  s.lda = s.transa ? s.k : s.m, s.ldb = s.transb ? s.n : s.k, s.ldc = s.m;
  constexpr int kCopies = 8, kReps = 30;  // rotated inputs, as the benchmark's
  std::vector<std::vector<float>> a, b, c;
  for (int i = 0; i < kCopies; ++i) {
    a.push_back(gemm::random_matrix(size_t(s.stride_a() * s.batch), 1));
    b.push_back(gemm::random_matrix(size_t(s.stride_b() * s.batch), 2));
    c.emplace_back(size_t(s.stride_c() * s.batch));
  }
  auto args = [&](int i) {
    gemm::cpu::Args g = gemm::cpu::shape_args(s);
    g.a = a[size_t(i)].data(), g.b = b[size_t(i)].data(), g.c = c[size_t(i)].data();
    return g;
  };
  gemm::cpu::OnednnMatmul baseline(args(0));
  auto median_ms = [&](auto&& run) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(gemm::cpu::kSettleMs));
    run(args(0));  // warm-up (the library's first call builds its primitive)
    std::vector<double> ms;
    for (int r = 0; r < kReps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      run(args(r % kCopies));
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + kReps / 2, ms.end());
    return ms[kReps / 2];
  };
  auto library = [](const gemm::cpu::Args& g) { gemm::deploy::onednn_gemm_cached(g); };
  auto bench = [&](const gemm::cpu::Args& g) { baseline.run(g); };
  const double gflop = s.flops() * 1e-9;
  std::vector<double> ratios;
  for (int round = 0; round < rounds; ++round) {
    const bool library_first = round % 2 == 1;
    const double first = library_first ? median_ms(library) : median_ms(bench);
    const double second = library_first ? median_ms(bench) : median_ms(library);
    const double lib = library_first ? first : second, base = library_first ? second : first;
    ratios.push_back(base / lib);
    fmt::print("round {} ({} first): library {:.1f} GFLOP/s, baseline {:.1f} GFLOP/s, {:.3f}\n",
               round, library_first ? "library" : "baseline", gflop / lib * 1e3, gflop / base * 1e3,
               base / lib);
  }
  std::sort(ratios.begin(), ratios.end());
  // The implementations both calls dispatched: one pd for one set of descriptors.
  const std::string lib_impl = gemm::deploy::onednn_matmul_cached(args(0)).pd.impl_info_str();
  fmt::print("median library / baseline speed {:.3f} over {} rounds (library {}, baseline {})\n",
             ratios[ratios.size() / 2], rounds, lib_impl, baseline.pd.impl_info_str());
  return lib_impl == baseline.pd.impl_info_str() ? 0 : 1;
}
