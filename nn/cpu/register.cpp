// register_cpu_backends(): the CPU backends this build has (CMake defines KTUNE_NN_ONEDNN when
// oneDNN is found).
#include "ktune/nn/registry.hpp"
#include "nn/cpu/bf16_backends.hpp"
#include "nn/cpu/reference.hpp"

namespace ktune::nn {

void register_cpu_backends() {
  cpu::register_reference_backend();
  cpu::register_ktune_backend();
  cpu::register_ktune_bf16_backend();
#ifdef KTUNE_NN_ONEDNN
  cpu::register_onednn_backend();
  cpu::register_auto_backend();  // ktune's and oneDNN's (both algorithms), per layer
  cpu::register_onednn_bf16_backend();
#endif
}

}  // namespace ktune::nn
