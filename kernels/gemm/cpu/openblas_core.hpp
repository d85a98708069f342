#pragma once
// A fair OpenBLAS on any CPU (issue #27): where OpenBLAS's runtime detection falls back to a
// generic core (Debian's 0.3.21 names an Intel Xeon with AMX `Prescott`, an SSE3 kernel), a
// benchmark forces the core the CPU's flags call for (OPENBLAS_CORETYPE, read when OpenBLAS
// loads: for the bench command only), after checking that core's results against float64.
// scripts/openblas_core.sh runs the decision and the check (examples/tuned-gemm/openblas_core).
#include <functional>
#include <istream>
#include <set>
#include <string>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"

namespace ktune::kernels::gemm::cpu {

// The flags of /proc/cpuinfo's first "flags" line.
std::set<std::string> cpu_flags(std::istream& cpuinfo);

// The cores to force, best first, for a CPU with `flags` on which OpenBLAS detected `native`
// (openblas_get_corename() with OPENBLAS_CORETYPE unset): those its flags support whose kernels
// are wider than native's (SapphireRapids, Cooperlake, SkylakeX, Haswell, Sandybridge); empty
// when native is already as wide as the flags allow (nothing to force). A core the OpenBLAS build
// lacks is refused by its check (openblas_get_corename() then names another), so the next is tried.
std::vector<std::string> openblas_cores_to_try(const std::string& native,
                                               const std::set<std::string>& flags);

// A GEMM checked against the float64 reference on odd batched shapes in the four transpose pairs
// with padded leading dimensions, alpha and beta: ok, or the first shape's error beyond the bound.
struct CoreCheck {
  bool ok = false;
  std::string message;  // "max relative error 1.2e-07" or what failed
};
CoreCheck check_gemm_against_float64(const std::function<void(const Args&)>& gemm);

}  // namespace ktune::kernels::gemm::cpu
