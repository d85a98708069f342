#pragma once
// Measures the deployed tuned library (ktune::gemm) and the vendor library side by side on one
// GEMM shape, in the same run: verify ktune::gemm on NaN-poisoned output against a float64
// reference, then time both with the same policy as the sweep (warm-up, median of repeats,
// rotated input copies when they fit in cache).
#include <string>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/timing.hpp"

namespace tuned_gemm {

struct ShapeResult {
  std::string config;      // the config the selector picked
  std::string status;      // ok, wrong (verification failed) or failed (an exception)
  std::string message;     // why, when not ok
  double rel_error = 0;    // ||C - ref||_F / ||ref||_F
  double deployed_ms = 0;  // median
  double vendor_ms = 0;    // median of the vendor library, 0 when it failed
};

ShapeResult measure_cpu(const ktune::kernels::gemm::Shape& shape, uint64_t seed,
                        const ktune::TimingPolicy& policy);
// Device 0; also says whether a CUDA device exists.
bool cuda_available();
ShapeResult measure_cuda(const ktune::kernels::gemm::Shape& shape, uint64_t seed,
                         const ktune::TimingPolicy& policy);

}  // namespace tuned_gemm
