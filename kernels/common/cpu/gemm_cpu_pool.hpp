#pragma once
// The helper threads of the packed GEMM kernel. Tasks are claimed one at a time from a shared
// cursor, by the calling thread as well as by the helpers, so a call never waits for a helper
// that has not started: the caller runs every task no helper has claimed yet and then waits
// only for the tasks helpers are running. An OpenMP parallel region instead joins every thread
// of the team, and on a busy 2-core machine (OpenBLAS's worker spinning after its calls, other
// processes) a worker that was not scheduled stretched 0.15 ms GEMMs to 8-30 ms
// (results/amd-epyc-2c/gemm-packed-fix.md). Idle helpers spin up to 2 ms, then sleep. C++17.
//
// During a job the helpers keep off the CPU the caller started it on (Linux: a thread affinity
// that excludes that CPU, set before the job and lifted after it, or once the caller runs out of
// tasks and sleeps, so that a preempted helper may finish there). On the 2-vCPU guest, whose
// scheduler sees no shared cache between its CPUs, a helper woken after an idle moment was
// queued on the caller's own CPU, behind the caller, while the other CPU idled: the caller ran
// 97-100 % of the tasks of the ~30 short calls that followed (issue #23).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace ktune::kernels::gemm::cpu::packed_detail {

// A job's cursor in one 64-bit word: task count (high half) and next unclaimed task (low half),
// so a claim is one compare-and-swap that also fails once a newer job replaced the cursor.
constexpr int64_t kMaxPoolTasks = (int64_t(1) << 31) - 1;
constexpr uint64_t pool_cursor(int64_t tasks, int64_t next) {
  return uint64_t(tasks) << 32 | uint64_t(next);
}
constexpr int64_t cursor_tasks(uint64_t c) { return int64_t(c >> 32); }
constexpr int64_t cursor_next(uint64_t c) { return int64_t(c & 0xffffffffu); }

class TaskPool {
 public:
  using Fn = void (*)(void* ctx, int64_t task);

  // The process's pool, never destroyed: helpers may still sleep in it while the program exits.
  static TaskPool& instance() {
    static TaskPool* pool = new TaskPool;
    return *pool;
  }

  // Runs fn(ctx, t) for every t in [0, tasks) on the caller and up to threads - 1 helpers, and
  // returns once all have finished. A second caller while a job runs (several application
  // threads) runs its tasks alone rather than waiting for the pool.
  void run(int64_t tasks, int threads, Fn fn, void* ctx) {
    if (threads <= 1 || tasks <= 1 || tasks > kMaxPoolTasks || busy_.test_and_set()) {
      for (int64_t t = 0; t < tasks; ++t) fn(ctx, t);
      return;
    }
    run_owned(tasks, threads, fn, ctx);
    busy_.clear(std::memory_order_release);
  }

 private:
  // A helper's affinity at its start (inherited from the thread that started it), restored
  // after each job it was kept off a CPU for.
  struct Helper {
    std::thread thread;
    bool asleep = false;                // under sleep_: waiting on wake_cv_
    std::atomic<bool> kept_off{false};  // its affinity excludes a CPU now (keep_off)
#if defined(__linux__)
    cpu_set_t allowed{};
    bool known = false;  // allowed was read
#endif
  };

  // run() once this caller owns the pool. noexcept: helpers may still be running tasks on ctx,
  // so an exception must not unwind past them (as with an OpenMP region).
  void run_owned(int64_t tasks, int threads, Fn fn, void* ctx) noexcept {
    start_helpers(threads - 1);
    const int cpu = current_cpu();
    caller_cpu_.store(cpu, std::memory_order_relaxed);
    fn_.store(fn, std::memory_order_relaxed);
    ctx_.store(ctx, std::memory_order_relaxed);
    helpers_allowed_.store(threads - 1, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    cursor_.store(pool_cursor(tasks, 0), std::memory_order_release);
    {
      // Under the lock, so a helper that checks wake_ and then sleeps cannot miss the change.
      std::lock_guard<std::mutex> lock(sleep_);
      wake_.fetch_add(1, std::memory_order_release);
      // A sleeping helper is moved before it wakes, so the wake-up cannot queue it behind us
      // (a running one moves itself: helper_main).
      for (int i = 0; i < threads - 1 && i < int(helpers_.size()); ++i) {
        Helper& h = helpers_[size_t(i)];
        if (h.asleep && keep_off(h, h.thread.native_handle(), cpu))
          h.kept_off.store(true, std::memory_order_release);
      }
    }
    wake_cv_.notify_all();
    drain();
    // Only tasks a helper claimed can be unfinished now: spin a little, then sleep (which also
    // frees this core for a helper that was preempted in the middle of its task: helpers kept
    // off it are let back first).
    const uint32_t all = uint32_t(tasks);
    auto all_done = [&] { return finished_.load(std::memory_order_acquire) == all; };
    for (int spin = 0; spin < kWaitSpins; ++spin) {
      if (all_done()) return;
      pause();
    }
    for (int i = 0; i < threads - 1 && i < int(helpers_.size()); ++i) {
      Helper& h = helpers_[size_t(i)];
      if (h.kept_off.exchange(false, std::memory_order_acq_rel))
        restore_affinity(h, h.thread.native_handle());
    }
    std::unique_lock<std::mutex> lock(sleep_);
    done_cv_.wait(lock, all_done);
  }

  // Spins before sleeping, long enough to span back-to-back calls: on this 2-vCPU KVM guest a
  // futex wake of a sleeping helper took long enough that calls of 0.1-0.5 ms ran mostly on the
  // caller alone (deployed runs 2x below the sweep's warm numbers with 50 us / 2000 spins;
  // results/README.md, packedz). The cost: a helper spins up to 2 ms after a call.
  static constexpr int kWaitSpins = 20000;
  static constexpr auto kIdleSpin = std::chrono::microseconds(2000);  // then sleep until woken

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  // Claims and runs tasks of the current job until none is left unclaimed.
  void drain() {
    uint64_t c = cursor_.load(std::memory_order_acquire);
    for (;;) {
      const int64_t tasks = cursor_tasks(c), next = cursor_next(c);
      if (next >= tasks) return;
      if (!cursor_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel,
                                         std::memory_order_acquire))
        continue;
      // The job cannot change before this claimed task finishes, so fn and ctx are its own.
      fn_.load(std::memory_order_relaxed)(ctx_.load(std::memory_order_relaxed), next);
      if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == uint32_t(tasks)) {
        { std::lock_guard<std::mutex> lock(sleep_); }  // the caller is asleep or sees the count
        done_cv_.notify_all();
      }
      c = cursor_.load(std::memory_order_acquire);
    }
  }

  void helper_main(Helper& self, int index) {
    save_affinity(self);
    uint32_t seen = wake_.load(std::memory_order_acquire);
    for (;;) {
      auto idle_until = std::chrono::steady_clock::now() + kIdleSpin;
      for (int spin = 0; wake_.load(std::memory_order_acquire) == seen; ++spin) {
        if (spin % 64 != 63 || std::chrono::steady_clock::now() < idle_until) {
          pause();
        } else {
          std::unique_lock<std::mutex> lock(sleep_);
          self.asleep = true;
          wake_cv_.wait(lock, [&] { return wake_.load(std::memory_order_acquire) != seen; });
          self.asleep = false;
          idle_until = std::chrono::steady_clock::now() + kIdleSpin;
        }
      }
      seen = wake_.load(std::memory_order_acquire);
      if (index >= helpers_allowed_.load(std::memory_order_relaxed)) continue;
      // Spinning on the caller's CPU, this helper ran only because the caller was preempted:
      // step aside for the job (the caller already moved it if it was asleep).
      // No lock here: a helper taking sleep_ while the caller still holds it would sleep in the
      // futex on every job.
      const int cpu = caller_cpu_.load(std::memory_order_relaxed);
      if (!self.kept_off.load(std::memory_order_acquire) && cpu >= 0 && current_cpu() == cpu &&
          keep_off(self, self.thread.native_handle(), cpu))
        self.kept_off.store(true, std::memory_order_release);
      drain();
      if (self.kept_off.exchange(false, std::memory_order_acq_rel))
        restore_affinity(self, self.thread.native_handle());
    }
  }

  // The CPU the calling thread runs on, or -1 where unknown.
  static int current_cpu() {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
  }

  static void save_affinity(Helper& h) {
#if defined(__linux__)
    h.known = pthread_getaffinity_np(pthread_self(), sizeof h.allowed, &h.allowed) == 0;
#else
    (void)h;
#endif
  }

  // Limits helper h (thread `who`) to its CPUs other than cpu; false (nothing changed) when it
  // has no other CPU or the system refuses.
  static bool keep_off(const Helper& h, std::thread::native_handle_type who, int cpu) {
#if defined(__linux__)
    if (!h.known || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &h.allowed)) return false;
    cpu_set_t others = h.allowed;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) == 0) return false;
    return pthread_setaffinity_np(who, sizeof others, &others) == 0;
#else
    (void)h, (void)who, (void)cpu;
    return false;
#endif
  }

  // Gives helper h (thread `who`) back the CPUs it started with.
  static void restore_affinity(const Helper& h, std::thread::native_handle_type who) {
#if defined(__linux__)
    pthread_setaffinity_np(who, sizeof h.allowed, &h.allowed);
#else
    (void)h, (void)who;
#endif
  }

  // Called by the caller that owns the pool (busy_ set). A helper that cannot be started only
  // leaves more tasks to the caller.
  void start_helpers(int wanted) {
    while (int(helpers_.size()) < wanted) {
      try {
        helpers_.emplace_back();
      } catch (const std::exception&) {  // std::bad_alloc
        return;
      }
      Helper& h = helpers_.back();
      try {
        // Under the lock: a caller reads h.thread (keep_off) only under it.
        std::lock_guard<std::mutex> lock(sleep_);
        h.thread =
            std::thread([this, &h, index = int(helpers_.size()) - 1] { helper_main(h, index); });
      } catch (const std::exception&) {  // std::system_error
        helpers_.pop_back();
        return;
      }
    }
  }

  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;  // set while a caller owns the pool
  std::deque<Helper> helpers_;  // never joined: the pool lives until the process ends; a deque
                                // keeps each helper's address while more are added
  std::atomic<uint64_t> cursor_{0};
  std::atomic<uint32_t> finished_{0};
  std::atomic<uint32_t> wake_{0};
  std::atomic<int> helpers_allowed_{0};
  std::atomic<int> caller_cpu_{-1};  // where the caller started the current job (-1: unknown)
  std::atomic<Fn> fn_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  // Sleeping (C++17: the deployed libraries do not require C++20's std::atomic::wait).
  std::mutex sleep_;
  std::condition_variable wake_cv_;  // helpers wait for wake_ to change
  std::condition_variable done_cv_;  // the caller waits for finished_ to reach the task count
};

// Runs f(t) for t in [0, tasks) on up to `threads` threads of the pool (see TaskPool::run).
template <class F>
void run_tasks(int64_t tasks, int threads, F& f) {
  TaskPool::instance().run(
      tasks, threads, [](void* ctx, int64_t t) { (*static_cast<F*>(ctx))(t); }, &f);
}

}  // namespace ktune::kernels::gemm::cpu::packed_detail
