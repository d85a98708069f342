// What tune and remember (ktune/remember.hpp) costs in the shipped CPU GEMM library
// (ktune_tuned_gemm_cpu), in one run on this machine, one CSV row per measurement:
//   steady: ns per ktune::gemm call of a small shape with tune-and-remember off, and on with the
//           answer remembered (one candidate, so the same config runs both ways: the difference
//           is the lookup), ns per plain selector call (tuned_gemm_choice_cpu) and per lookup;
//   first:  ms of the first call of a shape with an empty cache (its candidates timed within the
//           budget) beside the median of its later calls.
// Every shape is tuned (KTUNE_REMEMBER_SHAPES=all): the shipped selectors state no kUnsure rule.
//   remember_overhead [--cache DIR] [--budget-ms 100] [--candidates 3]
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
using ktune::Trans;

struct Operands {
  int64_t m, n, k;
  std::vector<float> a, b, c;
  Operands(int64_t m_, int64_t n_, int64_t k_)
      : m(m_), n(n_), k(k_), a(size_t(m_ * k_)), b(size_t(k_ * n_)), c(size_t(m_ * n_)) {
    std::mt19937 rng{7};
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& x : a) x = u(rng);
    for (auto& x : b) x = u(rng);
  }
  void gemm() {
    ktune::gemm(Trans::no, Trans::no, m, n, k, 1, a.data(), m, b.data(), k, 0, c.data(), m);
  }
};

using remember_overhead::fresh_cache;
using remember_overhead::ms_since;

// Median over 15 rounds of the ns per call of `calls` calls of f.
template <typename F>
double ns_per_call(F&& f, int calls) {
  return remember_overhead::per_call(
      f, [] {}, calls, 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const remember_overhead::Setup setup =
      remember_overhead::setup(argc, argv, "ktune-remember-overhead");
  ktune::RememberSettings settings = setup.settings;
  const std::string& dir = setup.dir;
  std::printf("measure,shape,value,unit,detail\n");

  // Steady state: a 16 x 16 x 16 GEMM, where a call's own time is smallest.
  Operands tiny(16, 16, 16);
  ktune::remember_disable();
  const int calls = 20000;
  std::printf("steady,16x16x16,%.1f,ns/call,remember off\n",
              ns_per_call([&] { tiny.gemm(); }, calls));
  ktune::RememberSettings one = settings;
  one.cache = fresh_cache(dir, "steady.sqlite");
  one.candidates = 1;  // the selector's pick only: the same config as with it off
  ktune::remember_enable(one);
  tiny.gemm();  // the first call remembers it
  std::printf("steady,16x16x16,%.1f,ns/call,remember on (answer remembered)\n",
              ns_per_call([&] { tiny.gemm(); }, calls));
  ktune::remember_disable();
  std::printf("steady,16x16x16,%.1f,ns/call,plain selector (tuned_gemm_choice_cpu)\n",
              ns_per_call(
                  [&] {
                    volatile int pick =
                        ktune::tuned_gemm_choice_cpu(Trans::no, Trans::no, 16, 16, 16, 1);
                    (void)pick;
                  },
                  calls * 10));

  // The lookup alone (what a remembered call adds to the selector), on a library of one config.
  ktune::remember_enable(one);
  static const char* const kOnly[] = {"only"};
  const ktune::remember::Library lookup_library{"overhead", "cpu", "lookup", 1, kOnly};
  ktune::remember::Shape shape;
  for (int64_t v : {0, 0, 16, 16, 16, 1}) shape.values[shape.count++] = v;
  const int only = 0;
  ktune::remember::choose(
      lookup_library, ktune::remember::host_device(), shape, [] { return std::string("x=1"); },
      &only, 1, [](int) {});
  std::printf("steady,16x16x16,%.1f,ns/call,the lookup alone (ktune::remember::remembered)\n",
              ns_per_call(
                  [&] {
                    volatile int pick = ktune::remember::remembered(
                        lookup_library, ktune::remember::host_device(), shape);
                    (void)pick;
                  },
                  calls * 10));
  ktune::remember_disable();

  // First calls: each shape's first call with an empty cache, then its steady median.
  settings.cache = fresh_cache(dir, "first.sqlite");
  ktune::remember_enable(settings);
  for (const auto& [m, n, k] : std::vector<std::array<int64_t, 3>>{
           {64, 64, 64}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {4096, 64, 512}}) {
    Operands p(m, n, k);
    const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    const auto start = Clock::now();
    p.gemm();
    const double first = ms_since(start);
    std::vector<double> later;
    for (int r = 0; r < 9; ++r) {
      const auto t0 = Clock::now();
      p.gemm();
      later.push_back(ms_since(t0));
    }
    const double steady = ktune::median_of_samples(later);
    std::printf("first,%s,%.3f,ms,budget %g ms; %d candidates\n", shape.c_str(), first,
                settings.budget_ms, settings.candidates);
    std::printf("later,%s,%.3f,ms,median of 9 calls\n", shape.c_str(), steady);
  }
  ktune::remember_disable();
  remember_overhead::finish(setup);
  return 0;
}
