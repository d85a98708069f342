#pragma once
// The verify-then-time protocol of the CPU backends, shared by every family and by the benches
// of the deployed libraries (ONE protocol per device API): one run on poisoned output judged
// against the reference, then adaptive timing with steady_clock, every timed run on a copy of
// the problem's buffers whose data is not hot from its own previous use (HostRotation below), as
// for a layer an inference engine runs among others. The CUDA backends follow the same protocol
// with the same rotation rule and verdicts (src/cuda/device_measure.hpp), timed by CUDA events.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "ktune/device.hpp"
#include "ktune/measurement.hpp"
#include "ktune/timing.hpp"

namespace ktune {

// The cache timed reruns must overflow: the host's L3 (or a larger L2) from its device
// features; 32 MiB when neither is known.
double last_level_cache_bytes(const DeviceInfo& cpu);

// Copies of a problem's buffers (bytes each) to rotate among so that together they cover twice
// the last-level cache (a GPU's L2): between 1 and 8.
int rotation_copies(double bytes, double llc_bytes);

// The cache state every timed host run starts from: at least twice the LLC of other data was read
// since its copy of the buffers was last used. Rotation gives that where rotation_copies' copies
// cover 2x LLC; where they do not (the cap of 8: a 1 MB batch-1 layer's 8 copies are 8 MB of a
// 32 MiB L3, so each rerun found its weights and input in L3), evict_bytes of an unrelated
// buffer are read before each timed run, so that copies x (bytes + evict_bytes) >= 2x LLC.
// After the verification run (and whatever a session did before it: packing filters, building
// copies) cold_bytes = 2x LLC are read once, and the first run is on copy 1, never the copy
// just verified.
// Problems under kHostColdMinBytes a copy (tiny test and sample problems, far below any DNN
// layer's 0.3 MB and up) keep the rotation alone: no cold read, no eviction.
inline constexpr double kHostColdMinBytes = 256.0 * 1024;
struct HostRotation {
  size_t copies = 1;
  double cold_bytes = 0;   // read once after the verification run
  double evict_bytes = 0;  // read before each run; 0 where the copies cover 2x LLC
};
HostRotation host_rotation(double bytes, double llc_bytes);

// Reads `bytes` of a buffer kept for this, on every CPU the caller may run on (each core's L2 as
// well as the shared L3: read_lines_on_every_cpu), cyclically, so that what it reads is what it
// read longest ago (re-reading cached lines would evict nothing). Outside any timed interval; a
// lock serializes callers. No thread it used is left running once it returns.
void evict_host_caches(double bytes);
// The bytes evict_host_caches read so far in this process (tests: the protocol evicted).
double host_cache_bytes_evicted();

// What read_lines_on_every_cpu read: the sum of the bytes read (one per line) and on how many
// distinct CPUs its readers ran.
struct LinesRead {
  unsigned long sum = 0;
  int cpus = 0;
};
// Reads one byte of every 64-byte line of [offset, offset + bytes) of the ring [ring, ring +
// ring_bytes) (wrapping around at its end; offset and bytes multiples of 64, bytes <= ring_bytes),
// the lines split evenly among the caller, on its CPU, and short-lived threads, one started on
// each other CPU the caller may run on (Linux; elsewhere the caller reads them all), all joined
// before it returns. Not an OpenMP team: libgomp's workers spin for milliseconds after a region,
// and on a 2-core machine that spinning worker held the CPU the next timed run's own helper
// thread needed, so short calls of ktune's pool-threaded kernels ran on the caller alone (issue
// #26; docs/ARCHITECTURE.md, "Host cache state").
LinesRead read_lines_on_every_cpu(const char* ring, size_t ring_bytes, size_t offset, size_t bytes);

struct RunVerdict {
  bool ok = false;
  double rel_error = 0;
  std::string message;  // why the result is wrong
};

// The verdict on a result whose relative error against the float64 reference is `error`: right
// when error <= bound; NaN or Inf (an unwritten, poisoned element) is never right and stores an
// infinite error. Shared by the host and CUDA backends so their messages agree.
RunVerdict judge_error(double error, double bound);

// verify() runs once on poisoned output (copy 0) and judges it; when right, rotation.cold_bytes
// are evicted and run(copy) is timed by time_adaptive (warm-ups included) with copy = 1, 2, ...
// modulo rotation.copies, rotation.evict_bytes evicted before each run. Exceptions give
// `failed`, a run over the policy's timeout gives `timeout` (time_adaptive); an unusable policy
// throws Error.
Outcome verify_then_time_on_host(const std::function<RunVerdict()>& verify,
                                 const std::function<void(size_t copy)>& run,
                                 const HostRotation& rotation, const TimingPolicy& policy);

// One contender of a host comparison (a deployed library and the vendor calls it is compared
// with): its verification and its run on a copy, as verify_then_time_on_host takes them.
struct HostCandidate {
  std::function<RunVerdict()> verify;
  std::function<void(size_t copy)> run;
};

// The comparison's alternation on a shared machine: rounds in which every candidate is measured
// once by verify_then_time_on_host (verified again, then timed from the same cache state as a
// sweep's measurement), the order rotated by one each round (run_interleaved), at least `rounds`
// rounds rounded up to whole rotations so each candidate takes every place equally often.
// Returns each candidate's outcome: the samples of all its rounds pooled (as ktune retime pools
// its turns), or its first round that was not ok, after which it is not run again.
std::vector<Outcome> time_interleaved_on_host(const std::vector<HostCandidate>& candidates,
                                              const HostRotation& rotation,
                                              const TimingPolicy& policy, int rounds);

}  // namespace ktune
