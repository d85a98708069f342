#pragma once
// Whose threads run a CPU conv plan's tasks: the packed GEMM's helper pool
// (gemm_cpu_pool.hpp, the default) or the calling thread's OpenMP team, chosen per calling thread.
// The team is for a process whose other kernels run on OpenMP (oneDNN, the nn engine's other
// backends): after their last parallel region libgomp's workers spin for milliseconds, and on a
// 2-core machine the pool's helper then shares a core with a spinning worker (a third runnable
// thread) at the start of every ktune inference that follows one of oneDNN's. On the team, that
// spinning worker takes the next task at once instead. C++17.
//
// Each thread of a team region first claims its CPU (TeamCpus): one that starts on a CPU another
// thread of the team already runs on moves itself off. On the 2-vCPU guest under load, libgomp's
// worker, asleep after a stretch without parallel regions (another backend's inference on the
// pool), was woken onto the caller's CPU and both stayed on that one core for whole inferences,
// twice as long as the others (one of two causes of the bimodal batch-16 times of issues #26 /
// #30; docs/networks.md).
#include <algorithm>
#include <atomic>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

#include "kernels/common/cpu/gemm_cpu_pool.hpp"

namespace ktune::kernels::cpu_conv {

enum class TaskWorkers { pool, openmp };

inline TaskWorkers& task_workers() {
  thread_local TaskWorkers workers = TaskWorkers::pool;
  return workers;
}

// Sets the calling thread's task_workers() for its lifetime, then restores the former choice.
class ScopedTaskWorkers {
 public:
  explicit ScopedTaskWorkers(TaskWorkers w) : saved_(task_workers()) { task_workers() = w; }
  ~ScopedTaskWorkers() { task_workers() = saved_; }
  ScopedTaskWorkers(const ScopedTaskWorkers&) = delete;
  ScopedTaskWorkers& operator=(const ScopedTaskWorkers&) = delete;

 private:
  TaskWorkers saved_;
};

// The CPUs the threads of one parallel region run on (CPUs 0..63 are tracked; a thread on a higher
// one is left where it is).
class TeamCpus {
 public:
  // Claims the calling thread's CPU. If another thread of the team claimed it first, moves the
  // caller to one of its allowed CPUs that no thread claimed: its affinity limited to those, which
  // migrates it at once, then given back, so that it is not pinned (it stays where the move put it
  // until the scheduler moves it again). Nothing moves where no such CPU exists (more threads than
  // CPUs, or an affinity set by the application). Returns the CPU the caller runs on (-1: unknown).
  int claim() {
#if defined(__linux__)
    int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= kTracked) return cpu;
    const uint64_t bit = uint64_t(1) << cpu;
    const uint64_t before = claimed_.fetch_or(bit, std::memory_order_acq_rel);
    if ((before & bit) == 0) return cpu;
    cpu_set_t allowed, unclaimed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpu;
    unclaimed = allowed;
    for (int c = 0; c < kTracked; ++c)
      if (((before | bit) >> c) & 1) CPU_CLR(c, &unclaimed);
    if (CPU_COUNT(&unclaimed) == 0 || sched_setaffinity(0, sizeof unclaimed, &unclaimed) != 0)
      return cpu;
    cpu = sched_getcpu();
    sched_setaffinity(0, sizeof allowed, &allowed);
    moves_.fetch_add(1, std::memory_order_relaxed);
    if (cpu >= 0 && cpu < kTracked)
      claimed_.fetch_or(uint64_t(1) << cpu, std::memory_order_acq_rel);
    return cpu;
#else
    (void)claimed_;
    return -1;
#endif
  }
  // How many claims moved their thread.
  int moves() const { return moves_.load(std::memory_order_relaxed); }

 private:
  static constexpr int kTracked = 64;
  std::atomic<uint64_t> claimed_{0};
  std::atomic<int> moves_{0};
};

// Runs f(t) for t in [0, tasks) on up to `threads` threads: of the pool (TaskPool::run) or, where
// task_workers() says so and OpenMP is compiled in, of an OpenMP team claiming tasks one at a time
// from one cursor, each having claimed its CPU first (TeamCpus; inside a parallel region: on the
// caller alone).
template <class F>
void run_tasks(int64_t tasks, int threads, F& f) {
#ifdef _OPENMP
  if (task_workers() == TaskWorkers::openmp) {
    if (threads <= 1 || tasks <= 1 || omp_in_parallel()) {
      for (int64_t t = 0; t < tasks; ++t) f(t);
      return;
    }
    std::atomic<int64_t> next{0};
    TeamCpus cpus;
#pragma omp parallel num_threads(int(std::min <int64_t>(threads, tasks)))
    {
      cpus.claim();
      for (int64_t t = next.fetch_add(1, std::memory_order_relaxed); t < tasks;
           t = next.fetch_add(1, std::memory_order_relaxed))
        f(t);
    }
    return;
  }
#endif
  gemm::cpu::packed_detail::run_tasks(tasks, threads, f);
}

}  // namespace ktune::kernels::cpu_conv
