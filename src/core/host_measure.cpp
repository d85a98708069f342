#include "ktune/host_measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/timing_loop.hpp"

namespace ktune {

double last_level_cache_bytes(const DeviceInfo& cpu) {
  double llc = 32.0 * 1024 * 1024;
  for (const auto& [name, value] : cpu.features)
    if (name == "l3_bytes" || (name == "l2_bytes" && value > llc)) llc = value;
  return llc;
}

RunVerdict judge_error(double error, double bound) {
  RunVerdict v;
  v.ok = error <= bound;  // false for NaN
  v.rel_error = std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
  if (!v.ok) {
    v.message = std::isfinite(error)
                    ? fmt::format("relative error {:.3e} exceeds the bound {:.3e}", error, bound)
                    : "result holds NaN or Inf";
  }
  return v;
}

int rotation_copies(double bytes, double llc_bytes) {
  return int(std::min(8.0, std::max(1.0, std::ceil(2.0 * llc_bytes / bytes))));
}

HostRotation host_rotation(double bytes, double llc_bytes) {
  HostRotation r;
  r.copies = size_t(rotation_copies(bytes, llc_bytes));
  // A problem this small runs in microseconds: reading megabytes before each run would multiply
  // a sweep's time (and the test suite's) a hundredfold for problems no layer list holds.
  if (bytes < kHostColdMinBytes) return r;
  r.cold_bytes = 2 * llc_bytes;
  // Each run's copy and what is read before it: copies x (bytes + evict) = 2x LLC.
  r.evict_bytes = std::max(0.0, r.cold_bytes / double(r.copies) - bytes);
  return r;
}

namespace {

struct EvictionRing {
  std::mutex lock;
  std::vector<char> bytes;  // written once: reading never-written pages would read the zero page
  size_t cursor = 0;
  double total = 0;
};

EvictionRing& eviction_ring() {
  static EvictionRing ring;
  return ring;
}

}  // namespace

void evict_host_caches(double bytes) {
  if (!(bytes >= 64)) return;
  EvictionRing& ring = eviction_ring();
  const std::lock_guard<std::mutex> hold(ring.lock);
  const size_t want = size_t(bytes) / 64 * 64;
  if (ring.bytes.size() < want) {
    ring.bytes.assign(want, 1);
    ring.cursor = 0;
  }
  const size_t size = ring.bytes.size();
  const LinesRead read = read_lines_on_every_cpu(ring.bytes.data(), size, ring.cursor, want);
  ring.cursor = (ring.cursor + want) % size;
  ring.total += double(want);
  static volatile unsigned long sink;
  sink = sink + read.sum;  // the reads are the point: keep them
}

double host_cache_bytes_evicted() {
  EvictionRing& ring = eviction_ring();
  const std::lock_guard<std::mutex> hold(ring.lock);
  return ring.total;
}

Outcome verify_then_time_on_host(const std::function<RunVerdict()>& verify,
                                 const std::function<void(size_t copy)>& run,
                                 const HostRotation& rotation, const TimingPolicy& policy) {
  // An unusable policy is the caller's error, not a config's failure.
  if (const std::string problem = timing_policy_problem(policy); !problem.empty())
    throw Error("timing policy: " + problem);
  Outcome out;
  try {
    const RunVerdict verdict = verify();
    out.rel_error = verdict.rel_error;
    if (!verdict.ok) {
      out.status = Status::wrong;
      out.message = verdict.message;
      return out;
    }
    // The verified copy is hot, and so may be the others (built or packed just before).
    evict_host_caches(rotation.cold_bytes);
    const size_t copies = std::max<size_t>(rotation.copies, 1);
    size_t next = 1;
    Outcome timed = time_adaptive(
        [&] {
          const size_t copy = next++ % copies;
          evict_host_caches(rotation.evict_bytes);
          const auto start = std::chrono::steady_clock::now();
          run(copy);
          const auto stop = std::chrono::steady_clock::now();
          return std::chrono::duration<double, std::milli>(stop - start).count();
        },
        policy);
    timed.rel_error = out.rel_error;
    return timed;
  } catch (const std::exception& e) {
    out.status = Status::failed;
    out.message = e.what();
  }
  return out;
}

std::vector<Outcome> time_interleaved_on_host(const std::vector<HostCandidate>& candidates,
                                              const HostRotation& rotation,
                                              const TimingPolicy& policy, int rounds) {
  if (const std::string problem = timing_policy_problem(policy); !problem.empty())
    throw Error("timing policy: " + problem);
  const int n = int(candidates.size());
  std::vector<std::vector<Outcome>> turns(candidates.size());
  std::vector<Outcome> out(candidates.size());
  if (n == 0) return out;
  TimingPolicy order;  // run_interleaved's rotation: whole rotations, nothing untimed
  order.warmups = 0;
  order.min_reps = order.max_reps = whole_rotation_rounds(rounds, n);
  order.budget_ms = 0;
  std::vector<bool> dropped(candidates.size(), false);
  run_interleaved(
      n,
      [&](int c) {
        const auto i = size_t(c);
        if (dropped[i]) return 0.0;
        Outcome o =
            verify_then_time_on_host(candidates[i].verify, candidates[i].run, rotation, policy);
        dropped[i] = o.status != Status::ok;
        if (dropped[i]) out[i] = o;
        turns[i].push_back(std::move(o));
        return 0.0;
      },
      order);
  for (size_t i = 0; i < candidates.size(); ++i)
    if (!dropped[i]) out[i] = pool_outcomes(turns[i]);
  return out;
}

}  // namespace ktune
