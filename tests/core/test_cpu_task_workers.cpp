// Where the CPU conv plans run their tasks (kernels/common/cpu/cpu_task_workers.hpp): on OpenMP's
// team every task runs exactly once, the team's second thread takes tasks, a call inside a
// parallel region runs on the caller alone, and the choice is per thread and scoped.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "kernels/common/cpu/cpu_task_workers.hpp"

namespace ktune {
namespace {

namespace kc = kernels::cpu_conv;

TEST(CpuTaskWorkers, EveryTaskRunsExactlyOnceOnEitherWorkers) {
  for (kc::TaskWorkers w : {kc::TaskWorkers::openmp, kc::TaskWorkers::pool}) {
    const kc::ScopedTaskWorkers on(w);
    for (int threads : {1, 2, 3})
      for (int64_t tasks : {0, 1, 2, 7, 1000}) {
        std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
        auto task = [&](int64_t t) { runs[size_t(t)].fetch_add(1); };
        kc::run_tasks(tasks, threads, task);
        for (int64_t t = 0; t < tasks; ++t)
          ASSERT_EQ(runs[size_t(t)].load(), 1)
              << "task " << t << " of " << tasks << ", " << threads
              << " threads, openmp=" << (w == kc::TaskWorkers::openmp);
      }
  }
}

// Each task waits (up to 10 s, for a loaded machine) until two OpenMP threads have run tasks: on
// the team, the worker takes a task while the caller's first one waits.
TEST(CpuTaskWorkers, TheTeamsSecondThreadTakesTasks) {
  const kc::ScopedTaskWorkers on(kc::TaskWorkers::openmp);
  std::atomic<int> seen{0};
  auto task = [&](int64_t) {
    seen.fetch_or(1 << omp_get_thread_num());
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (seen.load() != 3 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  };
  kc::run_tasks(4, 2, task);
  EXPECT_EQ(seen.load(), 3) << "tasks ran on OpenMP threads mask " << seen.load();
}

TEST(CpuTaskWorkers, InsideAParallelRegionRunsOnTheCallerAlone) {
  const kc::ScopedTaskWorkers on(kc::TaskWorkers::openmp);
  std::atomic<int> wrong{0}, runs{0}, team{0};
#pragma omp parallel num_threads(2)
  {
    const int me = omp_get_thread_num();
    team.fetch_add(1);
    auto task = [&](int64_t) {
      runs.fetch_add(1);
      if (omp_get_thread_num() != me || omp_get_level() != 1) wrong.fetch_add(1);
    };
    kc::run_tasks(5, 2, task);
  }
  EXPECT_EQ(runs.load(), 5 * team.load());  // each member's five tasks, once each
  EXPECT_EQ(wrong.load(), 0);
}

TEST(CpuTaskWorkers, ChoiceIsScopedAndPerThread) {
  EXPECT_EQ(kc::task_workers(), kc::TaskWorkers::pool);  // the default
  {
    const kc::ScopedTaskWorkers on(kc::TaskWorkers::openmp);
    EXPECT_EQ(kc::task_workers(), kc::TaskWorkers::openmp);
    kc::TaskWorkers other = kc::TaskWorkers::openmp;
    std::thread([&] { other = kc::task_workers(); }).join();
    EXPECT_EQ(other, kc::TaskWorkers::pool);
  }
  EXPECT_EQ(kc::task_workers(), kc::TaskWorkers::pool);
}

}  // namespace
}  // namespace ktune
