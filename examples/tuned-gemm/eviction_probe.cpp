// What the host protocol's cache eviction leaves behind for the next timed call (issue #26):
//   eviction_probe [task_ms]   (OMP_NUM_THREADS=2 on the 2-core guest)
// (1) A job of 8 tasks of task_ms on the packed GEMM's pool (2 threads), right after an eviction
// of 8 MiB by an OpenMP `parallel for` (the protocol's former loop, copied here) or by
// ktune::evict_host_caches (short-lived pinned threads): its median time and how often the caller
// ran every task (the pool's helper never got a CPU). (2) The other direction: an OpenMP job of
// the same size right after a pool job (whose helper spins up to 2 ms), with nothing, an 8 MiB
// or a 64 MiB (2x LLC: the protocol's cold read) eviction between, and after a 250 ms idle gap.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_pool.hpp"
#include "ktune/host_measure.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kMiB = 1024.0 * 1024;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void busy(double ms) {
  const auto t0 = Clock::now();
  while (ms_since(t0) < ms) {
  }
}

// The protocol's eviction before this change: an OpenMP loop, whose worker then spins.
void evict_openmp(double bytes) {
  static std::vector<char> ring(size_t(64 * kMiB), 1);
  static volatile unsigned long sink;
  unsigned long sum = 0;
  const long lines = long(std::min(bytes, double(ring.size())) / 64);
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (long i = 0; i < lines; ++i) sum += static_cast<unsigned char>(ring[size_t(i) * 64]);
  sink = sink + sum;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// 8 tasks on the pool, 2 threads; sets caller_only when the caller ran all of them.
double pool_job(double task_ms, bool& caller_only) {
  const auto self = std::this_thread::get_id();
  int on_caller = 0;  // only the caller writes it
  auto task = [&](int64_t) {
    if (std::this_thread::get_id() == self) ++on_caller;
    busy(task_ms);
  };
  const auto t0 = Clock::now();
  ktune::kernels::gemm::cpu::packed_detail::run_tasks(8, 2, task);
  caller_only = on_caller == 8;
  return ms_since(t0);
}

double openmp_job(double task_ms) {
  const auto t0 = Clock::now();
#pragma omp parallel for schedule(dynamic, 1) num_threads(2)
  for (int t = 0; t < 8; ++t) busy(task_ms);
  return ms_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const double task_ms = argc > 1 ? std::atof(argv[1]) : 0.25;
  const int reps = 100;
  std::printf("8 tasks of %.2f ms on 2 threads (ideal %.2f ms), medians of %d\n", task_ms,
              4 * task_ms, reps);
  const std::vector<std::pair<const char*, std::function<void()>>> evictions{
      {"OpenMP loop", [] { evict_openmp(8 * kMiB); }},
      {"evict_host_caches", [] { ktune::evict_host_caches(8 * kMiB); }}};
  for (const auto& [name, evict] : evictions) {
    std::vector<double> job;
    int caller_only = 0;
    for (int r = 0; r < reps; ++r) {
      evict();
      bool alone = false;
      job.push_back(pool_job(task_ms, alone));
      caller_only += alone;
    }
    std::printf("pool job after an 8 MiB eviction by %-17s: %.3f ms, caller alone in %d of %d\n",
                name, median(job), caller_only, reps);
  }
  struct Between {
    const char* name;
    double evict_mib;
    int gap_ms;
  };
  for (const Between& b : {Between{"nothing", 0, 0}, Between{"an 8 MiB eviction", 8, 0},
                           Between{"a 64 MiB eviction", 64, 0}, Between{"a 250 ms gap", 0, 250},
                           Between{"a 250 ms gap and 64 MiB", 64, 250}}) {
    std::vector<double> job;
    for (int r = 0; r < reps; ++r) {
      bool alone = false;
      pool_job(task_ms, alone);
      if (b.gap_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(b.gap_ms));
      if (b.evict_mib > 0) ktune::evict_host_caches(b.evict_mib * kMiB);
      job.push_back(openmp_job(task_ms));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::printf("OpenMP job after a pool job and %-24s: %.3f ms\n", b.name, median(job));
  }
  return 0;
}
