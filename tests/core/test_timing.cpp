// time_adaptive and the host verify-then-time protocol: a timeout is a status for a run that
// really exceeded the limit; an unusable policy is an error, never a measurement.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/host_measure.hpp"
#include "ktune/timing.hpp"
#include "ktune/timing_loop.hpp"

namespace ktune {
namespace {

TimingPolicy policy() {
  TimingPolicy p;
  p.warmups = 1;
  p.min_reps = 3;
  p.max_reps = 10;
  p.budget_ms = 5;
  p.timeout_ms = 50;
  return p;
}

TEST(TimeAdaptive, RunsWithinTheLimitAreOkWithTheirStats) {
  int calls = 0;
  const Outcome o = time_adaptive([&] { return double(++calls); }, policy());  // 1, 2, 3 ms...
  EXPECT_EQ(o.status, Status::ok);
  // warm-up (1 ms), then 2 + 3 + 4 >= 5 ms after min_reps 3.
  EXPECT_EQ(o.timing.reps, 3);
  EXPECT_EQ(o.timing.median_ms, 3.0);
  EXPECT_TRUE(o.message.empty());
}

TEST(TimeAdaptive, ARunOverTheLimitIsATimeoutNamingItsDuration) {
  int calls = 0;
  const Outcome o = time_adaptive([&] { return ++calls == 3 ? 75.0 : 1.0; }, policy());
  EXPECT_EQ(o.status, Status::timeout);
  EXPECT_EQ(o.timing.reps, 0);
  EXPECT_EQ(o.message, "one run took 75.0 ms > timeout 50.0 ms");
  EXPECT_EQ(calls, 3);  // stops at the slow run
  // A slow warm-up counts too.
  EXPECT_EQ(time_adaptive([] { return 51.0; }, policy()).status, Status::timeout);
  // Exactly the limit is not over it.
  EXPECT_EQ(time_adaptive([] { return 50.0; }, policy()).status, Status::ok);
}

TEST(TimeAdaptive, UnusablePoliciesAreErrorsNotTimeouts) {
  auto with = [](auto change) {
    TimingPolicy p = policy();
    change(p);
    return p;
  };
  const TimingPolicy bad[] = {
      with([](TimingPolicy& p) { p.max_reps = 0; }),
      with([](TimingPolicy& p) { p.min_reps = 0; }),
      with([](TimingPolicy& p) { p.min_reps = 5, p.max_reps = 4; }),
      with([](TimingPolicy& p) { p.warmups = -1; }),
      with([](TimingPolicy& p) { p.budget_ms = -1; }),
      with([](TimingPolicy& p) { p.timeout_ms = -1; }),
      with([](TimingPolicy& p) { p.timeout_ms = NAN; }),
      with([](TimingPolicy& p) { p.budget_ms = INFINITY; }),
  };
  for (const auto& p : bad) {
    EXPECT_FALSE(timing_policy_problem(p).empty());
    int calls = 0;
    EXPECT_THROW(time_adaptive([&] { return double(++calls); }, p), Error);
    EXPECT_EQ(calls, 0);
    EXPECT_THROW(verify_then_time_on_host(
                     [] {
                       return RunVerdict{true, 0, ""};
                     },
                     [](size_t) {}, HostRotation{}, p),
                 Error);
  }
  EXPECT_EQ(timing_policy_problem(policy()), "");
  TimingPolicy no_budget = policy();
  no_budget.budget_ms = 0;  // min_reps timed runs, then stop
  int calls = 0;
  const Outcome o = time_adaptive([&] { return double(++calls); }, no_budget);
  EXPECT_EQ(o.status, Status::ok);
  EXPECT_EQ(o.timing.reps, 3);
}

TEST(HostMeasure, VerdictsFailuresAndTimeoutsBecomeStatuses) {
  const auto ok = [] { return RunVerdict{true, 1e-7, ""}; };
  size_t runs = 0;
  const Outcome good = verify_then_time_on_host(
      ok, [&](size_t) { ++runs; }, HostRotation{.copies = 2}, policy());
  EXPECT_EQ(good.status, Status::ok);
  EXPECT_EQ(good.rel_error, 1e-7);
  EXPECT_GE(good.timing.reps, 3);

  const Outcome wrong = verify_then_time_on_host(
      [] {
        return RunVerdict{false, 0.5, "too far"};
      },
      [](size_t) { FAIL() << "a wrong result is never timed"; }, HostRotation{}, policy());
  EXPECT_EQ(wrong.status, Status::wrong);
  EXPECT_EQ(wrong.message, "too far");

  const Outcome failed = verify_then_time_on_host(
      ok, [](size_t) { throw std::runtime_error("boom"); }, HostRotation{}, policy());
  EXPECT_EQ(failed.status, Status::failed);
  EXPECT_EQ(failed.message, "boom");

  TimingPolicy tight = policy();
  tight.timeout_ms = 1e-9;  // no real run is that fast
  const Outcome slow = verify_then_time_on_host(
      ok,
      [](size_t) {
        volatile double x = 0;
        for (int i = 0; i < 100000; ++i) x = x + 1;
      },
      HostRotation{}, tight);
  EXPECT_EQ(slow.status, Status::timeout);
  EXPECT_EQ(slow.rel_error, 1e-7);
  EXPECT_NE(slow.message.find("> timeout"), std::string::npos);
}

TEST(RunInterleaved, EveryRoundRunsEachCandidateOnceInARotatedOrder) {
  std::vector<int> order;
  const TimingPolicy p{.warmups = 1, .min_reps = 2, .max_reps = 5, .budget_ms = 0};
  const auto samples = run_interleaved(
      3,
      [&](int c) {
        order.push_back(c);
        return double(c + 1);
      },
      p);
  // One warm-up round and min_reps 2 timed ones (the budget 0 is met at once).
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 1, 2, 0, 2, 0, 1}));
  ASSERT_EQ(samples.size(), 3u);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(samples[size_t(c)], std::vector<double>(2, c + 1.0));
  EXPECT_EQ(fastest_candidate(samples, false), 0);
  EXPECT_TRUE(run_interleaved(
                  0, [](int) { return 1.0; }, p)
                  .empty());
  EXPECT_EQ(fastest_candidate({{}, {}}, true), -1);
}

// Planted timings of a GPU whose clocks ramp up: the first 4 runs take twice as long. Candidate
// 0 (0.8 ms) is faster than 1 (1.0 ms). Timed one after the other (1 warm-up + 3 runs each, the
// rule ktune-cuda-bf16's per-layer pick had), 0 runs entirely in the ramp and looks slower;
// interleaved rounds with the minimum kept find it, and so does the median of enough rounds.
TEST(RunInterleaved, AClockRampDoesNotDecideTheChoice) {
  const double truth[] = {0.8, 1.0};
  int calls = 0;
  const auto time_once = [&](int c) { return truth[c] * (calls++ < 4 ? 2.0 : 1.0); };
  std::vector<std::vector<double>> one_after_other;
  for (int c = 0; c < 2; ++c)
    one_after_other.push_back(
        run_adaptive([&] { return time_once(c); },
                     TimingPolicy{.warmups = 1, .min_reps = 3, .max_reps = 3, .budget_ms = 0})
            .samples_ms);
  EXPECT_EQ(fastest_candidate(one_after_other, true), 1);  // the wrong pick
  calls = 0;
  const auto samples = run_interleaved(
      2, time_once, TimingPolicy{.warmups = 1, .min_reps = 10, .max_reps = 30, .budget_ms = 0});
  EXPECT_EQ(samples[0].size(), 10u);
  EXPECT_EQ(fastest_candidate(samples, true), 0);
  EXPECT_EQ(fastest_candidate(samples, false), 0);
}

}  // namespace
}  // namespace ktune
