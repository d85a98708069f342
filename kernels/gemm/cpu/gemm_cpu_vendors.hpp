#pragma once
// The CPU vendor GEMM libraries the GEMM family compares with (OpenBLAS, oneDNN), behind one
// interface shared by the sweep's backend and the deployed-library benchmark, so both run the
// vendors the same way and record which kernel each library dispatched.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/gemm/gemm_family.hpp"

namespace ktune::kernels::gemm::cpu {

// An idle pause before a library's verified and timed runs: OpenBLAS's pthread workers spin
// after a call until their timeout (2^28 TSC cycles by default, over 100 ms at 2 GHz), an
// OpenMP team briefly, and on 2 cores a library timed next to them runs a thread short (a
// 2-thread team waits for a thread that is not scheduled). 100 ms was too short: on the 2-core
// AMD EPYC the demo then timed oneDNN, which runs after OpenBLAS, at 66-181 GFLOP/s on its three
// shapes, and at 204-346 GFLOP/s with 250 ms (two runs' medians within 10 % of each other).
inline constexpr double kSettleMs = 250;

// The call arguments of a shape (leading dimensions, packed batch strides), without pointers.
Args shape_args(const Shape& s, float alpha = 1, float beta = 0);
Bf16Args shape_args_bf16(const Shape& s, float alpha = 1, float beta = 0);

// Why `vendor` computes no GEMM of precision p on this build ("" when it does): OpenBLAS and
// oneDNN compute fp32; oneDNN bf16 too, OpenBLAS not (Debian's 0.3.21 declares cblas_sbgemm in
// cblas.h but its library, built without BUILD_BFLOAT16, does not export it).
std::string vendor_refuses(const std::string& vendor, Precision p);

// The vendors this build links, in order: "openblas", "onednn" (either may be absent).
std::vector<std::string> vendor_names();

// What a vendor runs on this machine, for the record: "OpenBLAS 0.3.21 core=SkylakeX
// config=..." or "oneDNN 2.6.3 isa=avx512_core_bf16". Throws Error for an unknown vendor.
std::string vendor_description(const std::string& vendor);

// vendor_description of every vendor of this build, by name: what a CPU sweep records in its
// store and what the deployed-library benchmark prints for its log.
std::map<std::string, std::string> vendor_descriptions();

// One vendor GEMM prepared for one shape (oneDNN builds its primitive here, outside any timed
// run). run() computes C = alpha*op(A)*op(B) + beta*C over the whole strided batch of `args`,
// whose shape, leading dimensions and strides must be those it was made for.
class VendorGemm {
 public:
  virtual ~VendorGemm() = default;
  virtual void run(const Args& args) = 0;
  // The same for a vendor made for a bf16 shape: bf16 A and B, FP32 C.
  virtual void run_bf16(const Bf16Args& args) = 0;
  // The library's implementation for this shape, when it names one ("brg:avx512_core").
  virtual std::string implementation() const { return ""; }
};

// Throws Error naming the vendor when this build does not have it or it refuses the shape (its
// precision included: vendor_refuses).
std::unique_ptr<VendorGemm> make_vendor_gemm(const std::string& vendor, const Shape& shape,
                                             float alpha = 1, float beta = 0);

}  // namespace ktune::kernels::gemm::cpu
