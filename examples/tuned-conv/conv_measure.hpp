#pragma once
// The device part of tuned_conv_bench, one implementation per backend (measure_cpu.cpp,
// measure_cuda.cpp): verify the deployed ktune::conv2d on NaN-poisoned output
// against the float64 reference, then time it and the vendor library in the same run: each with
// the sweep's protocol (warm-up, median of repeats, rotated input copies when they fit in
// cache). The CPU part then times both again alternately (one run of each per round, each run
// on the next rotated copy) so that both see the same load of the shared machine and neither
// finds the other's tensors in cache, and reports the medians of those rounds; the
// CUDA part reports the protocol's medians (CUDA events; the GPU is not shared).
#include <memory>
#include <string>

#include "kernels/conv2d/conv2d_family.hpp"
#include "ktune/timing.hpp"

namespace tuned_conv {

struct LayerResult {
  std::string config;         // the config the selector picked
  std::string status;         // ok, wrong (verification failed) or failed (an exception)
  std::string message;        // why, when not ok
  double rel_error = 0;       // of the deployed library
  double deployed_ms = 0;     // median
  double vendor_ms = 0;       // median of the vendor library, 0 when it failed
  double fp32_output_ms = 0;  // --output bf16: the deployed call with FP32 output, 0 when not run
  // --output bf16, a vendor pick: cuDNN in the call's search space (NHWC) run bare, 0 when not run
  double engine_alone_ms = 0;
  std::string engine_alone_what;
  std::string vendor_what;  // the vendor's algorithm, layout and math, where it says
};

class DeviceMeasure {
 public:
  virtual ~DeviceMeasure() = default;
  virtual std::string vendor() const = 0;  // "onednn", "cudnn"
  virtual LayerResult measure(const ktune::kernels::conv2d::Shape& shape, uint64_t seed,
                              const ktune::TimingPolicy& policy) = 0;
};

std::unique_ptr<DeviceMeasure> cpu_measure();
// measure_cuda.cpp (KTUNE_TUNED_CONV_CUDA builds); precision bf16 / fp16: ktune::conv2d_ex and
// cuDNN in that precision (fp32: ktune::conv2d); out16 (bf16 only): ktune::conv2d_ex writes bf16
// (its FP32-output call timed beside it).
std::unique_ptr<DeviceMeasure> cuda_measure(
    ktune::kernels::gemm::Precision precision = ktune::kernels::gemm::Precision::fp32,
    bool out16 = false);

}  // namespace tuned_conv
