// The packed GEMM's helper pool (kernels/common/cpu/gemm_cpu_pool.hpp) and its task policy:
// every task runs exactly once whatever the thread count, callers and helpers claim tasks
// from one cursor, concurrent callers stay correct.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_packed_split.hpp"
#include "kernels/common/cpu/gemm_cpu_pool.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace ktune {
namespace {

namespace pd = kernels::gemm::cpu::packed_detail;

// Runs `tasks` tasks on `threads` threads and returns how often each task ran.
std::vector<int> run_counts(int64_t tasks, int threads) {
  std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
  auto task = [&](int64_t t) { runs[size_t(t)].fetch_add(1, std::memory_order_relaxed); };
  pd::run_tasks(tasks, threads, task);
  std::vector<int> counts;
  for (const auto& r : runs) counts.push_back(r.load());
  return counts;
}

TEST(GemmCpuPool, EveryTaskRunsExactlyOnce) {
  for (int threads : {1, 2, 3, 5})
    for (int64_t tasks : {0, 1, 2, 3, 7, 64, 1000}) {
      const std::vector<int> counts = run_counts(tasks, threads);
      for (int64_t t = 0; t < tasks; ++t)
        ASSERT_EQ(counts[size_t(t)], 1)
            << "task " << t << " of " << tasks << ", " << threads << " threads";
    }
}

// Many back-to-back jobs: a helper still finishing (or waking for) one job must never run a
// task of the next one twice or skip one.
TEST(GemmCpuPool, BackToBackJobsStayExact) {
  std::vector<std::atomic<int64_t>> sums(8);
  for (int job = 0; job < 2000; ++job) {
    const int64_t tasks = 1 + job % 8;
    auto task = [&](int64_t t) { sums[size_t(t)].fetch_add(job, std::memory_order_relaxed); };
    pd::run_tasks(tasks, 2 + job % 2, task);
  }
  for (int64_t t = 0; t < 8; ++t) {
    int64_t expected = 0;
    for (int job = 0; job < 2000; ++job)
      if (t < 1 + job % 8) expected += job;
    EXPECT_EQ(sums[size_t(t)].load(), expected) << "task " << t;
  }
}

// Plain (non-atomic) writes of the tasks are visible to the caller once run returns, and the
// caller's writes before a job are visible to its tasks (checked under ThreadSanitizer too).
TEST(GemmCpuPool, TaskWritesAreVisibleToTheCaller) {
  std::vector<int64_t> in(64), out(64);
  for (int64_t job = 0; job < 500; ++job) {
    for (size_t t = 0; t < in.size(); ++t) in[t] = job * 100 + int64_t(t);
    auto task = [&](int64_t t) { out[size_t(t)] = in[size_t(t)] + 1; };
    pd::run_tasks(int64_t(in.size()), 2, task);
    for (size_t t = 0; t < out.size(); ++t) ASSERT_EQ(out[t], job * 100 + int64_t(t) + 1);
  }
}

// The sleeping paths: helpers idle long enough to sleep before each job and must be woken, and
// tasks long enough that the caller runs out of spins and sleeps until the helpers finish.
TEST(GemmCpuPool, SleepingHelpersAndCallerAreWoken) {
  std::vector<int64_t> out(4);
  for (int64_t job = 0; job < 20; ++job) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    auto task = [&](int64_t t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      out[size_t(t)] = job;
    };
    pd::run_tasks(int64_t(out.size()), 2, task);
    for (int64_t v : out) ASSERT_EQ(v, job);
  }
}

// Application threads calling at once: one owns the pool, the others run their tasks alone.
TEST(GemmCpuPool, ConcurrentCallersAreEachComplete) {
  constexpr int kCallers = 4, kJobs = 200, kTasks = 16;
  std::vector<std::atomic<int>> done(kCallers * kTasks);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int job = 0; job < kJobs; ++job) {
        auto task = [&](int64_t t) {
          done[size_t(c * kTasks + t)].fetch_add(1, std::memory_order_relaxed);
        };
        pd::run_tasks(kTasks, 2, task);
      }
    });
  for (std::thread& t : callers) t.join();
  for (int i = 0; i < kCallers * kTasks; ++i) EXPECT_EQ(done[size_t(i)].load(), kJobs) << i;
}

#if defined(__linux__)
// Sets the affinity of every thread of this process but the calling one (the pool's helpers).
void pin_other_threads(const cpu_set_t& cpus) {
  const std::string self = std::to_string(gettid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    if (const std::string tid = entry.path().filename().string(); tid != self)
      sched_setaffinity(std::stoi(tid), sizeof cpus, &cpus);
}

// The caller pinned to its first allowed CPU and the pool started (its helper with every CPU);
// everything put back when it ends. `ok` is false where fewer than 2 CPUs are allowed.
// Spins until done() holds, for at most 5 s (a broken pool fails the test rather than hangs it).
template <class Done>
void spin_until(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done() && std::chrono::steady_clock::now() < give_up) {
  }
}

struct PinnedCaller {
  cpu_set_t all, one;
  int pinned = 0;
  bool ok = false;
  PinnedCaller() {
    if (pthread_getaffinity_np(pthread_self(), sizeof all, &all) != 0 || CPU_COUNT(&all) < 2)
      return;
    run_counts(4, 2);  // the helper starts with every CPU this thread may use
    while (!CPU_ISSET(pinned, &all)) ++pinned;
    CPU_ZERO(&one);
    CPU_SET(pinned, &one);
    ok = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
  }
  // Lets the helper fall asleep (longer than its idle spin), then pins it to the caller's CPU:
  // the placement the 2-vCPU guest's wake-up gave it.
  void park_helpers_on_callers_cpu() const {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pin_other_threads(one);
  }
  ~PinnedCaller() {
    if (!ok) return;
    pin_other_threads(all);
    pthread_setaffinity_np(pthread_self(), sizeof all, &all);
  }
};

// The pool's placement tests (thread affinity is Linux's): the caller pinned, skipped where
// fewer than 2 CPUs are allowed.
class GemmCpuPoolPinned : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!pin.ok) GTEST_SKIP() << "fewer than 2 CPUs allowed";
  }
  PinnedCaller pin;
  const int pinned = pin.pinned;
  const std::thread::id caller = std::this_thread::get_id();
};

// After an idle moment (the helper asleep), a job's helper takes its share on a CPU other than
// the caller's. On the 2-vCPU guest the wake-up queued the helper on the caller's own CPU,
// behind the caller, and the caller ran nearly every task of the short calls that followed
// (issue #23); here the sleeping helper is pinned to the caller's CPU to stand for that
// placement. Each job's first task waits until a second thread claimed the other, so the
// helper always runs one; where it ran is what is checked.
TEST_F(GemmCpuPoolPinned, WokenHelperRunsOffTheCallersCpu) {
  for (int job = 0; job < 3; ++job) {
    pin.park_helpers_on_callers_cpu();
    std::atomic<int> claimed{0}, helper_cpu{-1}, helper_tasks{0};
    auto task = [&](int64_t) {
      if (std::this_thread::get_id() != caller) {
        helper_cpu = sched_getcpu();
        ++helper_tasks;
      }
      ++claimed;
      spin_until([&] { return claimed.load() >= 2; });
    };
    pd::run_tasks(2, 2, task);
    EXPECT_EQ(helper_tasks.load(), 1) << "job " << job;
    EXPECT_NE(helper_cpu.load(), pinned) << "job " << job << ": the helper ran on the caller's CPU";
  }
}

// A caller out of tasks that goes to sleep lets the helpers back onto its CPU, where a helper
// preempted in the middle of a task can then finish it. The caller's task waits until the helper
// claimed the other; the helper's task waits until its affinity holds the caller's CPU again.
TEST_F(GemmCpuPoolPinned, SleepingCallerLetsHelpersBackOntoItsCpu) {
  pin.park_helpers_on_callers_cpu();  // then the job moves it off
  std::atomic<int> claimed{0};
  std::atomic<bool> helper_ran{false}, let_back{false};
  auto task = [&](int64_t) {
    ++claimed;
    if (std::this_thread::get_id() == caller) {
      spin_until([&] { return claimed.load() >= 2; });
      return;
    }
    helper_ran = true;
    spin_until([&] {
      cpu_set_t mine;
      pthread_getaffinity_np(pthread_self(), sizeof mine, &mine);
      return let_back = CPU_ISSET(pinned, &mine) != 0;
    });
  };
  pd::run_tasks(2, 2, task);
  EXPECT_TRUE(helper_ran);
  EXPECT_TRUE(let_back) << "the helper stayed off the sleeping caller's CPU";
}
#endif  // __linux__

TEST(GemmCpuPool, CursorPacksTaskCountAndNextTask) {
  constexpr uint64_t c = pd::pool_cursor(pd::kMaxPoolTasks, 12345);
  static_assert(pd::cursor_tasks(c) == pd::kMaxPoolTasks && pd::cursor_next(c) == 12345);
  EXPECT_EQ(pd::cursor_next(c + 1), 12346);  // a claim increments the low half only
  EXPECT_EQ(pd::cursor_tasks(pd::pool_cursor(3, 0)), 3);
}

// Parts per batch entry: at least `per_thread` tasks per thread in all, none for one thread or
// for batches that give every thread several entries.
TEST(GemmCpuPool, TaskPartsGiveEveryThreadSeveralTasks) {
  EXPECT_EQ(pd::task_parts(1, 1, 2), 1);
  EXPECT_EQ(pd::task_parts(5, 1, 2), 1);
  EXPECT_EQ(pd::task_parts(1, 2, 2), 4);   // one entry cut in 4
  EXPECT_EQ(pd::task_parts(2, 2, 2), 2);   // 2 entries x 2 parts
  EXPECT_EQ(pd::task_parts(3, 2, 2), 4);   // 12 tasks: a multiple of 4
  EXPECT_EQ(pd::task_parts(6, 2, 2), 2);   // 12 tasks
  EXPECT_EQ(pd::task_parts(16, 2, 2), 1);  // 8 entries per thread already
  EXPECT_EQ(pd::task_parts(1, 3, 1), 3);
  for (int64_t batch = 1; batch < 40; ++batch)
    for (int64_t threads = 2; threads <= 4; ++threads) {
      const int64_t tasks = batch * pd::task_parts(batch, threads, 2);
      EXPECT_TRUE(tasks % (2 * threads) == 0 || batch >= 8 * threads) << batch << " " << threads;
    }
}

}  // namespace
}  // namespace ktune
