// retime_store (ktune/retime.hpp) on a device of planted timings: a lucky single sample loses
// once re-timed, a linear drift reaches equal configs alike, an interrupted retime resumes, a turn
// that fails verification is stored as such, and every replaced row's original is kept.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/retime.hpp"
#include "ktune/store.hpp"
#include "ktune/timing_loop.hpp"
#include "tests/core/cli_test_util.hpp"
#include "tests/core/sweep_fakes.hpp"

namespace ktune {
namespace {

using testing::FakeFamily;

// Every run of the device: the true time of a config or vendor plus `drift` ms per run made
// before it (a machine slowing down linearly), the order of the runs, and planted failures.
struct Planted {
  std::map<std::string, double> true_ms;  // by config string or vendor name
  double drift = 0;
  int runs = 0;                              // kernel runs so far (turn runs and verification)
  std::vector<std::string> turns;            // name per turn, in order
  std::map<std::string, int> wrong_on_turn;  // name → its n-th turn (1-based) fails verification
  int turns_before_loss = -1;                // counts down; at 0 the next turn throws
  std::vector<std::string> opened;           // problems opened
};

class PlantedSession final : public ProblemSession {
 public:
  PlantedSession(Planted& planted, const Space& space) : p_(planted), space_(space) {}
  Outcome run(const Config& c, const TimingPolicy& policy) override {
    return turn(space_.to_string(c), policy);
  }
  std::vector<std::string> vendors() const override { return {"fakeblas"}; }
  Outcome run_vendor(const std::string& v, const TimingPolicy& policy) override {
    return turn(v, policy);
  }

 private:
  Outcome turn(const std::string& name, const TimingPolicy& policy) {
    if (p_.turns_before_loss-- == 0) throw Error("planted device lost");
    p_.turns.push_back(name);
    Outcome o;
    ++p_.runs;  // the verification run
    int nth = 0;
    for (const auto& t : p_.turns) nth += t == name;
    if (const auto it = p_.wrong_on_turn.find(name);
        it != p_.wrong_on_turn.end() && it->second == nth) {
      o.status = Status::wrong;
      o.message = "planted error above the bound";
      return o;
    }
    std::vector<double> samples;
    for (int i = 0; i < policy.min_reps; ++i)
      samples.push_back(p_.true_ms.at(name) + p_.drift * p_.runs++);
    o.status = Status::ok;
    o.rel_error = 1e-7;
    o.timing = summarize_samples(samples);
    return o;
  }
  Planted& p_;
  const Space& space_;
};

class PlantedBackend final : public Backend {
 public:
  PlantedBackend(Planted& planted, const Space& space) : p_(planted), space_(space) {
    device_.spec = "planted:0";
    device_.backend = "planted";
    device_.name = "Planted Device";
    device_.slug = "planted";
  }
  const DeviceInfo& device() const override { return device_; }
  std::unique_ptr<ProblemSession> open(const Problem& p) override {
    p_.opened.push_back(p.key());
    return std::make_unique<PlantedSession>(p_, space_);
  }

 private:
  Planted& p_;
  const Space& space_;
  DeviceInfo device_;
};

// The configs the tests name (the fake family's space: x in 1..6, y in 1..2).
const char* const kA = "x=1;y=1";
const char* const kB = "x=2;y=1";
const char* const kC = "x=3;y=1";

struct RetimeTest : ::testing::Test {
  FakeFamily family;
  Planted planted;
  PlantedBackend backend{planted, family.space()};
  std::string path = testing::temp_path("retime.sqlite");

  // A stored sweep row of one sample (what a back-to-back sweep leaves).
  void stored(Store& store, const std::string& problem, const std::string& config, double ms,
              Status status = Status::ok) {
    Measurement m;
    m.device = "planted";
    m.family = family.name();
    m.problem = problem;
    m.config = config;
    m.vendor = config == "fakeblas";
    m.config_id = m.vendor ? -1 : family.space().parse(config).id;
    m.outcome.status = status;
    if (status == Status::ok) {
      m.outcome.timing = summarize_samples({ms});
      m.perf = family.flops(Problem::parse(problem)) / ms / 1e6;
    }
    store.put(m);
  }
  std::map<std::string, Measurement> rows(Store& store, const std::string& problem) {
    std::map<std::string, Measurement> out;
    for (auto& m : store.query("planted", family.name()))
      if (m.problem == problem) out[m.config] = m;
    return out;
  }
};

TEST_F(RetimeTest, LuckySingleSampleLosesOnceRetimed) {
  Store store(path);
  stored(store, "n=8", kA, 0.90);  // a lucky sample: A takes 1.00
  stored(store, "n=8", kB, 0.96);  // B takes 0.95
  stored(store, "n=8", kC, 2.00);  // far behind: not re-timed
  stored(store, "n=8", "fakeblas", 1.20);
  planted.true_ms = {{kA, 1.00}, {kB, 0.95}, {kC, 2.00}, {"fakeblas", 1.10}};
  const RetimeSummary s = retime_store(family, backend, store, RetimeOptions{});
  EXPECT_EQ(s.retimed, 1u);
  EXPECT_EQ(s.rows, 3u);  // A, B and the vendor
  EXPECT_EQ(s.picks_changed, 1u);
  auto after = rows(store, "n=8");
  EXPECT_DOUBLE_EQ(after[kA].outcome.timing.median_ms, 1.00);
  EXPECT_DOUBLE_EQ(after[kB].outcome.timing.median_ms, 0.95);
  EXPECT_DOUBLE_EQ(after["fakeblas"].outcome.timing.median_ms, 1.10);
  EXPECT_DOUBLE_EQ(after[kC].outcome.timing.median_ms, 2.00);  // untouched
  EXPECT_EQ(after[kB].outcome.timing.reps, 6 * 3);  // 4 rounds → 6 (two rotations of 3) × 3 reps
  EXPECT_NEAR(after[kB].perf, 512 / 0.95 / 1e6, 1e-12);
  for (const auto& t : planted.turns) EXPECT_NE(t, kC);
  // The originals are kept, one per replaced row.
  std::map<std::string, double> originals;
  for (const auto& m : store.superseded("planted", family.name()))
    originals[m.config] = m.outcome.timing.median_ms;
  EXPECT_EQ(originals, (std::map<std::string, double>{{kA, 0.90}, {kB, 0.96}, {"fakeblas", 1.20}}));
}

TEST_F(RetimeTest, RotationRotatesEveryRound) {
  Store store(path);
  stored(store, "n=8", kA, 1.0);
  stored(store, "n=8", kB, 1.0);
  stored(store, "n=8", "fakeblas", 1.0);
  planted.true_ms = {{kA, 1.0}, {kB, 1.0}, {"fakeblas", 1.0}};
  RetimeOptions options;
  options.rounds = 3;
  retime_store(family, backend, store, options);
  // Round r starts at candidate r (run_interleaved): A, B, vendor / B, vendor, A / vendor, A, B.
  EXPECT_EQ(planted.turns,
            (std::vector<std::string>{kA, kB, "fakeblas", kB, "fakeblas", kA, "fakeblas", kA, kB}));
}

// A machine that slows down linearly while the candidates are timed: equal configs come out
// equal, where a fixed order would make the one timed first look faster.
TEST_F(RetimeTest, LinearDriftReachesEqualConfigsAlike) {
  Store store(path);
  stored(store, "n=8", kA, 1.0);
  stored(store, "n=8", kB, 1.0);
  planted.true_ms = {{kA, 1.0}, {kB, 1.0}};
  planted.drift = 0.01;  // 1 % of the time per run
  RetimeOptions options;
  options.rounds = 3;  // rounded up to 4: two whole rotations of the two
  EXPECT_EQ(whole_rotation_rounds(3, 2), 4);
  retime_store(family, backend, store, options);
  auto after = rows(store, "n=8");
  EXPECT_EQ(planted.turns.size(), 8u);
  EXPECT_DOUBLE_EQ(after[kA].outcome.timing.median_ms, after[kB].outcome.timing.median_ms);
  EXPECT_GT(after[kA].outcome.timing.median_ms, 1.05);  // the drift is there, shared alike
  // The same samples with A always first: A would win by the drift of a turn.
  Planted fixed;
  fixed.true_ms = planted.true_ms;
  fixed.drift = planted.drift;
  PlantedSession session(fixed, family.space());
  std::vector<double> a, b;
  for (int round = 0; round < 4; ++round) {
    for (auto* side : {&a, &b}) {
      const auto o = session.run(family.space().parse(side == &a ? kA : kB), options.turn);
      side->insert(side->end(), o.timing.samples_ms.begin(), o.timing.samples_ms.end());
    }
  }
  EXPECT_LT(median_of_samples(a) + 0.03, median_of_samples(b));
}

TEST_F(RetimeTest, InterruptedRetimeResumesAfterTheLastProblemDone) {
  {
    Store store(path);
    for (const char* p : {"n=8", "n=16"}) {
      stored(store, p, kA, 1.0);
      stored(store, p, kB, 1.05);
    }
  }
  planted.true_ms = {{kA, 1.0}, {kB, 1.0}};
  planted.turns_before_loss = 8;  // n=8's 8 turns (4 rounds of 2), then n=16's first is lost
  {
    Store store(path);
    EXPECT_THROW(retime_store(family, backend, store, RetimeOptions{}), Error);
  }
  {
    Store store(path);
    ASSERT_EQ(store.superseded().size(), 2u);  // n=8 is done, n=16 untouched
    for (const auto& m : store.superseded()) EXPECT_EQ(m.problem, "n=8");
  }
  planted = {};
  planted.true_ms = {{kA, 1.0}, {kB, 1.0}};
  Store store(path);
  const RetimeSummary s = retime_store(family, backend, store, RetimeOptions{});
  EXPECT_EQ(s.already_done, 1u);
  EXPECT_EQ(s.retimed, 1u);
  EXPECT_EQ(planted.opened, std::vector<std::string>{"n=16"});
  EXPECT_EQ(store.superseded().size(), 4u);
  // A second retime finds everything done and runs nothing.
  planted.turns.clear();
  EXPECT_EQ(retime_store(family, backend, store, RetimeOptions{}).already_done, 2u);
  EXPECT_TRUE(planted.turns.empty());
}

TEST_F(RetimeTest, TurnThatFailsVerificationIsStoredAsWrong) {
  Store store(path);
  stored(store, "n=8", kA, 1.0);
  stored(store, "n=8", kB, 1.01);
  planted.true_ms = {{kA, 1.0}, {kB, 0.9}};
  planted.wrong_on_turn[kB] = 2;
  const RetimeSummary s = retime_store(family, backend, store, RetimeOptions{});
  EXPECT_EQ(s.not_ok, 1u);
  auto after = rows(store, "n=8");
  EXPECT_EQ(after[kB].outcome.status, Status::wrong);
  EXPECT_EQ(after[kB].perf, 0);
  EXPECT_NE(after[kB].outcome.message.find("re-timing round 2: planted error"), std::string::npos);
  int b_turns = 0;
  for (const auto& t : planted.turns) b_turns += t == kB;
  EXPECT_EQ(b_turns, 2);  // no turn after the wrong one
  EXPECT_EQ(after[kA].outcome.status, Status::ok);
}

TEST_F(RetimeTest, CandidatesAreTheCloseVerifiedConfigsAndTheVendors) {
  Store store(path);
  stored(store, "n=8", kA, 1.20);
  stored(store, "n=8", kB, 1.00);
  stored(store, "n=8", kC, 1.14);
  stored(store, "n=8", "x=4;y=1", 0.5, Status::wrong);  // never a candidate
  stored(store, "n=8", "fakeblas", 3.0);
  const auto all = store.query();
  std::vector<std::string> names;
  for (const auto& m : retime_candidates(all, 0.15, 4)) names.push_back(m.config);
  EXPECT_EQ(names, (std::vector<std::string>{kB, kC, "fakeblas"}));
  names.clear();
  for (const auto& m : retime_candidates(all, 0.25, 1)) names.push_back(m.config);
  EXPECT_EQ(names, (std::vector<std::string>{kB, "fakeblas"}));
  std::vector<Measurement> vendor_only = {all.back()};
  EXPECT_TRUE(retime_candidates(vendor_only, 0.15, 4).empty());
}

TEST_F(RetimeTest, RestrictedToRequestedProblemsAndNamesMissingInput) {
  Store store(path);
  EXPECT_THROW(
      {
        try {
          retime_store(family, backend, store, RetimeOptions{});
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("no fakefam measurements"), std::string::npos);
          throw;
        }
      },
      Error);
  stored(store, "n=8", kA, 1.0);
  stored(store, "n=16", kA, 1.0);
  RetimeOptions options;
  options.problems = {"n=99"};
  EXPECT_THROW(retime_store(family, backend, store, options), Error);
  planted.true_ms = {{kA, 1.0}};
  options.problems = {"n=16", "n=99"};
  EXPECT_EQ(retime_store(family, backend, store, options).retimed, 1u);
  EXPECT_EQ(planted.opened, std::vector<std::string>{"n=16"});
}

TEST_F(RetimeTest, SupersedeOfAnUnstoredKeyWritesNothing) {
  Store store(path);
  stored(store, "n=8", kA, 1.0);
  auto rows_now = store.query();
  Measurement known = rows_now.front(), unknown = known;
  known.outcome.timing.median_ms = 0.5;
  unknown.problem = "n=9";
  EXPECT_THROW(store.supersede({known, unknown}), Error);
  EXPECT_DOUBLE_EQ(store.query().front().outcome.timing.median_ms, 1.0);
  EXPECT_TRUE(store.superseded().empty());
  // A second retime of a key keeps the first original.
  store.supersede({known});
  known.outcome.timing.median_ms = 0.7;
  store.supersede({known});
  ASSERT_EQ(store.superseded().size(), 1u);
  EXPECT_DOUBLE_EQ(store.superseded().front().outcome.timing.median_ms, 1.0);
  EXPECT_DOUBLE_EQ(store.query().front().outcome.timing.median_ms, 0.7);
}

}  // namespace
}  // namespace ktune
