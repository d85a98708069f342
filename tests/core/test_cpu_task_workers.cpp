// Where the CPU conv plans run their tasks (kernels/common/cpu/cpu_task_workers.hpp): on OpenMP's
// team every task runs exactly once, the team's second thread takes tasks, a call inside a
// parallel region runs on the caller alone, and the choice is per thread and scoped; a team thread
// that starts on its caller's CPU moves off it (TeamCpus), its affinity given back.
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

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

// The calling thread's allowed CPUs.
cpu_set_t allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

// Moves the calling thread onto `cpu` (its affinity limited to it, then given back: it stays there
// until the scheduler moves it).
void move_to(int cpu, const cpu_set_t& allowed) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  ASSERT_EQ(sched_setaffinity(0, sizeof allowed, &allowed), 0);
}

// A second claim of a CPU from the thread running on it moves the thread to another CPU and leaves
// its affinity as it was. Retried: the scheduler may move the thread between the two claims.
TEST(CpuTaskWorkers, AClaimOfAClaimedCpuMovesTheThreadOff) {
  const cpu_set_t allowed = allowed_cpus();
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "fewer than 2 CPUs allowed";
  bool moved = false;
  for (int attempt = 0; attempt < 5 && !moved; ++attempt) {
    kc::TeamCpus cpus;
    const int first = cpus.claim();
    ASSERT_GE(first, 0);
    ASSERT_EQ(cpus.moves(), 0);  // the first claim of a CPU never moves
    const int second = cpus.claim();
    if (cpus.moves() == 1) {
      moved = true;
      EXPECT_NE(second, first);
      EXPECT_TRUE(CPU_ISSET(second, &allowed)) << "moved to CPU " << second;
    }
    const cpu_set_t after = allowed_cpus();
    EXPECT_TRUE(CPU_EQUAL(&after, &allowed)) << "the thread's affinity was not given back";
  }
  EXPECT_TRUE(moved) << "no claim of an already claimed CPU moved the thread in 5 attempts";
}

// The worker of a 2-thread team, moved onto the caller's CPU (as libgomp's wake-up left it after
// an idle stretch), runs the next run_tasks region on another CPU: each task waits (up to 10 s)
// until both threads have run one, and they report different CPUs.
TEST(CpuTaskWorkers, AWorkerOnTheCallersCpuMovesOffIt) {
  const cpu_set_t allowed = allowed_cpus();
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "fewer than 2 CPUs allowed";
  const kc::ScopedTaskWorkers on(kc::TaskWorkers::openmp);
  int worse = 0;
  for (int round = 0; round < 3; ++round) {
    const int caller = sched_getcpu();
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) move_to(caller, allowed);
    std::atomic<int> cpu_of[2] = {-1, -1};
    std::atomic<int> seen{0};
    auto task = [&](int64_t) {
      const int me = omp_get_thread_num();
      int unset = -1;
      cpu_of[me].compare_exchange_strong(unset, sched_getcpu());
      seen.fetch_or(1 << me);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (seen.load() != 3 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
    };
    kc::run_tasks(4, 2, task);
    ASSERT_EQ(seen.load(), 3) << "tasks ran on OpenMP threads mask " << seen.load();
    if (cpu_of[0].load() == cpu_of[1].load()) ++worse;
  }
  EXPECT_EQ(worse, 0) << "in " << worse << " of 3 regions both threads ran on one CPU";
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
