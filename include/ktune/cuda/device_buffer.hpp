#pragma once
// Owning device allocations, events and streams; allocation failures name what was being
// allocated.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/owned_handle.hpp"

namespace ktune::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(size_t count, const std::string& what) : count_(count) {
    if (count == 0) return;
    void* raw = nullptr;
    check(cudaMalloc(&raw, count * sizeof(T)),
          "cudaMalloc(" + what + ", " + std::to_string(count * sizeof(T)) + " bytes)");
    data_ = static_cast<T*>(raw);
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  void reset() {
    if (data_) cudaFree(data_);  // errors here only repeat an earlier, reported one
    data_ = nullptr;
    count_ = 0;
  }

 private:
  T* data_ = nullptr;
  size_t count_ = 0;
};

class Event : public OwnedHandle<cudaEvent_t, &cudaEventDestroy> {
 public:
  Event() {
    cudaEvent_t event = nullptr;
    check(cudaEventCreate(&event), "cudaEventCreate");
    adopt(event);
  }
};

class Stream : public OwnedHandle<cudaStream_t, &cudaStreamDestroy> {
 public:
  Stream() {
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    adopt(stream);
  }
};

}  // namespace ktune::cuda
