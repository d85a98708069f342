#pragma once
// Shared helpers of the CUDA tests: skip without a GPU, device buffers filled from the host.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ktune/cuda.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/cuda/nvrtc_compile.hpp"

#define KTUNE_REQUIRE_GPU()                             \
  if (ktune::cuda_device_count() == 0) {                \
    GTEST_SKIP() << "no CUDA device: GPU test skipped"; \
  }

namespace ktune::test {

inline ktune::cuda::DeviceBuffer<float> upload(const std::vector<float>& host,
                                               const std::string& what) {
  ktune::cuda::DeviceBuffer<float> buffer(host.size(), what);
  ktune::cuda::check(cudaMemcpy(buffer.data(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice),
                     "cudaMemcpy(" + what + ")");
  return buffer;
}

inline std::vector<float> download(const ktune::cuda::DeviceBuffer<float>& buffer) {
  std::vector<float> host(buffer.size());
  ktune::cuda::check(cudaMemcpy(host.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost),
                     "cudaMemcpy(download)");
  return host;
}

// The message of the E that call throws; "no error" when it throws none.
template <class E, class Call>
std::string thrown_message(Call&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "no error";
}

// Calls fn(i) for every i in [0, count) on all cores (at least 2 threads): NVRTC is
// thread-safe, and compiling a space's kernels one by one would take minutes.
template <typename Fn>
void parallel_for(size_t count, Fn fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
    pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

// Compiles every request on all cores and checks each: it compiled, to an ELF cubin, whose lowered
// kernel name holds kernel(i) (when given); a failure names label(i) (default: the request's name
// expression). Returns the images.
inline std::vector<cuda::CubinImage> expect_all_compile(
    const std::vector<cuda::NvrtcRequest>& requests,
    const std::function<std::string(size_t)>& kernel = {},
    const std::function<std::string(size_t)>& label = {}) {
  std::vector<cuda::CubinImage> images(requests.size());
  std::vector<std::string> failures(requests.size());
  parallel_for(requests.size(), [&](size_t i) {
    try {
      images[i] = cuda::compile_cubin(requests[i]);
    } catch (const std::exception& e) {
      failures[i] = e.what();
    }
  });
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::string what = label ? label(i) : requests[i].name_expression;
    EXPECT_EQ(failures[i], "") << what;
    EXPECT_EQ(images[i].cubin.substr(0, 4), "\177ELF") << what;
    if (kernel) {
      EXPECT_NE(images[i].lowered_name.find(kernel(i)), std::string::npos) << what;
    }
  }
  return images;
}

// A fresh NVRTC cache directory for one test (KTUNE_CACHE_DIR), removed afterwards.
class ScopedCacheDir {
 public:
  explicit ScopedCacheDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("ktune-test-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    const char* old = std::getenv("KTUNE_CACHE_DIR");
    if (old) old_ = old, had_old_ = true;
    ::setenv("KTUNE_CACHE_DIR", path_.c_str(), 1);
  }
  ~ScopedCacheDir() {
    if (had_old_) {
      ::setenv("KTUNE_CACHE_DIR", old_.c_str(), 1);
    } else {
      ::unsetenv("KTUNE_CACHE_DIR");
    }
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::string old_;
  bool had_old_ = false;
};

}  // namespace ktune::test
