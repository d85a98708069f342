// The multi-core read of the host cache eviction (evict_host_caches, host_measure.cpp).
//
// Why short-lived pinned threads and not an OpenMP `parallel for`: after a region libgomp's
// worker spins for milliseconds (OMP_WAIT_POLICY unset), so on the 2-vCPU guest every timed run
// started with one CPU held by it. ktune's kernels on its own thread pool (kernels/common/cpu) ran
// short calls on the caller alone, while oneDNN's OpenMP calls found that same team warm, and
// OpenBLAS's pthread worker competed with the spinner: the protocol favoured one library's
// threads. Threads joined before the timed run leave nothing running; each library's own threads
// behave as they do for a user (warm or asleep by their own policy). Measured by the examples'
// eviction_probe (results/amd-epyc-2c/vit-packedz-evict/eviction-probe.txt): a 2-thread pool
// job of 1.0 ms ideal took 1.98 ms after the OpenMP loop, 1.00 ms after this; the other way, the
// pool's helper (spinning 2 ms after a job) slowed an OpenMP job right after it to 2.0 ms, but not
// across an 8 MiB eviction (1.02 ms).
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "ktune/host_measure.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace ktune {

namespace {

constexpr size_t kLine = 64;

// One reader's share: lines [first, last) of the logical range, which starts `offset` bytes into
// the ring and wraps around at its end.
struct Slice {
  const char* ring = nullptr;
  size_t ring_bytes = 0, offset = 0, first = 0, last = 0;
  int cpu = -1;  // the CPU to run on (-1: where it is)
  unsigned long sum = 0;
  int ran_on = -1;  // the CPU it finished on (-1: unknown)
};

int current_cpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

void read_slice(Slice& s) {
  unsigned long sum = 0;
  size_t at = (s.offset + s.first * kLine) % s.ring_bytes;
  for (size_t line = s.first; line < s.last; ++line) {
    sum += static_cast<unsigned char>(s.ring[at]);
    at += kLine;
    if (at >= s.ring_bytes) at = 0;  // offset and ring_bytes are whole lines
  }
  s.sum = sum;
  s.ran_on = current_cpu();
}

#if defined(__linux__)
void* run_slice(void* slice) {
  read_slice(*static_cast<Slice*>(slice));
  return nullptr;
}

// Starts a thread on slice.cpu (created with that affinity, so it starts there rather than
// migrating); false where it cannot be started.
bool start_pinned(Slice& slice, pthread_t& thread) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(slice.cpu, &one);
  bool ok = pthread_attr_setaffinity_np(&attr, sizeof one, &one) == 0 &&
            pthread_create(&thread, &attr, run_slice, &slice) == 0;
  if (!ok) {  // an affinity refused (a cgroup's cpuset): let it run where the scheduler puts it
    pthread_attr_destroy(&attr);
    if (pthread_attr_init(&attr) != 0) return false;
    ok = pthread_create(&thread, &attr, run_slice, &slice) == 0;
  }
  pthread_attr_destroy(&attr);
  return ok;
}
#endif

// The CPUs other than the caller's that the caller may run on.
std::vector<int> other_cpus(int own) {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed) && c != own) cpus.push_back(c);
#else
  (void)own;
#endif
  return cpus;
}

}  // namespace

LinesRead read_lines_on_every_cpu(const char* ring, size_t ring_bytes, size_t offset,
                                  size_t bytes) {
  LinesRead out;
  const size_t lines = std::min(bytes, ring_bytes) / kLine;
  if (lines == 0 || ring_bytes < kLine) return out;
  const int own = current_cpu();
  std::vector<int> cpus = other_cpus(own);
  if (cpus.size() + 1 > lines) cpus.resize(lines - 1);  // no reader without a line
  const size_t readers = cpus.size() + 1;
  std::vector<Slice> slices(readers);
  for (size_t r = 0; r < readers; ++r) {
    Slice& s = slices[r];
    s.ring = ring, s.ring_bytes = ring_bytes / kLine * kLine, s.offset = offset % s.ring_bytes;
    s.first = lines * r / readers, s.last = lines * (r + 1) / readers;
    s.cpu = r == 0 ? own : cpus[r - 1];
  }
#if defined(__linux__)
  std::vector<pthread_t> threads(readers);
  std::vector<bool> started(readers, false);
  for (size_t r = 1; r < readers; ++r) started[r] = start_pinned(slices[r], threads[r]);
  read_slice(slices[0]);
  for (size_t r = 1; r < readers; ++r) {
    if (started[r])
      pthread_join(threads[r], nullptr);
    else
      read_slice(slices[r]);  // no thread: the caller reads its share
  }
#else
  for (Slice& s : slices) read_slice(s);
#endif
  std::set<int> ran_on;
  for (const Slice& s : slices) {
    out.sum += s.sum;
    if (s.ran_on >= 0) ran_on.insert(s.ran_on);
  }
  out.cpus = int(ran_on.size());
  return out;
}

}  // namespace ktune
