#pragma once
// One stencil run on the CPU with a given work-group (the backend's kernel, also for tests).
#include "kernels/stencil/stencil_family.hpp"
#include "kernels/stencil/stencil_reference.hpp"

namespace ktune::stencil {

// Any positive work-group shape (not only the space's); out must be sized like in.
void run_cpu(const Scenario& s, const WorkGroup& wg, const HostMatrix& in, HostMatrix& out);

}  // namespace ktune::stencil
