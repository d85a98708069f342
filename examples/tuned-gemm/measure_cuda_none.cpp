// Builds without the CUDA backend: --device cuda reports that there is none.
#include <stdexcept>

#include "examples/tuned-gemm/deployed_measure.hpp"

namespace tuned_gemm {

bool cuda_available() { return false; }

void print_first_call_cost() {}
void print_host_call_cost() {}

ShapeResult measure_cuda(const ktune::kernels::gemm::Shape&, uint64_t, const ktune::TimingPolicy&,
                         const CudaProtocol&) {
  throw std::logic_error("this build has no CUDA tuned library");
}

}  // namespace tuned_gemm
