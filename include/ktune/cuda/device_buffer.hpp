#pragma once
// Owning device allocations and events; allocation failures name what was being allocated.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ktune/cuda/cuda_error.hpp"

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

class Event {
 public:
  Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class Stream {
 public:
  Stream() {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace ktune::cuda
