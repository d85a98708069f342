// The host protocol's cache rule (host_measure.hpp): a timed run never starts on the copy just
// verified, 2x LLC is read once after the verification, and an eviction precedes every run
// where the copies do not cover 2x LLC (not where they do); time_interleaved_on_host measures
// every candidate of every round through that protocol. The eviction reads every line on every
// CPU and leaves no thread running once it returns.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ktune/host_measure.hpp"

namespace ktune {
namespace {

constexpr double kMiB = 1024.0 * 1024;

TEST(HostRotation, EvictsOnlyWhereTheCopiesDoNotCoverTwiceTheCache) {
  const double llc = 32 * kMiB;
  const HostRotation small = host_rotation(1e6, llc);  // 8 copies: 8 MB of 64 MiB
  EXPECT_EQ(small.copies, 8u);
  EXPECT_EQ(small.cold_bytes, 2 * llc);
  EXPECT_GT(small.evict_bytes, 0);
  EXPECT_DOUBLE_EQ(double(small.copies) * (1e6 + small.evict_bytes), 2 * llc);
  const HostRotation covered = host_rotation(10 * kMiB, llc);  // 7 copies: 70 MiB
  EXPECT_EQ(covered.copies, 7u);
  EXPECT_EQ(covered.evict_bytes, 0);
  EXPECT_EQ(host_rotation(100 * kMiB, llc).copies, 1u);
  EXPECT_EQ(host_rotation(100 * kMiB, llc).evict_bytes, 0);
  const HostRotation tiny = host_rotation(kHostColdMinBytes / 2, llc);  // rotation alone
  EXPECT_EQ(tiny.copies, 8u);
  EXPECT_EQ(tiny.cold_bytes, 0);
  EXPECT_EQ(tiny.evict_bytes, 0);
}

// Each run's copy and the bytes evicted before it (the verification's run included).
struct Recorded {
  std::vector<std::pair<size_t, double>> runs;
  void run(size_t copy) { runs.emplace_back(copy, host_cache_bytes_evicted()); }
};

TimingPolicy four_runs() { return {.warmups = 1, .min_reps = 3, .max_reps = 3, .budget_ms = 0}; }

TEST(HostMeasure, TimesFromTheCopyAfterTheVerifiedOneEvictingBeforeEachRun) {
  Recorded r;
  const HostRotation rotation{.copies = 3, .cold_bytes = 8192, .evict_bytes = 1024};
  const Outcome o = verify_then_time_on_host(
      [&] {
        r.run(0);
        return RunVerdict{true, 0, ""};
      },
      [&](size_t copy) { r.run(copy); }, rotation, four_runs());
  ASSERT_EQ(o.status, Status::ok);
  ASSERT_EQ(r.runs.size(), 5u);  // verification, warm-up, 3 timed
  const std::vector<size_t> copies{0, 1, 2, 0, 1};
  for (size_t i = 0; i < r.runs.size(); ++i) EXPECT_EQ(r.runs[i].first, copies[i]) << i;
  const double start = r.runs[0].second;
  EXPECT_EQ(r.runs[1].second - start, 8192 + 1024);  // cold once, then before the run
  for (size_t i = 2; i < r.runs.size(); ++i)
    EXPECT_EQ(r.runs[i].second - r.runs[i - 1].second, 1024) << i;
}

TEST(HostMeasure, CopiesThatCoverTheCacheAreNotEvictedBetweenRuns) {
  Recorded r;
  const HostRotation rotation{.copies = 2, .cold_bytes = 8192, .evict_bytes = 0};
  ASSERT_EQ(verify_then_time_on_host(
                [&] {
                  r.run(0);
                  return RunVerdict{true, 0, ""};
                },
                [&](size_t copy) { r.run(copy); }, rotation, four_runs())
                .status,
            Status::ok);
  ASSERT_EQ(r.runs.size(), 5u);
  EXPECT_EQ(r.runs[1].first, 1u);
  EXPECT_EQ(r.runs[1].second - r.runs[0].second, 8192);
  for (size_t i = 2; i < r.runs.size(); ++i) EXPECT_EQ(r.runs[i].second, r.runs[1].second);
}

TEST(HostMeasure, InterleavedRoundsMeasureEachCandidateThroughTheProtocol) {
  std::vector<Recorded> rec(2);
  std::vector<int> order;
  int verifications_of_1 = 0;
  std::vector<HostCandidate> all;
  for (int c = 0; c < 2; ++c)
    all.push_back({[&, c] {
                     order.push_back(c);
                     rec[size_t(c)].run(0);
                     if (c == 1 && ++verifications_of_1 == 2) return RunVerdict{false, 1, "bad"};
                     return RunVerdict{true, 0.5 * c, ""};
                   },
                   [&, c](size_t copy) { rec[size_t(c)].run(copy); }});
  const HostRotation rotation{.copies = 2, .cold_bytes = 4096, .evict_bytes = 512};
  const auto out = time_interleaved_on_host(all, rotation, four_runs(), 3);  // 4: 2 rotations
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 1, 0, 0, 0}));  // 1 is wrong in its 2nd round
  EXPECT_EQ(out[0].status, Status::ok);
  EXPECT_EQ(out[0].timing.reps, 4 * 3);  // every round's samples pooled
  EXPECT_EQ(out[1].status, Status::wrong);
  EXPECT_EQ(out[1].message, "bad");
  // Every block of candidate 0: verified on copy 0, timed from copy 1, evicted before each run.
  const auto& runs = rec[0].runs;
  ASSERT_EQ(runs.size(), 4u * 5);
  for (size_t b = 0; b < 4; ++b) {
    EXPECT_EQ(runs[5 * b].first, 0u);
    EXPECT_EQ(runs[5 * b + 1].first, 1u);
    EXPECT_EQ(runs[5 * b + 1].second - runs[5 * b].second, 4096 + 512);
    EXPECT_EQ(runs[5 * b + 2].second - runs[5 * b + 1].second, 512);
  }
}

TEST(HostMeasure, EvictionReadsTheBytesAskedFor) {
  const double before = host_cache_bytes_evicted();
  evict_host_caches(3 * kMiB);
  evict_host_caches(1 * kMiB);  // wraps around the 3 MiB ring
  evict_host_caches(0);
  EXPECT_EQ(host_cache_bytes_evicted() - before, 4 * kMiB);
}

TEST(HostEviction, ReadsEveryLineOnceOnEveryCpu) {
  // Line i holds i % 13 + 1 in its first byte and 0 elsewhere: the sum of a read names its lines.
  const size_t lines = 100;
  std::vector<char> ring(lines * 64, 0);
  for (size_t i = 0; i < lines; ++i) ring[i * 64] = char(i % 13 + 1);
  auto expected = [](size_t first, size_t count) {
    unsigned long sum = 0;
    for (size_t j = 0; j < count; ++j) sum += (first + j) % lines % 13 + 1;
    return sum;
  };
  int cpus = 1;
#if defined(__linux__)
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  cpus = CPU_COUNT(&allowed);
#endif
  const LinesRead all = read_lines_on_every_cpu(ring.data(), ring.size(), 0, ring.size());
  EXPECT_EQ(all.sum, expected(0, lines));
  EXPECT_EQ(all.cpus, std::min(cpus, int(lines)));  // one reader per CPU, each where it was put
  const LinesRead wrapped = read_lines_on_every_cpu(ring.data(), ring.size(), 90 * 64, 30 * 64);
  EXPECT_EQ(wrapped.sum, expected(90, 30));  // lines 90..99, then 0..19
  const LinesRead one = read_lines_on_every_cpu(ring.data(), ring.size(), 7 * 64, 64);
  EXPECT_EQ(one.sum, expected(7, 1));
  EXPECT_EQ(one.cpus, 1);  // no reader without a line
  EXPECT_EQ(read_lines_on_every_cpu(ring.data(), ring.size(), 0, 0).sum, 0u);
}

#if defined(__linux__)
// This process's threads other than the caller.
std::vector<std::string> other_threads() {
  const std::string self = std::to_string(syscall(SYS_gettid));
  std::vector<std::string> tids;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    if (task.path().filename() != self) tids.push_back(task.path().filename());
  return tids;
}

// CPU time (ns, /proc/self/task/T/schedstat) of this process's threads other than the caller
// and those in `old`.
long long new_threads_cpu_ns(const std::vector<std::string>& old) {
  long long ns = 0;
  for (const std::string& tid : other_threads()) {
    if (std::find(old.begin(), old.end(), tid) != old.end()) continue;
    long long t = 0;
    std::ifstream("/proc/self/task/" + tid + "/schedstat") >> t;  // gone meanwhile: 0
    ns += t;
  }
  return ns;
}

// In a fresh process: evicts, then measures the CPU time that threads started since (not those
// the process had before: OpenBLAS starts its workers, spinning, when it is loaded) take over the
// next 20 ms. An OpenMP eviction's worker spun 3.6 ms of it here (libgomp, OMP_WAIT_POLICY unset).
[[noreturn]] void evict_then_watch_the_new_threads() {
  const std::vector<std::string> old = other_threads();
  for (int i = 0; i < 3; ++i) {
    evict_host_caches(8 * kMiB);
    const long long before = new_threads_cpu_ns(old);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double ms = double(new_threads_cpu_ns(old) - before) / 1e6;
    if (ms > 1) {
      std::fprintf(stderr, "threads it started ran %.2f ms in the 20 ms after an eviction\n", ms);
      std::exit(1);
    }
  }
  std::fprintf(stderr, "nothing ran after the evictions\n");
  std::exit(0);
}

TEST(HostEvictionDeathTest, LeavesNoThreadRunning) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one CPU: no other thread to run";
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // re-executed: no thread of other tests
  EXPECT_EXIT(evict_then_watch_the_new_threads(), testing::ExitedWithCode(0),
              "nothing ran after the evictions");
}
#endif

}  // namespace
}  // namespace ktune
