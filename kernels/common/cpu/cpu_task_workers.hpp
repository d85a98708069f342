#pragma once
// Whose threads run a CPU conv plan's tasks: the packed GEMM's helper pool
// (gemm_cpu_pool.hpp, the default) or the calling thread's OpenMP team, chosen per calling thread.
// The team is for a process whose other kernels run on OpenMP (oneDNN, the nn engine's other
// backends): after their last parallel region libgomp's workers spin for milliseconds, and on a
// 2-core machine the pool's helper then shares a core with a spinning worker (a third runnable
// thread) at the start of every ktune inference that follows one of oneDNN's. On the team, that
// spinning worker takes the next task at once instead. C++17.
#include <algorithm>
#include <atomic>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
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

// Runs f(t) for t in [0, tasks) on up to `threads` threads: of the pool (TaskPool::run) or, where
// task_workers() says so and OpenMP is compiled in, of an OpenMP team claiming tasks one at a time
// from one cursor (inside a parallel region: on the caller alone).
template <class F>
void run_tasks(int64_t tasks, int threads, F& f) {
#ifdef _OPENMP
  if (task_workers() == TaskWorkers::openmp) {
    if (threads <= 1 || tasks <= 1 || omp_in_parallel()) {
      for (int64_t t = 0; t < tasks; ++t) f(t);
      return;
    }
    std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(int(std::min <int64_t>(threads, tasks)))
    for (int64_t t = next.fetch_add(1, std::memory_order_relaxed); t < tasks;
         t = next.fetch_add(1, std::memory_order_relaxed))
      f(t);
    return;
  }
#endif
  gemm::cpu::packed_detail::run_tasks(tasks, threads, f);
}

}  // namespace ktune::kernels::cpu_conv
