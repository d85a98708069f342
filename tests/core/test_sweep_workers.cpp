// run_sweep over several devices (bench.hpp) with fake backends standing in for GPUs: one queue
// per device slug, dynamic balance between fast and slow workers, big problems cut into config
// batches, a worker's error stopping the sweep with everything measured kept, and the rerun
// completing it; and the device slug rule (shared_device_slugs).
#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "sweep_fakes.hpp"

namespace ktune {
namespace {

using std::chrono::microseconds;
using testing::FakeSweep;
using testing::keys_of;
using testing::Log;
using testing::temp_path;

TEST(SweepWorkers, IdenticalDevicesShareOneQueueAndStoreTheKeysOfOneDevice) {
  FakeSweep s;
  Log one_log, two_log;
  const auto one = temp_path("workers_one.sqlite"), two = temp_path("workers_two.sqlite");
  {
    Store store(one);
    EXPECT_EQ(s.run(store, s.workers(one_log, {microseconds(100)})).measured, s.expected_rows());
  }
  std::vector<size_t> progress;
  s.options.on_progress = [&](size_t done, size_t, const Measurement&) {
    progress.push_back(done);
  };
  {
    Store store(two);
    const SweepSummary sum = s.run(store, s.two_workers(two_log, microseconds(100)));
    EXPECT_EQ(sum.measured, s.expected_rows());
    EXPECT_EQ(sum.by_status[Status::ok], s.expected_rows());
  }
  EXPECT_EQ(keys_of(two), keys_of(one));
  EXPECT_EQ(keys_of(two).size(), s.expected_rows());
  for (const auto& [key, workers] : two_log.runs) EXPECT_EQ(workers.size(), 1u) << key.second;
  EXPECT_GT(two_log.per_worker[0], 0u);
  EXPECT_GT(two_log.per_worker[1], 0u);
  ASSERT_EQ(progress.size(), s.expected_rows());  // one combined count, one step at a time
  for (size_t i = 0; i < progress.size(); ++i) EXPECT_EQ(progress[i], i + 1);
}

TEST(SweepWorkers, AFastDeviceTakesMoreOfTheQueueThanASlowOne) {
  FakeSweep s;
  Log log;
  const auto path = temp_path("workers_balance.sqlite");
  Store store(path);
  s.run(store, s.workers(log, {microseconds(20000), microseconds(200)}));  // slow, fast
  // A static split would give each half; the queue gives the 100x faster device far more.
  EXPECT_GT(log.per_worker[1], 3 * log.per_worker[0])
      << "fast " << log.per_worker[1] << ", slow " << log.per_worker[0];
  EXPECT_EQ(keys_of(path).size(), s.expected_rows());
}

// As the m=64 n=32 k=50176 GEMM on the H200s: few FLOPs (so queued last) but the slowest
// problem by far. The worker that is done first takes half of what is left of it, repeatedly.
TEST(SweepWorkers, AProblemSlowerThanItsFlopsIsSharedByStealingAtTheEnd) {
  FakeSweep s;
  Log log;
  const Problem* least = &s.workload.problems[0];
  for (const auto& p : s.workload.problems)
    if (s.family.flops(p) < s.family.flops(*least)) least = &p;
  log.slow_problem = least->key();
  const auto path = temp_path("workers_steal.sqlite");
  Store store(path);
  s.run(store, s.two_workers(log, microseconds(300)));
  std::map<int, size_t> on_slow;
  for (const auto& [key, workers] : log.runs)
    if (key.first == log.slow_problem)
      for (int worker : workers) ++on_slow[worker];
  EXPECT_GE(on_slow[0], 3u);
  EXPECT_GE(on_slow[1], 3u);
  EXPECT_EQ(keys_of(path).size(), s.expected_rows());
}

TEST(SweepWorkers, DifferentDevicesEachMeasureTheWholeSweepUnderTheirSlug) {
  FakeSweep s;
  Log log;
  const auto path = temp_path("workers_slugs.sqlite");
  {
    Store store(path);
    EXPECT_EQ(
        s.run(store, s.workers(log, {microseconds(50), microseconds(50)}, {"model-a", "model-b"}))
            .measured,
        2 * s.expected_rows());
  }
  const Store store(path, Store::Mode::read_only);
  EXPECT_EQ(store.measured_devices(), (std::vector<std::string>{"model-a", "model-b"}));
  EXPECT_EQ(store.query("model-a").size(), s.expected_rows());
  EXPECT_EQ(store.query("model-b").size(), s.expected_rows());
  ASSERT_EQ(store.devices().size(), 2u);
  EXPECT_EQ(store.devices()[0].name, "Fake Device");
}

TEST(SweepWorkers, AWorkerErrorStopsTheSweepKeepsItsRowsAndARerunFinishesIt) {
  FakeSweep s;
  Log failing, healthy;
  const auto path = temp_path("workers_resume.sqlite");
  failing.runs_left_before_error = 9;
  size_t kept = 0;
  {
    Store store(path);
    try {
      s.run(store, s.two_workers(failing, microseconds(200)));
      ADD_FAILURE() << "the worker's error was not rethrown";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("fake device lost"), std::string::npos);
    }
    kept = store.count();
  }
  EXPECT_GE(kept, 9u);
  EXPECT_LT(kept, s.expected_rows());
  Store store(path);
  const SweepSummary rerun = s.run(store, s.two_workers(healthy, microseconds(50)));
  EXPECT_EQ(rerun.measured, s.expected_rows() - kept);
  EXPECT_EQ(store.count(), s.expected_rows());
  for (const auto& [key, workers] : failing.runs)  // nothing measured before is measured again
    EXPECT_EQ(healthy.runs.count(key), 0u) << key.first << " " << key.second;
}

TEST(SweepWorkers, AWorkerThatCannotOpenItsDeviceFailsBeforeTheStoreIsWritten) {
  FakeSweep s;
  Log log;
  const auto path = temp_path("workers_open.sqlite");
  Store store(path);
  std::vector<SweepWorker> w = s.workers(log, {microseconds(50)});
  w.push_back(
      {[]() -> std::unique_ptr<Backend> { throw Error("cuda:7: no such CUDA device"); }, ""});
  EXPECT_THROW(s.run(store, std::move(w)), Error);
  EXPECT_EQ(store.count(), 0u);
  EXPECT_TRUE(store.devices().empty());
}

DeviceInfo gpu(const std::string& name, double cc, double gib) {
  DeviceInfo d;
  d.name = name;
  d.slug = slugify(name);
  d.features = {{"compute_capability", cc}, {"global_mem_bytes", gib * (1 << 30)}};
  return d;
}

TEST(SweepWorkers, IdenticalDevicesShareASlugAndDifferentOnesKeepTheirOwn) {
  EXPECT_EQ(shared_device_slugs({gpu("H200", 9.0, 141), gpu("H200", 9.0, 141)}),
            (std::vector<std::string>{"h200", "h200"}));
  EXPECT_EQ(shared_device_slugs({gpu("H200", 9.0, 141), gpu("A100", 8.0, 80)}),
            (std::vector<std::string>{"h200", "a100"}));
  // One name, two memory sizes: two devices, told apart.
  EXPECT_EQ(shared_device_slugs({gpu("A100", 8.0, 40), gpu("A100", 8.0, 80), gpu("A100", 8.0, 40)}),
            (std::vector<std::string>{"a100-40gib-cc80", "a100-80gib-cc80", "a100-40gib-cc80"}));
}

}  // namespace
}  // namespace ktune
