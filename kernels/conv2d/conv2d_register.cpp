// Registers the conv2d family and its CPU backend (called by ktune::register_builtin).
#include <memory>

#include "kernels/conv2d/conv2d_family.hpp"

namespace ktune::kernels::conv2d {

void register_builtin() { register_family(std::make_unique<Conv2dFamily>()); }

}  // namespace ktune::kernels::conv2d
