#pragma once
// Fake devices for run_sweep tests (bench.hpp): a family of its own (12 configs, problems
// "n=<size>" of n^3 FLOPs) and backends that log who measured what, can be slow on one problem
// and can fail after a number of runs, as a sticky CUDA error would.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ktune/bench.hpp"
#include "ktune/error.hpp"
#include "ktune/store.hpp"

namespace ktune::testing {

// Who measured what, shared by the fake workers of one sweep.
struct Log {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, std::vector<int>> runs;  // (problem, config)
  std::map<int, size_t> per_worker;
  std::atomic<int> runs_left_before_error{-1};  // counts down; at 0 the next run throws
  std::string slow_problem;                     // its runs take 20 times longer
};

class FakeSession final : public ProblemSession {
 public:
  FakeSession(Log& log, int worker, std::string problem, const Space& space,
              std::chrono::microseconds delay)
      : log_(log), worker_(worker), problem_(std::move(problem)), space_(space), delay_(delay) {}
  Outcome run(const Config& config, const TimingPolicy&) override {
    return measure(space_.to_string(config));
  }
  std::vector<std::string> vendors() const override { return {"fakeblas"}; }
  Outcome run_vendor(const std::string& vendor, const TimingPolicy&) override {
    return measure(vendor);
  }

 private:
  Outcome measure(const std::string& name) {
    if (log_.runs_left_before_error.fetch_sub(1) == 0)
      throw Error("fake device lost (as a sticky CUDA error would)");
    std::this_thread::sleep_for(problem_ == log_.slow_problem ? 20 * delay_ : delay_);
    {
      std::lock_guard lock(log_.mutex);
      log_.runs[{problem_, name}].push_back(worker_);
      ++log_.per_worker[worker_];
    }
    Outcome o;
    o.status = Status::ok;
    o.timing.median_ms = o.timing.min_ms = o.timing.max_ms = 1.0;
    o.timing.reps = 1;
    o.rel_error = 0;
    return o;
  }
  Log& log_;
  int worker_;
  std::string problem_;
  const Space& space_;
  std::chrono::microseconds delay_;
};

class FakeBackend final : public Backend {
 public:
  FakeBackend(Log& log, int worker, const Space& space, std::chrono::microseconds delay)
      : log_(log), worker_(worker), space_(space), delay_(delay) {
    device_.spec = "fake:" + std::to_string(worker);
    device_.backend = "fake";
    device_.name = "Fake Device";
    device_.slug = "fake-device";
  }
  const DeviceInfo& device() const override { return device_; }
  std::unique_ptr<ProblemSession> open(const Problem& p) override {
    return std::make_unique<FakeSession>(log_, worker_, p.key(), space_, delay_);
  }

 private:
  Log& log_;
  int worker_;
  const Space& space_;
  std::chrono::microseconds delay_;
  DeviceInfo device_;
};

// A family of its own, so the test needs no kernels: 12 configs, problems "n=<size>" whose
// FLOPs are n^3.
class FakeFamily final : public Family {
 public:
  std::string name() const override { return "fakefam"; }
  const Space& space() const override { return space_; }
  std::vector<std::string> feature_names() const override { return {"n"}; }
  std::vector<std::string> derived_feature_names() const override { return {}; }
  std::vector<double> derived_features(const Problem&) const override { return {}; }
  double flops(const Problem& p) const override { return std::pow(p.get("n"), 3); }
  void validate(const Problem&) const override {}

 private:
  Space space_{"fakefam", {Param{"x", {"1", "2", "3", "4", "5", "6"}}, Param{"y", {"1", "2"}}}};
};

struct FakeSweep {
  FakeFamily family;
  Workload workload{"four",
                    {Problem::parse("n=64"), Problem::parse("n=8"), Problem::parse("n=32"),
                     Problem::parse("n=16")}};
  SweepOptions options;
  FakeSweep() { options.timing.min_reps = options.timing.max_reps = 1; }
  SweepWorker worker(Log& log, int index, std::chrono::microseconds delay,
                     const std::string& slug = "") {
    return {[&log, index, delay, this] {
              return std::make_unique<FakeBackend>(log, index, family.space(), delay);
            },
            slug};
  }
  // Workers sharing `log`, worker i waiting delays[i] per run, of device slugs[i] (default: one
  // device).
  std::vector<SweepWorker> workers(Log& log, const std::vector<std::chrono::microseconds>& delays,
                                   const std::vector<std::string>& slugs = {}) {
    std::vector<SweepWorker> w;
    for (size_t i = 0; i < delays.size(); ++i)
      w.push_back(worker(log, int(i), delays[i], i < slugs.size() ? slugs[i] : ""));
    return w;
  }
  // Two workers of one device sharing `log`, each waiting `delay` per run.
  std::vector<SweepWorker> two_workers(Log& log, std::chrono::microseconds delay) {
    return workers(log, {delay, delay});
  }
  // run_sweep of the workload over workers w into store.
  SweepSummary run(Store& store, std::vector<SweepWorker> w) {
    return run_sweep(family, std::move(w), workload, store, options);
  }
  size_t expected_rows() const {
    return workload.problems.size() * (family.space().enumerate().size() + 1);  // + vendor row
  }
};

inline std::set<std::tuple<std::string, std::string, std::string>> keys_of(
    const std::string& path) {
  std::set<std::tuple<std::string, std::string, std::string>> out;
  for (const auto& m : Store(path, Store::Mode::read_only).query())
    out.insert({m.device, m.problem, m.config});
  return out;
}

}  // namespace ktune::testing
