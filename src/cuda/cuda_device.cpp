// cuda_device_count / query_cuda_device (include/ktune/cuda.hpp) and device helpers.
#include "ktune/cuda/cuda_device.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_error.hpp"

namespace ktune {
namespace {

struct CountResult {
  int count = 0;
  cudaError_t error = cudaSuccess;
};

CountResult count_devices() {
  CountResult result;
  result.error = cudaGetDeviceCount(&result.count);
  if (result.error != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: leave no error behind
    result.count = 0;
  }
  return result;
}

}  // namespace

int cuda_device_count() {
  try {
    return count_devices().count;
  } catch (...) {
    return 0;
  }
}

DeviceInfo query_cuda_device(int index) {
  cuda::require_device(index);
  cudaDeviceProp prop{};
  cuda::check(cudaGetDeviceProperties(&prop, index),
              fmt::format("cudaGetDeviceProperties(cuda:{})", index));
  DeviceInfo info;
  info.spec = fmt::format("cuda:{}", index);
  info.backend = "cuda";
  info.name = prop.name;
  info.slug = slugify(info.name);
  if (info.slug.rfind("nvidia-", 0) == 0) info.slug.erase(0, 7);  // "h100-80gb-hbm3"
  auto attr = [&](cudaDeviceAttr a, const char* name) {
    return double(cuda::device_attribute(index, int(a), name));
  };
  const double major = attr(cudaDevAttrComputeCapabilityMajor, "compute_capability_major");
  const double minor = attr(cudaDevAttrComputeCapabilityMinor, "compute_capability_minor");
  info.features = {
      {"sm_count", attr(cudaDevAttrMultiProcessorCount, "sm_count")},
      {"compute_capability", major + minor / 10.0},
      {"shared_mem_per_block", attr(cudaDevAttrMaxSharedMemoryPerBlock, "shared_mem_per_block")},
      {"shared_mem_per_block_optin",
       attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, "shared_mem_per_block_optin")},
      {"shared_mem_per_sm", attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, "shared_mem_per_sm")},
      {"regs_per_block", attr(cudaDevAttrMaxRegistersPerBlock, "regs_per_block")},
      {"regs_per_sm", attr(cudaDevAttrMaxRegistersPerMultiprocessor, "regs_per_sm")},
      {"l2_bytes", attr(cudaDevAttrL2CacheSize, "l2_bytes")},
      // cudaDeviceProp lost clockRate in CUDA 13; the attributes remain.
      {"clock_khz", attr(cudaDevAttrClockRate, "clock_khz")},
      {"memory_clock_khz", attr(cudaDevAttrMemoryClockRate, "memory_clock_khz")},
      {"memory_bus_bits", attr(cudaDevAttrGlobalMemoryBusWidth, "memory_bus_bits")},
      {"global_mem_bytes", double(prop.totalGlobalMem)},
      {"max_threads_per_block", attr(cudaDevAttrMaxThreadsPerBlock, "max_threads_per_block")},
      {"warp_size", attr(cudaDevAttrWarpSize, "warp_size")},
  };
  return info;
}

namespace cuda {

void require_device(int index) {
  const CountResult result = count_devices();
  if (result.error != cudaSuccess || result.count == 0) {
    throw Error(fmt::format("cuda:{}: no CUDA device available ({})", index,
                            result.error != cudaSuccess ? error_text(result.error)
                                                        : "the CUDA runtime reports 0 devices"));
  }
  if (index < 0 || index >= result.count) {
    throw Error(fmt::format("cuda:{}: no such CUDA device (found {}: cuda:0..cuda:{})", index,
                            result.count, result.count - 1));
  }
}

void use_device(int index) {
  ensure_context_usable();
  check(cudaSetDevice(index), fmt::format("cudaSetDevice({})", index));
}

int device_attribute(int index, int attribute_enum, const char* name) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, cudaDeviceAttr(attribute_enum), index),
        fmt::format("cudaDeviceGetAttribute({}, cuda:{})", name, index));
  return value;
}

std::string device_arch(int index) {
  const int major = device_attribute(index, cudaDevAttrComputeCapabilityMajor, "cc_major");
  const int minor = device_attribute(index, cudaDevAttrComputeCapabilityMinor, "cc_minor");
  return fmt::format("sm_{}{}", major, minor);
}

}  // namespace cuda
}  // namespace ktune
