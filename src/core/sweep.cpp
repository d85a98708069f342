// run_sweep (include/ktune/bench.hpp): one search per device slug (the exhaustive strategy unless
// another is given), in rounds. A round's picks are queued as one range of configs per problem;
// the slug's workers drain the queue and then steal the upper half of each other's ranges; the
// worker that stores the round's last measurement records the round into the search state and
// plans the next one.
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
#include "ktune/search.hpp"
#include "src/core/sweep_backends.hpp"

namespace ktune {
namespace {

using sweep_backends::WorkerBackend;

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

// Picks [next, end) of one problem in this round. `next` advances as a worker measures them, and
// an idle worker may take the upper half (work stealing); both under the sweep's mutex.
struct Range {
  size_t row = 0;  // the group's searched row
  size_t next = 0, end = 0;
  bool vendors = false;  // the problem's vendor baselines are still to measure (after its picks)
  double cost = 0;       // the ordering estimate
};

// A measured pick, recorded into the state when its round ends (in pick order, so the state does
// not depend on which worker finished first).
struct Result {
  bool measured = false, ok = false;
  double perf = 0;
};

// One device slug's search.
struct Group {
  DeviceInfo device;
  const ReplayBackend* replay = nullptr;
  size_t workers = 0;
  std::vector<Config> configs;   // the state's columns
  std::vector<size_t> problems;  // the workload index of each searched row
  SearchState state;
  std::set<std::pair<std::string, std::string>> vendors_stored;  // (problem, vendor)
  std::vector<bool> vendors_left;                                // per searched row
  double overhead = 0;  // the cost estimate of a measurement besides its FLOPs
  // The current round.
  size_t round = 0;
  std::vector<std::vector<Eigen::Index>> picks;  // per searched row
  std::vector<std::vector<Result>> results;
  std::vector<Config> round_configs;
  std::deque<std::shared_ptr<Range>> queue;
  std::vector<std::shared_ptr<Range>> active;  // ranges workers are measuring
  size_t busy = 0;                             // workers measuring a task of this round
  bool done = false;
};

// A worker's place in its group.
struct Cursor {
  std::shared_ptr<Range> range;
  bool busy = false;
  size_t prepared = 0;  // the round whose configs its backend prepared
};

struct Task {
  size_t row = 0, index = 0;  // the pick, unless vendors
  bool vendors = false;
  std::vector<Config> prepare;  // the round's configs, when the worker has not prepared them
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
        exhaustive_(exhaustive_strategy()),
        strategy_(options.strategy ? *options.strategy : *exhaustive_),
        backends_(workers, nullptr),
        group_of_(workers, 0) {}

  // Each worker's thread: open the backend, wait for the plan, measure, close the backend (on the
  // thread that opened it).
  void work(size_t w, const SweepWorker& worker) {
    std::unique_ptr<WorkerBackend> backend;
    try {
      std::unique_ptr<Backend> own = worker.open();
      Backend& inner = *own;
      backend = std::make_unique<WorkerBackend>(std::move(own), inner, worker.slug);
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
      drain(*backend, groups_[group_of_[w]]);
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

  void restore_signal() {
    if (previous_handler_ != SIG_ERR && planned_) std::signal(SIGINT, previous_handler_);
  }

 private:
  void fail(std::exception_ptr e) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = e;
    stop_ = true;
    changed_.notify_all();
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
        groups_.back().replay = backends_[w]->replay();
      }
      group_of_[w] = it->second;
      ++groups_[it->second].workers;
    }
    // Replayed rows were measured by other code: this build's provenance is not theirs.
    if (std::any_of(groups_.begin(), groups_.end(), [](const Group& g) { return !g.replay; }))
      stamp_store(store_, space_);  // refuses a store of other code before writing
    std::map<std::string, std::vector<std::string>> tags;  // stored even for measured problems
    for (size_t i = 0; i < workload_.problems.size(); ++i)
      if (mine(i) && !workload_.problems[i].tags.empty())
        tags[workload_.problems[i].key()] = workload_.problems[i].tags;
    store_.put_tags(family_.name(), tags);
    for (size_t g = 0; g < groups_.size(); ++g) {
      size_t w = 0;
      while (group_of_[w] != g) ++w;
      if (options_.vendors && !groups_[g].replay)
        stamp_vendors(store_, *backends_[w]);  // refuses other vendor builds
      plan_group(groups_[g], *backends_[w]);
    }
    g_interrupted = 0;
    previous_handler_ = std::signal(SIGINT, on_interrupt);
    start_ = std::chrono::steady_clock::now();
  }

  bool mine(size_t problem) const {
    return int(problem % size_t(options_.shard.count)) == options_.shard.index;
  }

  // The group's search state from the store (what is stored counts as measured) and its first
  // round.
  void plan_group(Group& group, const Backend& backend) {
    // A family's kinds may be backend-specific (a CPU-only kernel): the others are not part of
    // this device's space and are neither run nor recorded.
    for (const Config& c : options_.configs.empty() ? space_.enumerate() : options_.configs)
      if (backend.implements(c)) group.configs.push_back(c);
    if (group.configs.empty())
      throw Error(fmt::format("none of the requested {} configs has a kernel on device '{}'",
                              space_.family(), group.device.slug));
    const std::string& slug = group.device.slug;
    bool known = false;  // a replay never overwrites a real device's features
    if (group.replay)
      for (const auto& d : store_.devices()) known |= d.slug == slug;
    if (!known) store_.put_device(group.device);
    std::vector<Problem> problems;
    std::set<std::string> keys;
    std::vector<double> flops;
    for (size_t i = 0; i < workload_.problems.size(); ++i) {
      if (!mine(i)) continue;
      group.problems.push_back(i);
      problems.push_back(workload_.problems[i]);
      keys.insert(problems.back().key());
      flops.push_back(family_.flops(problems.back()));
    }
    std::vector<Measurement> stored = store_.query(slug, family_.name());
    for (const auto& m : stored)
      if (m.vendor) group.vendors_stored.insert({m.problem, m.config});
    if (!options_.strategy)  // exhaustive learns nothing from other problems
      std::erase_if(stored, [&](const Measurement& m) { return !keys.count(m.problem); });
    group.state =
        make_search_state(family_, problems, group.configs, slug, stored,
                          options_.strategy ? options_.prior : std::vector<Measurement>{});
    const auto n = Eigen::Index(problems.size());
    if (group.replay)  // a problem's candidates are the configs the data holds for it
      for (Eigen::Index r = 0; r < n; ++r)
        for (Eigen::Index c = 0; c < group.state.cols(); ++c)
          group.state.candidate(r, c) =
              group.replay->find(group.state.problem_keys[size_t(r)],
                                 group.state.config_names[size_t(c)]) != nullptr;
    for (Eigen::Index r = 0; r < n; ++r) {
      const auto candidates = int64_t(group.state.candidate.row(r).count());
      summary_.planned += size_t(options_.budget.limit(candidates));
      summary_.skipped_existing += size_t(group.state.measured(r));
      summary_.candidates += size_t(candidates);
    }
    summary_.prior_rows += size_t(group.state.rows() - n);
    remaining_ += size_t(search_remaining(group.state, options_.budget));
    group.vendors_left.assign(size_t(n), options_.vendors);
    // A measurement's cost: its FLOPs plus the median problem's (a fixed overhead per launch,
    // verification and timing). The estimate only orders: a problem it misjudges is shared out
    // by stealing at the end of the round, so the workers still finish together.
    if (!flops.empty()) {
      std::nth_element(flops.begin(), flops.begin() + long(flops.size() / 2), flops.end());
      group.overhead = flops[flops.size() / 2];
    }
    start_round(group);
  }

  // Under the lock: the strategy's next picks, one range per problem. One worker takes them in
  // workload order; several take the most expensive first.
  void start_round(Group& group) {
    const SearchRound round = plan_round(group.state, strategy_, options_.budget);
    const size_t n = group.problems.size();
    group.picks.assign(n, {});
    group.results.assign(n, {});
    std::vector<bool> used(group.configs.size(), false);
    for (size_t i = 0; i < round.rows.size(); ++i) {
      const auto r = size_t(round.rows[i]);
      group.picks[r] = round.picks[i];
      group.results[r].assign(round.picks[i].size(), {});
      for (const Eigen::Index c : round.picks[i]) used[size_t(c)] = true;
    }
    if (!round.rows.empty()) ++summary_.rounds;
    group.round_configs.clear();
    for (size_t c = 0; c < used.size(); ++c)
      if (used[c]) group.round_configs.push_back(group.configs[c]);
    group.active.clear();
    for (size_t r = 0; r < n; ++r) {
      if (group.picks[r].empty() && !group.vendors_left[r]) continue;
      const double each = family_.flops(workload_.problems[group.problems[r]]) + group.overhead;
      group.queue.push_back(
          std::make_shared<Range>(Range{r, 0, group.picks[r].size(), group.vendors_left[r],
                                        each * double(group.picks[r].size())}));
      group.vendors_left[r] = false;
    }
    if (group.workers > 1)
      std::stable_sort(group.queue.begin(), group.queue.end(),
                       [](const auto& a, const auto& b) { return a->cost > b->cost; });
    ++group.round;
    group.done = group.queue.empty();  // also a strategy that proposes nothing more
  }

  // Under the lock, once every pick of the round is measured (or the sweep stops).
  void end_round(Group& group) {
    for (size_t r = 0; r < group.picks.size(); ++r)
      for (size_t j = 0; j < group.picks[r].size(); ++j)
        if (const Result& x = group.results[r][j]; x.measured)
          group.state.record(Eigen::Index(r), group.picks[r][j], x.ok, x.perf);
    start_round(group);
  }

  // Under the lock: the next range from the queue or, once it is empty, the upper half of the
  // picks another worker has left (the range with the most; at least 2 left).
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

  // Under the lock: the vendor baselines of the worker's finished range, its next pick, or one
  // of another range; false when the round has nothing left to hand out.
  bool take_task(Group& group, Cursor& cur, Task& task) {
    while (!cur.range || cur.range->next >= cur.range->end) {
      // A problem's vendor baselines come after its picks (so the rows a killed sweep left are
      // its configs' first, as `already stored` counts them).
      if (cur.range && std::exchange(cur.range->vendors, false)) {
        task.row = cur.range->row;
        task.vendors = true;
        return true;
      }
      if (cur.range) std::erase(group.active, cur.range);
      cur.range = take(group);
      if (!cur.range) return false;
      group.active.push_back(cur.range);
    }
    task.row = cur.range->row;
    task.index = cur.range->next++;
    task.vendors = false;
    return true;
  }

  bool out_of_budget() const {
    if (!options_.budget_ms) return false;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    return std::chrono::duration<double, std::milli>(elapsed).count() > *options_.budget_ms;
  }

  // What a worker does next: nothing (false: the search is over or stopped) or a task. A worker
  // with nothing left in the round waits for the others; the last one plans the next round.
  bool next(Group& group, Cursor& cur, Task& task) {
    std::unique_lock lock(mutex_);
    if (std::exchange(cur.busy, false)) --group.busy;
    for (;;) {
      if (!keep_going_locked() || group.done) {
        changed_.notify_all();
        return false;
      }
      if (take_task(group, cur, task)) {
        if (!task.vendors && options_.budget.total > 0 &&
            started_ >= size_t(options_.budget.total)) {
          summary_.total_exhausted = true;
          stop_ = true;
          continue;
        }
        started_ += task.vendors ? 0 : 1;
        cur.busy = true;
        ++group.busy;
        task.prepare.clear();
        if (cur.prepared != group.round) {
          task.prepare = group.round_configs;
          cur.prepared = group.round;
        }
        return true;
      }
      if (group.busy == 0) {
        end_round(group);
        changed_.notify_all();
        continue;
      }
      // Woken by the round's end or an error; the timeout notices an interrupt or the budget.
      changed_.wait_for(lock, std::chrono::milliseconds(100));
    }
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
    std::unique_ptr<ProblemSession> session;
    size_t session_row = SIZE_MAX;
    std::string open_error;
    Cursor cur;
    Task task;
    while (next(group, cur, task)) {
      if (!task.prepare.empty()) backend.prepare(task.prepare);  // e.g. compile in parallel
      const Problem& problem = workload_.problems[group.problems[task.row]];
      const std::string key = problem.key();
      if (task.row != session_row) {  // a worker's next range is often the same problem
        session.reset();
        open_error.clear();
        session_row = task.row;
        try {
          session = backend.open(problem);
        } catch (const std::exception& e) {
          open_error = e.what();
        }
      }
      if (task.vendors) {  // vendors are only known once a session exists
        if (!session) continue;
        for (const auto& v : session->vendors()) {
          if (group.vendors_stored.count({key, v})) continue;
          if (!keep_going()) return;
          record(group, task, measure(group, session.get(), open_error, problem, nullptr, v));
        }
        continue;
      }
      // Picks change only when a round ends, which waits for this worker.
      const Config& config = group.configs[size_t(group.picks[task.row][task.index])];
      record(group, task,
             measure(group, session.get(), open_error, problem, &config, space_.to_string(config)));
    }
  }

  Measurement measure(const Group& group, ProblemSession* session, const std::string& open_error,
                      const Problem& problem, const Config* config, const std::string& name) {
    if (group.replay && config) {  // the stored row, exactly
      Measurement m = *group.replay->find(problem.key(), name);
      m.device = group.device.slug;
      return m;
    }
    Measurement m;
    m.device = group.device.slug;
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
    return m;
  }

  // One writer at a time: the store's connection, the summary, the round's results and the
  // progress callback.
  void record(Group& group, const Task& task, const Measurement& m) {
    std::lock_guard lock(mutex_);
    store_.put(m);
    ++summary_.measured;
    ++summary_.by_status[m.outcome.status];
    if (m.vendor) {
      ++summary_.vendors;
      summary_.vendors_ok += m.outcome.status == Status::ok;
    } else {
      group.results[task.row][task.index] = {true, m.outcome.status == Status::ok, m.perf};
    }
    size_t total = remaining_;
    if (options_.budget.total > 0) total = std::min(total, size_t(options_.budget.total));
    if (options_.on_progress)
      options_.on_progress(summary_.measured, std::max(total, summary_.measured), m);
  }

  const Family& family_;
  const Space& space_;
  const Workload& workload_;
  Store& store_;
  const SweepOptions& options_;
  std::unique_ptr<SearchStrategy> exhaustive_;
  SearchStrategy& strategy_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<WorkerBackend*> backends_;
  std::vector<size_t> group_of_;
  std::deque<Group> groups_;  // stable addresses while workers hold references
  size_t opened_ = 0;
  bool planned_ = false, stop_ = false;
  std::exception_ptr error_;
  SweepSummary summary_;
  size_t remaining_ = 0;  // picks the searches may still make (the progress total)
  size_t started_ = 0;    // config measurements handed out (the total budget)
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
  one[0].open = [&backend] { return std::make_unique<WorkerBackend>(nullptr, backend, ""); };
  return run_sweep(family, std::move(one), workload, store, options);
}

}  // namespace ktune
