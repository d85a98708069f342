// The tune-and-remember runtime (src/remember) on a fake library: the remembered answer wins,
// ties go to the smaller config string, the budget bounds a first call, the cache serves a
// second process, two processes hammering one cache agree on every answer, and a corrupt cache
// is reported in one line, left as it was, while the selector's answers are served; a first
// call's candidate order (remember::candidate_order, every family's libraries).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ktune/remember.hpp"
#include "src/remember/remember_tune.hpp"
#include "tests/remember/fake_library.hpp"
#include "tests/remember/remember_test_util.hpp"

namespace {

using ktune_test::fake_choose;

ktune::RememberSettings settings_for(const std::string& cache, double budget_ms = 100) {
  ktune::RememberSettings s;
  s.cache = cache;
  s.budget_ms = budget_ms;
  return s;
}

// Config 2 is the fastest, 0 (the selector's answer) the slowest.
double two_fastest(int config) { return config == 2 ? 20 : 400; }

// shape -> (answer, runs) from a worker's output.
std::map<long, std::pair<int, int>> worker_answers(const std::string& output) {
  std::map<long, std::pair<int, int>> out;
  std::istringstream in(ktune_test::read_file(output));
  long shape;
  int answer, runs;
  while (in >> shape >> answer >> runs) out[shape] = {answer, runs};
  return out;
}

TEST(Remember, TheFastestIsRememberedAndTheRememberedAnswerWins) {
  const std::string cache = ktune_test::fresh_path("wins.sqlite");
  ktune::remember_enable(settings_for(cache));
  int runs = 0;
  EXPECT_EQ(fake_choose(1, two_fastest, &runs), 2);
  EXPECT_GT(runs, 0);
  // A new start (memory forgotten) where config 0 became the fastest: the cache still says 2,
  // and nothing is timed again.
  ktune::remember_enable(settings_for(cache));
  runs = 0;
  EXPECT_EQ(fake_choose(
                1, [](int config) { return config == 0 ? 20.0 : 400.0; }, &runs),
            2);
  EXPECT_EQ(runs, 0);
  ktune::remember_disable();
}

TEST(Remember, EqualTimesGoToTheSmallerConfigString) {
  std::vector<ktune::RememberedTiming> timings(3);
  timings[0].config = "c=2";
  timings[1].config = "c=0";
  timings[2].config = "c=1";
  for (auto& t : timings) t.median_ms = 1.5;
  EXPECT_EQ(ktune::remember::winner_of(timings).config, "c=0");
  timings[2].median_ms = 1.25;
  EXPECT_EQ(ktune::remember::winner_of(timings).config, "c=1");
}

TEST(Remember, TheBudgetBoundsTheFirstCall) {
  // Runs of 4 ms: the sweep's policy would time 3 candidates x (1 + 5) runs = 72 ms; a 20 ms
  // budget starts no run after 20 ms, so at most 20 / 4 + 1 runs happen.
  const std::string cache = ktune_test::fresh_path("budget.sqlite");
  ktune::remember_enable(settings_for(cache, 20));
  int runs = 0;
  const auto start = std::chrono::steady_clock::now();
  fake_choose(
      7, [](int) { return 4000.0; }, &runs);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(runs, 0);
  EXPECT_LE(runs, 6);
  EXPECT_GE(ms, 20.0);
  // A zero budget times nothing and remembers nothing: the selector's answer is served.
  ktune::remember_enable(settings_for(cache, 0));
  runs = 0;
  EXPECT_EQ(fake_choose(8, two_fastest, &runs), 0);
  EXPECT_EQ(runs, 0);
  ktune::remember_disable();
  for (const auto& t : ktune::read_remembered(cache)) EXPECT_NE(t.problem, "s=8");
}

// A library's one-time setup (remember::Prepare): run once per first call that times, with the
// candidates it times, before the budget starts (a setup longer than the budget still leaves the
// runs their budget); never for an answer in memory or in the cache; a throwing one leaves the
// runs to go on.
TEST(Remember, PrepareRunsOnceBeforeTheBudgetWithTheTimedCandidates) {
  const std::string cache = ktune_test::fresh_path("prepare.sqlite");
  ktune::RememberSettings settings = settings_for(cache, 20);
  settings.candidates = 2;
  ktune::remember_enable(settings);
  ktune::remember::Shape shape;
  shape.values[shape.count++] = 11;
  const int candidates[] = {1, 2, 0};
  int prepared = 0, runs = 0;
  std::vector<int> seen;
  auto choose = [&](const ktune::remember::Prepare& prepare) {
    return ktune::remember::choose_measured(
        ktune_test::kFakeLibrary, ktune_test::kFakeDevice, shape,
        [&] { return "s=" + std::to_string(shape.values[0]); }, candidates, 3,
        [&](int config) {
          ++runs;
          return config == 2 ? 0.5 : 2.0;  // milliseconds, as a library measures them
        },
        prepare);
  };
  auto slow_setup = [&](const int* timed, int count) {
    ++prepared;
    seen.assign(timed, timed + count);
    ktune_test::busy_wait_us(40000);  // twice the budget
  };
  EXPECT_EQ(choose(slow_setup), 2);
  EXPECT_EQ(prepared, 1);
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));  // the two candidates timed, in order
  EXPECT_GT(runs, 0);                         // the budget was still there for the runs
  runs = 0;
  EXPECT_EQ(choose(slow_setup), 2);  // from memory
  ktune::remember_enable(settings);
  EXPECT_EQ(choose(slow_setup), 2);  // from the cache file
  EXPECT_EQ(prepared, 1);
  EXPECT_EQ(runs, 0);
  // A throwing setup: the runs go on, the winner is stored.
  shape.values[0] = 12;
  EXPECT_EQ(choose([](const int*, int) { throw std::runtime_error("planted setup failure"); }), 2);
  EXPECT_GT(runs, 0);
  ktune::remember_disable();
}

TEST(Remember, ASecondProcessServesTheCachedAnswersWithoutTiming) {
  const std::string cache = ktune_test::fresh_path("second.sqlite");
  ktune::remember_enable(settings_for(cache));
  std::map<long, int> mine;
  for (long s = 0; s < 5; ++s) {
    int runs = 0;
    mine[s] = fake_choose(
        s, [s](int config) { return config == s % 3 ? 20.0 : 300.0; }, &runs);
    EXPECT_EQ(mine[s], s % 3);
  }
  ktune::remember_disable();
  const std::string output = ktune_test::fresh_path("second.txt");
  const pid_t pid =
      ktune_test::spawn({KTUNE_REMEMBER_WORKER, "5", output}, {"KTUNE_REMEMBER=" + cache});
  ASSERT_EQ(ktune_test::wait_exit_code(pid), 0);
  const auto theirs = worker_answers(output);
  ASSERT_EQ(theirs.size(), 5u);
  for (const auto& [s, answer_runs] : theirs) {
    EXPECT_EQ(answer_runs.first, mine[s]) << "shape " << s;
    EXPECT_EQ(answer_runs.second, 0) << "shape " << s << " was timed again";
  }
}

TEST(Remember, OffWithoutTheEnvironmentVariable) {
  const std::string output = ktune_test::fresh_path("off.txt");
  ASSERT_EQ(ktune_test::wait_exit_code(ktune_test::spawn({KTUNE_REMEMBER_WORKER, "3", output}, {})),
            0);
  EXPECT_EQ(ktune_test::read_file(output), "off\n");
}

TEST(Remember, ThreadsOfOneProcessTimeEachShapeOnceAndAgree) {
  const std::string cache = ktune_test::fresh_path("threads.sqlite");
  ktune::remember_enable(settings_for(cache));
  constexpr int kThreads = 4, kShapes = 40;
  std::vector<std::vector<int>> answers(kThreads, std::vector<int>(kShapes));
  std::vector<std::vector<int>> runs(kThreads, std::vector<int>(kShapes));  // per call
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int s = 0; s < kShapes; ++s)
        answers[size_t(t)][size_t(s)] = fake_choose(
            s, [t](int config) { return 20.0 + 30.0 * ((config + t) % 3); },
            &runs[size_t(t)][size_t(s)]);
    });
  for (auto& thread : threads) thread.join();
  ktune::remember_disable();
  for (int s = 0; s < kShapes; ++s) {
    int timed_by = 0;
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(answers[size_t(t)][size_t(s)], answers[0][size_t(s)]) << "shape " << s;
      timed_by += runs[size_t(t)][size_t(s)] > 0;
    }
    EXPECT_EQ(timed_by, 1) << "shape " << s;
  }
  size_t winners = 0;
  for (const auto& timing : ktune::read_remembered(cache)) winners += timing.winner;
  EXPECT_EQ(winners, size_t(kShapes));
}

TEST(Remember, AnUnusableEnvironmentValueIsOneLineAndLeavesItOff) {
  const std::string cache = ktune_test::fresh_path("env.sqlite");
  const std::string output = ktune_test::fresh_path("env.txt");
  const std::string err = ktune_test::fresh_path("env.err");
  const pid_t pid =
      ktune_test::spawn({KTUNE_REMEMBER_WORKER, "3", output},
                        {"KTUNE_REMEMBER=" + cache, "KTUNE_REMEMBER_BUDGET_MS=soon"}, err);
  ASSERT_EQ(ktune_test::wait_exit_code(pid), 0);
  EXPECT_EQ(ktune_test::read_file(output), "off\n");
  EXPECT_EQ(ktune_test::read_file(err),
            "ktune: KTUNE_REMEMBER_BUDGET_MS: 'soon' is not a number of milliseconds >= 0; "
            "tune-and-remember stays off\n");
  EXPECT_FALSE(std::filesystem::exists(cache));
}

TEST(Remember, TwoProcessesHammeringOneCacheAgreeOnEveryAnswer) {
  const std::string cache = ktune_test::fresh_path("hammer.sqlite");
  const std::string out_a = ktune_test::fresh_path("hammer-a.txt");
  const std::string out_b = ktune_test::fresh_path("hammer-b.txt");
  const long shapes = 150;
  const pid_t a = ktune_test::spawn({KTUNE_REMEMBER_WORKER, std::to_string(shapes), out_a},
                                    {"KTUNE_REMEMBER=" + cache});
  const pid_t b = ktune_test::spawn({KTUNE_REMEMBER_WORKER, std::to_string(shapes), out_b},
                                    {"KTUNE_REMEMBER=" + cache});
  ASSERT_EQ(ktune_test::wait_exit_code(a), 0);
  ASSERT_EQ(ktune_test::wait_exit_code(b), 0);
  const auto answers_a = worker_answers(out_a), answers_b = worker_answers(out_b);
  ASSERT_EQ(answers_a.size(), size_t(shapes));
  ASSERT_EQ(answers_b.size(), size_t(shapes));
  std::map<std::string, std::string> winners;  // the cache's answers
  int timed_by_both = 0;
  for (const auto& t : ktune::read_remembered(cache))
    if (t.winner) winners[t.problem] = t.config;
  ASSERT_EQ(winners.size(), size_t(shapes));
  for (long s = 0; s < shapes; ++s) {
    EXPECT_EQ(answers_a.at(s).first, answers_b.at(s).first) << "shape " << s;
    EXPECT_EQ(ktune_test::kFakeConfigs[answers_a.at(s).first], winners["s=" + std::to_string(s)]);
    timed_by_both += answers_a.at(s).second > 0 && answers_b.at(s).second > 0;
  }
  RecordProperty("shapes_timed_by_both", timed_by_both);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(cache.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* check = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &check, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
  sqlite3_finalize(check);
  sqlite3_close(db);
}

TEST(Remember, ACorruptCacheIsReportedLeftAloneAndTheSelectorServes) {
  const std::string cache = ktune_test::fresh_path("corrupt.sqlite");
  {
    std::ofstream out(cache, std::ios::binary);
    out << std::string(4096, 'x');
  }
  const std::string before = ktune_test::read_file(cache);
  ktune::remember_enable(settings_for(cache));
  testing::internal::CaptureStderr();
  int runs = 0;
  EXPECT_EQ(fake_choose(3, two_fastest, &runs), 0);  // the selector's answer
  EXPECT_EQ(fake_choose(4, two_fastest, &runs), 0);
  const std::string err = testing::internal::GetCapturedStderr();
  ktune::remember_disable();
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find(cache), std::string::npos) << err;
  EXPECT_EQ(ktune_test::read_file(cache), before);
  EXPECT_THROW(ktune::read_remembered(cache), std::runtime_error);
}

TEST(Remember, AnotherSQLiteDatabaseIsNotTakenForACache) {
  const std::string other = ktune_test::fresh_path("other.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1);", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  const std::string before = ktune_test::read_file(other);
  ktune::remember_enable(settings_for(other));
  testing::internal::CaptureStderr();
  int runs = 0;
  EXPECT_EQ(fake_choose(5, two_fastest, &runs), 0);
  const std::string err = testing::internal::GetCapturedStderr();
  ktune::remember_disable();
  EXPECT_NE(err.find("not a ktune remember cache"), std::string::npos) << err;
  EXPECT_EQ(ktune_test::read_file(other), before);
}

TEST(Remember, CandidatesArePickEarlyThenSafeOrder) {
  const int safe[] = {1, 4, 0, 2, 3};
  std::vector<int> out(5, -1);
  EXPECT_EQ(ktune::remember::candidate_order(2, safe, 5, out.data()), 5);
  EXPECT_EQ(out, (std::vector<int>{2, 1, 4, 0, 3}));
  EXPECT_EQ(ktune::remember::candidate_order(1, safe, 5, out.data()), 5);
  EXPECT_EQ(out, (std::vector<int>{1, 4, 0, 2, 3}));
  // An early config (a vendor call) right after the pick, once, whatever the safe order says.
  EXPECT_EQ(ktune::remember::candidate_order(2, safe, 5, out.data(), 3), 5);
  EXPECT_EQ(out, (std::vector<int>{2, 3, 1, 4, 0}));
  EXPECT_EQ(ktune::remember::candidate_order(3, safe, 5, out.data(), 3), 5);
  EXPECT_EQ(out, (std::vector<int>{3, 1, 4, 0, 2}));
  const int one[] = {0};
  std::vector<int> single(1, -1);
  EXPECT_EQ(ktune::remember::candidate_order(0, one, 1, single.data(), 0), 1);
  EXPECT_EQ(single, std::vector<int>{0});
}

TEST(Remember, UnusableSettingsAreRefused) {
  ktune::RememberSettings s = settings_for("x.sqlite", -1);
  EXPECT_THROW(ktune::remember_enable(s), std::invalid_argument);
  s.budget_ms = 10;
  s.candidates = 0;
  EXPECT_THROW(ktune::remember_enable(s), std::invalid_argument);
}

}  // namespace
