#pragma once
// Measures the deployed tuned library (ktune::gemm) and the vendor library side by side on one
// GEMM shape, in the same run, with the sweep's verify-then-time protocol (ktune/host_measure.hpp
// on the CPU, src/cuda/device_measure.hpp on CUDA): each verified on NaN-poisoned output against
// a float64 reference, then timed with the same policy (warm-up, median of repeats, rotated input
// copies when they fit in cache).
#include <string>
#include <utility>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/timing.hpp"

namespace tuned_gemm {

struct ShapeResult {
  std::string config;      // the config the selector picked
  std::string status;      // the deployed library's status: ok, wrong, failed or timeout
  std::string message;     // why, when not ok
  double rel_error = 0;    // ||C - ref||_F / ||ref||_F
  double deployed_ms = 0;  // median
  double vendor_ms = 0;    // median of the vendor library, 0 when it was not ok
};

inline ShapeResult shape_result(std::string config, const ktune::Outcome& deployed,
                                const ktune::Outcome& vendor) {
  ShapeResult r;
  r.config = std::move(config);
  r.status = std::string(ktune::to_string(deployed.status));
  r.message = deployed.message;
  r.rel_error = deployed.rel_error;
  if (deployed.status == ktune::Status::ok) r.deployed_ms = deployed.timing.median_ms;
  if (vendor.status == ktune::Status::ok) r.vendor_ms = vendor.timing.median_ms;
  return r;
}

ShapeResult measure_cpu(const ktune::kernels::gemm::Shape& shape, uint64_t seed,
                        const ktune::TimingPolicy& policy);
// Device 0; also says whether a CUDA device exists.
bool cuda_available();
ShapeResult measure_cuda(const ktune::kernels::gemm::Shape& shape, uint64_t seed,
                         const ktune::TimingPolicy& policy);

}  // namespace tuned_gemm
