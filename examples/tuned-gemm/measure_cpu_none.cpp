// Builds without OpenBLAS (the GPU machine's sysroot): --device cpu reports that there is no
// vendor library to compare with.
#include <stdexcept>

#include "examples/tuned-gemm/deployed_measure.hpp"

namespace tuned_gemm {

ShapeResult measure_cpu(const ktune::kernels::gemm::Shape&, uint64_t, const ktune::TimingPolicy&) {
  throw std::logic_error("this build has no OpenBLAS to compare the CPU tuned library with");
}

}  // namespace tuned_gemm
