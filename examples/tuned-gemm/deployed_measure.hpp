#pragma once
// Measures the deployed tuned library (ktune::gemm) and the vendor libraries (OpenBLAS and
// oneDNN on the CPU, cuBLAS on CUDA) side by side on one GEMM shape, in the same run, with the
// sweep's verify-then-time protocol (ktune/host_measure.hpp on the CPU,
// include/ktune/cuda/device_measure.hpp on CUDA): each verified on NaN-poisoned output against a
// float64 reference, then timed with the same policy (warm-up, median of repeats, rotated input
// copies when they fit in cache).
#include <string>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/timing.hpp"

namespace tuned_gemm {

// One vendor library on one shape.
struct VendorResult {
  std::string name;    // "openblas", "onednn", "cublas"
  std::string kernel;  // what it dispatched, when it says ("SkylakeX", "brg:avx512_core")
  std::string status;  // ok, wrong, failed or timeout
  std::string message;
  double ms = 0;           // median, 0 when not ok
  bool in_fastest = true;  // false: timed beside the vendors, not a candidate for `vendor`
};

// One library's timing in one round of the CPU protocol (tuned_gemm_bench --rounds-out).
struct RoundTime {
  std::string library;  // "deployed" or the vendor's name
  int round = 0;
  int position = 0;  // 0: timed first in its round
  double ms = 0;     // the round's median, 0 when the run was not ok
};

struct ShapeResult {
  std::string config;      // the config the selector picked
  std::string status;      // the deployed library's status: ok, wrong, failed or timeout
  std::string message;     // why, when not ok
  double rel_error = 0;    // ||C - ref||_F / ||ref||_F
  double deployed_ms = 0;  // median
  std::vector<VendorResult> vendors;
  std::vector<RoundTime> rounds;  // CPU: every round's times, in the order they ran

  // The fastest vendor that was ok (of those in_fastest), or nullptr when none was.
  const VendorResult* fastest_vendor() const {
    const VendorResult* best = nullptr;
    for (const auto& v : vendors)
      if (v.in_fastest && v.status == "ok" && (!best || v.ms < best->ms)) best = &v;
    return best;
  }
};

inline VendorResult vendor_result(std::string name, const ktune::Outcome& o,
                                  std::string kernel = "") {
  VendorResult v;
  v.name = std::move(name);
  v.kernel = std::move(kernel);
  v.status = std::string(ktune::to_string(o.status));
  v.message = o.message;
  if (o.status == ktune::Status::ok) v.ms = o.timing.median_ms;
  return v;
}

inline ShapeResult shape_result(std::string config, const ktune::Outcome& deployed,
                                std::vector<VendorResult> vendors) {
  ShapeResult r;
  r.config = std::move(config);
  r.status = std::string(ktune::to_string(deployed.status));
  r.message = deployed.message;
  r.rel_error = deployed.rel_error;
  if (deployed.status == ktune::Status::ok) r.deployed_ms = deployed.timing.median_ms;
  r.vendors = std::move(vendors);
  return r;
}

// How the CPU side alternates the libraries on one shape.
struct CpuProtocol {
  // An idle pause before each library's runs, so that each starts once the previous one's
  // threads sleep (cpu::kSettleMs in kernels/gemm/cpu/gemm_cpu_vendors.hpp says why).
  double gap_ms = 0;  // tuned_gemm_bench: cpu::kSettleMs by default
  // Rounds over all libraries, each starting with the next library; a library's time is the
  // median of its round medians (measure_cpu.cpp says why).
  int rounds = 1;
};

ShapeResult measure_cpu(const ktune::kernels::gemm::Shape& shape, uint64_t seed,
                        const ktune::TimingPolicy& policy, const CpuProtocol& protocol);
// What the CUDA side times beside the deployed library, in the tensor-core precisions.
struct CudaProtocol {
  // Also the fastest of cuBLASLt's first lt_top algorithms (the sweep's cublaslt-top8 row,
  // beside the vendors, never the `vendor` column); 0 skips that search.
  int lt_top = 8;
  // > 1: the deployed library, cuBLAS and cuBLASLt #0 timed in turns (timed_in_turns.hpp), each
  // the median of its rounds; 1: one after another, the deployed library first.
  int rounds = 1;
  // > 0: the library's cuBLASLt call against the benchmark's, in turns over that many rounds, one
  // "lt-call-ab" line per shape (scripts/gemm_lt_call_ab.py reads it).
  int lt_ab_rounds = 0;
  // > 0: each call after itself and after the other, in turns over that many rounds: the
  // library's call twice, then the library's and cuBLASLt #0's, then cuBLASLt #0 twice; one
  // "turns-probe" line per shape (does a call slow down after another library's kernel?).
  int probe_rounds = 0;
  // C (and the vendors' C / D) in the 16-bit input type of a bf16 / fp16 problem instead of FP32
  // (tuned_gemm_bench --output input); tf32 keeps FP32 C.
  bool c16 = false;
};

// Device 0; also says whether a CUDA device exists.
bool cuda_available();
ShapeResult measure_cuda(const ktune::kernels::gemm::Shape& shape, uint64_t seed,
                         const ktune::TimingPolicy& policy, const CudaProtocol& protocol);
// Prints what the CUDA library's first selector call costs (a multi-device library identifies
// the GPU then) against the later ones, and the device choices made (ktune/tuned_device.hpp).
void print_first_call_cost();
// The host cost per ktune::gemm_ex call on its cuBLASLt path against the bare calls it wraps
// (host_call_cost_cuda.cpp).
void print_host_call_cost();

}  // namespace tuned_gemm
