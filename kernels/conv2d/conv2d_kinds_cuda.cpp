// The CUDA kinds of the conv2d space (owned by the CUDA side of issue #12). Appended after the
// CPU kinds; append new kinds at the end only (see kernels/conv2d/conv2d_kinds.hpp).
#include "kernels/conv2d/conv2d_kinds.hpp"

namespace ktune::kernels::conv2d {

void add_cuda_kinds(std::vector<SpaceKind>& kinds) {
  (void)kinds;  // none yet: cuda_direct, cuda_im2col, cuda_gemm1x1, cuda_winograd go here
}

}  // namespace ktune::kernels::conv2d
