// run_sweep (include/ktune/bench.hpp): the plan of what each device slug still has to measure,
// one range of configs per problem, and the workers that drain one queue per slug and then
// steal half of each other's ranges.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "ktune/bench.hpp"
#include "ktune/error.hpp"
#include "ktune/provenance.hpp"

namespace ktune {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

// A backend measured under another slug (identical devices share one: device.hpp).
class SlugBackend final : public Backend {
 public:
  SlugBackend(std::unique_ptr<Backend> inner, const std::string& slug)
      : inner_(std::move(inner)), device_(inner_->device()) {
    if (!slug.empty()) device_.slug = slug;
  }
  const DeviceInfo& device() const override { return device_; }
  bool implements(const Config& c) const override { return inner_->implements(c); }
  std::map<std::string, std::string> vendor_descriptions() const override {
    return inner_->vendor_descriptions();
  }
  void prepare(const std::vector<Config>& configs) override { inner_->prepare(configs); }
  std::unique_ptr<ProblemSession> open(const Problem& p) override { return inner_->open(p); }

 private:
  std::unique_ptr<Backend> inner_;
  DeviceInfo device_;
};

// run_sweep over one backend the caller owns.
class BorrowedBackend final : public Backend {
 public:
  explicit BorrowedBackend(Backend& b) : b_(b) {}
  const DeviceInfo& device() const override { return b_.device(); }
  bool implements(const Config& c) const override { return b_.implements(c); }
  std::map<std::string, std::string> vendor_descriptions() const override {
    return b_.vendor_descriptions();
  }
  void prepare(const std::vector<Config>& configs) override { b_.prepare(configs); }
  std::unique_ptr<ProblemSession> open(const Problem& p) override { return b_.open(p); }

 private:
  Backend& b_;
};

// Configs [next, end) of one problem's pending list. `next` advances as a worker measures them,
// and an idle worker may take the upper half (work stealing); both under the sweep's mutex.
struct Range {
  size_t problem = 0;  // index into the workload
  size_t next = 0, end = 0;
  bool vendors = false;  // the problem's vendor baselines are still to measure (after its configs)
  double cost = 0;       // the ordering estimate
};

// What one device slug still has to measure.
struct Group {
  DeviceInfo device;
  size_t workers = 0;
  std::vector<Config> to_prepare;
  std::set<MeasurementKey> existing;
  std::map<size_t, std::vector<const Config*>> pending;  // workload problem -> configs
  std::deque<std::shared_ptr<Range>> queue;
  std::vector<std::shared_ptr<Range>> active;  // ranges workers are measuring
};

class Sweep {
 public:
  Sweep(const Family& family, const Workload& workload, Store& store, const SweepOptions& options,
        size_t workers)
      : family_(family),
        space_(family.space()),
        workload_(workload),
        store_(store),
        options_(options),
        backends_(workers, nullptr),
        group_of_(workers, 0) {}

  // Each worker's thread: open the backend, wait for the plan, measure, close the backend (on the
  // thread that opened it).
  void work(size_t w, const SweepWorker& worker) {
    std::unique_ptr<Backend> backend;
    try {
      backend = std::make_unique<SlugBackend>(worker.open(), worker.slug);
    } catch (...) {
      fail(std::current_exception());
    }
    std::unique_lock lock(mutex_);
    backends_[w] = backend.get();
    ++opened_;
    changed_.notify_all();
    if (w == 0) {
      changed_.wait(lock, [&] { return opened_ == backends_.size(); });
      if (!error_) {
        try {
          plan();
        } catch (...) {
          error_ = std::current_exception();
        }
      }
      planned_ = true;
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return planned_; });
    if (error_) return;
    lock.unlock();
    try {
      Group& group = groups_[group_of_[w]];
      backend->prepare(group.to_prepare);
      drain(*backend, group);
    } catch (...) {
      fail(std::current_exception());
    }
  }

  SweepSummary finish() {
    if (error_) std::rethrow_exception(error_);
    if (g_interrupted)
      throw Error(
          fmt::format("interrupted after {} new measurements; all are stored in '{}', "
                      "rerun the same command to resume",
                      summary_.measured, store_.path()));
    return summary_;
  }

 private:
  void fail(std::exception_ptr e) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = e;
    stop_ = true;
  }

  // Runs on worker 0's thread once every backend is open, under the lock.
  void plan() {
    std::map<std::string, size_t> group_index;
    for (size_t w = 0; w < backends_.size(); ++w) {
      const DeviceInfo& d = backends_[w]->device();
      const auto [it, added] = group_index.emplace(d.slug, groups_.size());
      if (added) {
        groups_.emplace_back();
        groups_.back().device = d;
      }
      group_of_[w] = it->second;
      ++groups_[it->second].workers;
    }
    stamp_store(store_, space_);  // refuses a store of other code before writing
    std::map<std::string, std::vector<std::string>> tags;  // stored even for measured problems
    for (size_t i = 0; i < workload_.problems.size(); ++i)
      if (mine(i) && !workload_.problems[i].tags.empty())
        tags[workload_.problems[i].key()] = workload_.problems[i].tags;
    store_.put_tags(family_.name(), tags);
    for (size_t g = 0; g < groups_.size(); ++g) {
      size_t w = 0;
      while (group_of_[w] != g) ++w;
      if (options_.vendors) stamp_vendors(store_, *backends_[w]);  // refuses other vendor builds
      plan_group(groups_[g], *backends_[w]);
    }
    g_interrupted = 0;
    previous_handler_ = std::signal(SIGINT, on_interrupt);
    start_ = std::chrono::steady_clock::now();
  }

  bool mine(size_t problem) const {
    return int(problem % size_t(options_.shard.count)) == options_.shard.index;
  }

  void plan_group(Group& group, const Backend& backend) {
    // A family's kinds may be backend-specific (a CPU-only kernel): the others are not part of
    // this device's space and are neither run nor recorded.
    for (const Config& c : options_.configs.empty() ? space_.enumerate() : options_.configs)
      if (backend.implements(c)) configs_[group.device.slug].push_back(c);
    const auto& configs = configs_[group.device.slug];
    if (configs.empty())
      throw Error(fmt::format("none of the requested {} configs has a kernel on device '{}'",
                              space_.family(), group.device.slug));
    store_.put_device(group.device);
    group.existing = store_.keys(group.device.slug, family_.name());
    std::vector<bool> prepare_seen(size_t(space_.product_size()), false);
    std::vector<double> flops;
    for (size_t i = 0; i < workload_.problems.size(); ++i) {
      if (!mine(i)) continue;
      const std::string key = workload_.problems[i].key();
      auto& pending = group.pending[i];
      for (const Config& c : configs) {
        ++summary_.planned;
        if (group.existing.count({group.device.slug, family_.name(), key, space_.to_string(c)})) {
          ++summary_.skipped_existing;
          continue;
        }
        if (!prepare_seen[size_t(c.id)]) {
          prepare_seen[size_t(c.id)] = true;
          group.to_prepare.push_back(c);
        }
        pending.push_back(&c);
      }
      flops.push_back(family_.flops(workload_.problems[i]));
    }
    queue_ranges(group, flops);
  }

  // One range per problem. One worker takes them in workload order; several take the most
  // expensive first, estimating a measurement's cost as its FLOPs plus the median problem's (a
  // fixed overhead per launch, verification and timing). The estimate only orders: a problem it
  // misjudges is shared out by stealing at the end, so the workers still finish together.
  void queue_ranges(Group& group, std::vector<double> flops) {
    double overhead = 0;
    if (!flops.empty()) {
      std::nth_element(flops.begin(), flops.begin() + long(flops.size() / 2), flops.end());
      overhead = flops[flops.size() / 2];
    }
    for (const auto& [problem, pending] : group.pending) {
      if (pending.empty() && !options_.vendors) continue;
      const double each = family_.flops(workload_.problems[problem]) + overhead;
      group.queue.push_back(std::make_shared<Range>(
          Range{problem, 0, pending.size(), options_.vendors, each * double(pending.size())}));
    }
    if (group.workers > 1)
      std::stable_sort(group.queue.begin(), group.queue.end(),
                       [](const auto& a, const auto& b) { return a->cost > b->cost; });
  }

  // Under the lock: the next range from the queue or, once it is empty, the upper half of the
  // configs another worker has left (the range with the most; at least 2 left).
  std::shared_ptr<Range> take(Group& group) {
    if (!group.queue.empty()) {
      auto range = group.queue.front();
      group.queue.pop_front();
      return range;
    }
    std::shared_ptr<Range> victim;
    size_t most = 1;
    for (const auto& r : group.active) {
      if (r->end - r->next > most) {
        most = r->end - r->next;
        victim = r;
      }
    }
    if (!victim) return nullptr;
    auto half = std::make_shared<Range>(*victim);
    half->vendors = false;
    half->next = victim->next + most / 2;
    victim->end = half->next;
    return half;
  }

  bool out_of_budget() const {
    if (!options_.budget_ms) return false;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    return std::chrono::duration<double, std::milli>(elapsed).count() > *options_.budget_ms;
  }

  // What a worker does next, under the lock: nothing (false), the vendor baselines of its
  // finished range (*vendors), or the pending config *index of *range.
  bool next(Group& group, std::shared_ptr<Range>& range, bool* vendors, size_t* index) {
    std::lock_guard lock(mutex_);
    if (!keep_going_locked()) return false;
    *vendors = false;
    while (!range || range->next >= range->end) {
      // A problem's vendor baselines come after its configs, as on one device (so the rows a
      // killed sweep left are its configs' first, as `already stored` counts them).
      if (range && std::exchange(range->vendors, false)) {
        *vendors = true;
        return true;
      }
      if (range) std::erase(group.active, range);
      range = take(group);
      if (!range) return false;
      group.active.push_back(range);
    }
    *index = range->next++;
    return true;
  }

  // Under the lock: whether to start another measurement (no error, interrupt or budget end).
  bool keep_going_locked() {
    if (stop_ || g_interrupted) return false;
    if (out_of_budget()) {
      summary_.budget_exhausted = true;
      stop_ = true;
      return false;
    }
    return true;
  }

  bool keep_going() {
    std::lock_guard lock(mutex_);
    return keep_going_locked();
  }

  void drain(Backend& backend, Group& group) {
    const std::string& slug = group.device.slug;
    std::unique_ptr<ProblemSession> session;
    size_t session_problem = SIZE_MAX;
    std::string open_error;
    std::shared_ptr<Range> range;
    bool vendors = false;
    size_t index = 0;
    while (next(group, range, &vendors, &index)) {
      const Problem& problem = workload_.problems[range->problem];
      const std::string key = problem.key();
      if (range->problem != session_problem) {  // a worker's next range is often the same problem
        session.reset();
        open_error.clear();
        session_problem = range->problem;
        try {
          session = backend.open(problem);
        } catch (const std::exception& e) {
          open_error = e.what();
        }
      }
      if (vendors) {  // vendors are only known once a session exists
        if (!session) continue;
        for (const auto& v : session->vendors()) {
          if (group.existing.count({slug, family_.name(), key, v})) continue;
          if (!keep_going()) return;
          measure(session.get(), open_error, problem, slug, nullptr, v);
        }
        continue;
      }
      const Config* config = group.pending.at(range->problem)[index];
      measure(session.get(), open_error, problem, slug, config, space_.to_string(*config));
    }
  }

  void measure(ProblemSession* session, const std::string& open_error, const Problem& problem,
               const std::string& slug, const Config* config, const std::string& name) {
    Measurement m;
    m.device = slug;
    m.family = family_.name();
    m.problem = problem.key();
    m.config = name;
    m.config_id = config ? config->id : -1;
    m.vendor = !config;
    if (!session) {
      m.outcome.status = Status::failed;
      m.outcome.message = "could not open problem: " + open_error;
    } else if (config) {
      if (auto why = space_.violates(*config)) {
        m.outcome.status = Status::refused;
        m.outcome.message = *why;
      } else {
        m.outcome = session->run(*config, options_.timing);
      }
    } else {
      m.outcome = session->run_vendor(name, options_.timing);
    }
    if (m.outcome.status == Status::ok && m.outcome.timing.median_ms > 0)
      m.perf = family_.flops(problem) / m.outcome.timing.median_ms / 1e6;  // GFLOP/s
    record(m);
  }

  // One writer at a time: the store's connection, the summary and the progress callback.
  void record(const Measurement& m) {
    std::lock_guard lock(mutex_);
    store_.put(m);
    ++summary_.measured;
    ++summary_.by_status[m.outcome.status];
    const size_t total = summary_.planned - summary_.skipped_existing;
    if (options_.on_progress)
      options_.on_progress(summary_.measured, std::max(total, summary_.measured), m);
  }

 public:
  void restore_signal() {
    if (previous_handler_ != SIG_ERR && planned_) std::signal(SIGINT, previous_handler_);
  }

 private:
  const Family& family_;
  const Space& space_;
  const Workload& workload_;
  Store& store_;
  const SweepOptions& options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Backend*> backends_;
  std::vector<size_t> group_of_;
  std::vector<Group> groups_;
  std::map<std::string, std::vector<Config>> configs_;  // per slug; items point into these
  size_t opened_ = 0;
  bool planned_ = false, stop_ = false;
  std::exception_ptr error_;
  SweepSummary summary_;
  std::chrono::steady_clock::time_point start_;
  void (*previous_handler_)(int) = SIG_ERR;
};

}  // namespace

SweepSummary run_sweep(const Family& family, std::vector<SweepWorker> workers,
                       const Workload& workload, Store& store, const SweepOptions& options) {
  if (workers.empty()) throw Error("sweep: no device to measure on");
  Sweep sweep(family, workload, store, options, workers.size());
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers.size(); ++w)
    threads.emplace_back([&sweep, &workers, w] { sweep.work(w, workers[w]); });
  sweep.work(0, workers[0]);
  for (auto& t : threads) t.join();
  sweep.restore_signal();
  return sweep.finish();
}

SweepSummary run_sweep(const Family& family, Backend& backend, const Workload& workload,
                       Store& store, const SweepOptions& options) {
  std::vector<SweepWorker> one(1);
  one[0].open = [&backend] { return std::make_unique<BorrowedBackend>(backend); };
  return run_sweep(family, std::move(one), workload, store, options);
}

}  // namespace ktune
