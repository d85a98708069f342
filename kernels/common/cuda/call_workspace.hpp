#pragma once
// The workspace of one call of a tuned CUDA library (GEMM: split-K partial sums, cuBLASLt's
// workspace; conv2d: cuDNN's workspace and the call's scratch). Outside graph capture it is a
// buffer kept per thread, device, stream and slot between calls and only grown (stream-ordered,
// from the library's pool), so a call allocates and frees nothing: the sweep times kernels with a
// workspace made once, and a cudaMallocFromPoolAsync + cudaFreeAsync pair per call cost the
// deployed GEMM library 1.5-2.5 us per call on an H100 (its mmasplit kernels ran at 0.90x and its
// cuBLASLt split-K calls at 0.93x their sweep speed, results/h100-80gb-hbm3/tc-deployed-vendors/).
// A call that needs several buffers at once takes them in slots 0, 1, ... (each kept on its own).
// A stream being captured into a CUDA graph gets a per-call allocation and free, which become the
// graph's own nodes, as before. The stream's two queries (captured? which stream?) go through
// stream_queries.hpp: the driver's entry points, and no id query for a default stream.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels/common/cuda/stream_queries.hpp"

namespace ktune::kernels::cuda_workspace {

// Where a workspace's memory comes from: the given pool, or pool_of(device), asked only when the
// call allocates (a kept workspace's call then costs no pool lookup).
struct WorkspacePool {
  cudaMemPool_t pool = nullptr;
  cudaMemPool_t (*pool_of)(int device) = nullptr;
  cudaMemPool_t for_device(int device) const { return pool ? pool : pool_of(device); }
};

inline int workspace_device() {
  int device = 0;
  check_runtime_call(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

// This thread's kept workspaces, one per (device, stream key, slot): a stream's id, never reused
// unlike a destroyed stream's handle, or a default stream's handle (stream_queries.hpp). At most
// kMaxKept: past that the oldest goes (after a device synchronization, since its stream may
// still use it).
class KeptWorkspaces {
 public:
  static constexpr size_t kMaxKept = 16;

  ~KeptWorkspaces() {
    if (kept_.empty()) return;
    (void)cudaDeviceSynchronize();  // errors ignored: the runtime may be unloading at exit
    for (const Entry& e : kept_) (void)cudaFreeAsync(e.data, nullptr);
  }

  // At least `bytes` for work on `stream` of `device` (the current one), in `slot`.
  void* get(size_t bytes, cudaStream_t stream, int device, const WorkspacePool& pool,
            int slot = 0) {
    return get(bytes, stream, stream_key(stream), device, pool, slot);
  }
  // The same, for the stream `key` names (stream_key(stream), asked by the caller).
  void* get(size_t bytes, cudaStream_t stream, const StreamKey& key, int device,
            const WorkspacePool& pool, int slot = 0) {
    Entry* entry = nullptr;
    for (Entry& e : kept_)
      if (e.device == device && e.stream == key && e.slot == slot) entry = &e;
    if (!entry) {
      if (kept_.size() == kMaxKept) evict_oldest();
      kept_.push_back({device, key, slot, nullptr, 0});
      entry = &kept_.back();
    }
    if (entry->bytes < bytes) {  // grow, stream-ordered: earlier work on the stream keeps the old
      if (entry->data) check_runtime_call(cudaFreeAsync(entry->data, stream), "cudaFreeAsync");
      entry->data = nullptr;
      entry->bytes = 0;
      check_runtime_call(
          cudaMallocFromPoolAsync(&entry->data, bytes, pool.for_device(device), stream),
          "cudaMallocFromPoolAsync(workspace)");
      entry->bytes = bytes;
    }
    return entry->data;
  }

  size_t kept() const { return kept_.size(); }

  // Frees every kept workspace, each after its device's synchronization: for a caller about to
  // destroy the pool they came from (the tests' own pools; the library's pools live as long as
  // the process).
  void clear() {
    while (!kept_.empty()) evict_oldest();
  }

 private:
  struct Entry {
    int device;
    StreamKey stream;
    int slot;
    void* data;
    size_t bytes;
  };

  void evict_oldest() {
    const Entry oldest = kept_.front();
    kept_.erase(kept_.begin());
    if (!oldest.data) return;
    int current = 0;
    check_runtime_call(cudaGetDevice(&current), "cudaGetDevice");
    check_runtime_call(cudaSetDevice(oldest.device), "cudaSetDevice(workspace eviction)");
    cudaError_t error = cudaDeviceSynchronize();
    if (error == cudaSuccess) error = cudaFreeAsync(oldest.data, nullptr);
    const cudaError_t back = cudaSetDevice(current);
    check_runtime_call(error, "cudaFreeAsync(workspace eviction)");
    check_runtime_call(back, "cudaSetDevice");
  }

  std::vector<Entry> kept_;
};

inline KeptWorkspaces& kept_workspaces() {
  thread_local KeptWorkspaces kept;
  return kept;
}

// The workspace of one call: nullptr for 0 bytes; release() ends the call (a captured stream's
// per-call workspace is freed there, stream-ordered; errors thrown, unlike the destructor's).
class CallWorkspace {
 public:
  CallWorkspace(size_t bytes, cudaStream_t stream, cudaMemPool_t pool)
      : CallWorkspace(bytes, stream, WorkspacePool{pool, nullptr}) {}
  CallWorkspace(size_t bytes, cudaStream_t stream, const WorkspacePool& pool, int slot = 0)
      : CallWorkspace(bytes, stream, bytes ? workspace_device() : 0, pool, slot) {}
  // On `device`, the current one (a caller that knows it saves the query), in `slot` (a call
  // holding several workspaces at once gives each its own).
  CallWorkspace(size_t bytes, cudaStream_t stream, int device, const WorkspacePool& pool,
                int slot = 0)
      : stream_(stream) {
    if (bytes == 0) return;
    if (!stream_is_capturing(stream)) {
      data_ = kept_workspaces().get(bytes, stream, device, pool, slot);
      return;
    }
    check_runtime_call(cudaMallocFromPoolAsync(&data_, bytes, pool.for_device(device), stream),
                       "cudaMallocFromPoolAsync(workspace)");
    per_call_ = true;
  }
  CallWorkspace(const CallWorkspace&) = delete;
  CallWorkspace& operator=(const CallWorkspace&) = delete;
  ~CallWorkspace() {
    if (per_call_ && data_) (void)cudaFreeAsync(data_, stream_);  // only on an exception's path
  }

  void* data() const { return data_; }

  void release() {
    if (!per_call_ || !data_) return;
    void* p = data_;
    data_ = nullptr;
    check_runtime_call(cudaFreeAsync(p, stream_), "cudaFreeAsync(workspace)");
  }

 private:
  cudaStream_t stream_;
  void* data_ = nullptr;
  bool per_call_ = false;
};

}  // namespace ktune::kernels::cuda_workspace
