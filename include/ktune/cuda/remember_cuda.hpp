#pragma once
// Tune and remember on a CUDA device (docs/deploy.md): what a deployed CUDA library adds to the
// runtime (ktune/remember.hpp). The cache keys the GPU (name, SMs, compute capability), not the
// host; a first call times its candidates on the caller's stream with CUDA events
// (ktune/cuda/event_timing.hpp, the sweep's timing) into a scratch copy of the output, so the
// caller's output is written once, by the answer served afterwards. The runs repeat on the
// caller's data, hot in L2 (the benchmarks rotate copies of the inputs); an untimed write of
// twice the L2 before each run, tried to match them, made the picks worse on every precision
// (results/h200/remember-vit-l2evict), and so did an untimed read of it (results/h200/
// remember-vit-l2read-*: the benchmarks' few copies of small operands stay in L2); both out. A
// candidate that is refused or fails does not compete, and the CUDA error it left is cleared; an
// error that breaks the context (sticky) ends the first call (remember::Abort) and reaches the
// caller. Header-only on the CUDA runtime API (the deployed libraries link no ktune library); names
// no family. C++17.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "ktune/cuda/event_timing.hpp"
#include "ktune/cuda/sticky_error.hpp"
#include "ktune/remember.hpp"

namespace ktune::remember::cuda {

// The current device as the cache keys it (remember::cuda_device), queried once per device;
// empty when CUDA cannot tell (the library then serves its selector's answers). A remembered
// call asks it every time: the thread's last device is kept without the lock.
inline const std::string& current_device() {
  static const std::string none;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return none;
  }
  thread_local int last_device = -1;
  thread_local const std::string* last_key = nullptr;
  if (device == last_device) return *last_key;
  static std::mutex mutex;
  static std::map<int, std::string> keys;  // entries are never erased: references stay valid
  std::lock_guard lock(mutex);
  auto it = keys.find(device);
  if (it == keys.end()) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return none;
    }
    it = keys.emplace(device, cuda_device(p.name, p.multiProcessorCount, p.major, p.minor)).first;
  }
  last_device = device;
  last_key = &it->second;
  return it->second;
}

// Whether a first call may time runs on the stream: not while it is captured into a graph (its
// runs would be recorded, not run, and waiting on an event is not allowed there).
inline bool can_time_on(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return status == cudaStreamCaptureStatusNone;
}

// After a failed run: clears the error it left (a refused launch, a bad argument), so that the
// calls after it do not see it; throws Abort when the context is broken (a sticky error, known
// by its code or surfacing again at a synchronization of the stream, as ktune_cuda's checked
// calls tell it: every later CUDA call fails alike, so no candidate can be timed and the caller
// must hear of it).
inline void clear_or_abort(cudaStream_t stream, const std::string& what,
                           cudaError_t error = cudaSuccess) {
  (void)cudaGetLastError();
  bool sticky = ::ktune::cuda::is_sticky_error(error);
  if (!sticky) {
    const cudaError_t probe = cudaStreamSynchronize(stream);
    (void)cudaGetLastError();
    sticky = probe != cudaSuccess && ::ktune::cuda::is_sticky_error(probe);
  }
  if (sticky) throw Abort(what + "; the CUDA context is corrupted: restart the process");
}

// A first call's runs on one stream: each candidate into a scratch copy of the output (`bytes`
// at `output`, copied in first when `read_output`: beta != 0 reads C), allocated at the first
// run, freed at the end; every run timed with a pair of events.
class StreamTrials {
 public:
  StreamTrials(cudaStream_t stream, const void* output, size_t bytes, bool read_output)
      : stream_(stream), output_(output), bytes_(bytes), read_output_(read_output) {}
  ~StreamTrials() {
    if (scratch_) (void)cudaFree(scratch_);  // waits for the runs still on it
    if (start_) (void)cudaEventDestroy(start_);
    if (stop_) (void)cudaEventDestroy(stop_);
  }
  StreamTrials(const StreamTrials&) = delete;
  StreamTrials& operator=(const StreamTrials&) = delete;

  // Milliseconds of one run: run(scratch) enqueues it with the output at scratch and returns
  // false when the candidate refuses the problem. Throws std::runtime_error when it refused or
  // failed (the error cleared), Abort when the context is broken.
  template <typename Run>
  double time(Run&& run) {
    prepare();
    bool ran = true;
    double ms = 0;
    ::ktune::cuda::EventStep step;
    try {
      step = ::ktune::cuda::time_with_events(start_, stop_, stream_, [&] { ran = run(scratch_); });
      ms = step.ms;
    } catch (const std::exception& e) {
      clear_or_abort(stream_, e.what());
      throw;
    }
    // A launch error the run did not report is still a failed run (and is cleared below).
    if (step.error == cudaSuccess) step = {cudaGetLastError(), "launch"};
    if (step.error != cudaSuccess) {
      const std::string what = std::string(step.what) + ": " + cudaGetErrorName(step.error) + ": " +
                               cudaGetErrorString(step.error);
      clear_or_abort(stream_, what, step.error);
      throw std::runtime_error(what);
    }
    if (!ran) throw std::runtime_error("the candidate refused the problem");
    return ms;
  }

 private:
  void prepare() {
    if (!start_) fail_if(cudaEventCreate(&start_), "cudaEventCreate");
    if (!stop_) fail_if(cudaEventCreate(&stop_), "cudaEventCreate");
    if (scratch_) return;
    void* scratch = nullptr;
    fail_if(cudaMalloc(&scratch, bytes_ > 0 ? bytes_ : 1), "cudaMalloc(scratch output)");
    if (read_output_) {
      const cudaError_t error =
          cudaMemcpyAsync(scratch, output_, bytes_, cudaMemcpyDeviceToDevice, stream_);
      if (error != cudaSuccess) (void)cudaFree(scratch);
      fail_if(error, "cudaMemcpyAsync(scratch output)");
    }
    scratch_ = scratch;
  }
  void fail_if(cudaError_t error, const char* what) {
    if (error == cudaSuccess) return;
    const std::string text = std::string(what) + ": " + cudaGetErrorName(error);
    clear_or_abort(stream_, text, error);
    throw std::runtime_error(text);  // this candidate is left out; the next one tries again
  }

  cudaStream_t stream_;
  const void* output_;
  size_t bytes_;
  bool read_output_;
  void* scratch_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// The config to serve on a CUDA stream: remember::choose_measured, each candidate's run being
// launch(config, scratch_output) on `stream` (false: refused), timed by StreamTrials. While the
// stream is being captured into a graph nothing is timed: the remembered answer, else
// candidates[0], is served. prepare: choose_measured's (a one-time setup before the budget).
template <typename Launch>
int choose_on_stream(const Library& lib, const std::string& device, const Shape& shape,
                     const std::function<std::string()>& problem, const int* candidates, int n,
                     cudaStream_t stream, const void* output, size_t output_bytes, bool read_output,
                     Launch&& launch, const Prepare& prepare = {}) {
  if (const int known = remembered(lib, device, shape); known >= 0) return known;
  if (!can_time_on(stream)) return candidates[0];
  StreamTrials trials(stream, output, output_bytes, read_output);
  return choose_measured(
      lib, device, shape, problem, candidates, n,
      [&](int config) {
        return trials.time([&](void* scratch) { return launch(config, scratch); });
      },
      prepare);
}

// The config a deployed CUDA library serves (docs/deploy.md, "Tune and remember"): `pick`, its
// selector's answer, unless tune and remember is on and the shape is one it tunes (`unsure`: the
// selector answered kUnsure; every shape with KTUNE_REMEMBER_SHAPES=all); then the remembered
// answer, else choose_on_stream over candidate_order(pick, safe_order, early) (the list built
// only on a first call), each run launch(config, scratch_output) (false: refused). problem(): the
// cache's problem text, asked only on a first call. prepare: choose_measured's.
template <typename Launch>
int served_config(const Library& lib, int pick, bool unsure, const int* safe_order, int early,
                  const Shape& shape, const std::function<std::string()>& problem,
                  cudaStream_t stream, const void* output, size_t output_bytes, bool read_output,
                  Launch&& launch, const Prepare& prepare = {}) {
  if (!enabled() || !(unsure || all_shapes())) return pick;
  const std::string& device = current_device();  // the GPU, not the host
  if (device.empty()) return pick;
  if (const int known = remembered(lib, device, shape); known >= 0)
    return known;  // the steady state: no callbacks built
  std::vector<int> candidates(size_t(lib.num_configs > 0 ? lib.num_configs : 1));
  const int n = candidate_order(pick, safe_order, lib.num_configs, candidates.data(), early);
  return choose_on_stream(lib, device, shape, problem, candidates.data(), n, stream, output,
                          output_bytes, read_output, launch, prepare);
}

}  // namespace ktune::remember::cuda
