// The conv2d family's registration entry (called by the generated family list) and its
// built-in workloads.
#include <memory>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"

namespace ktune::kernels::conv2d {

void register_cpu_backend();  // kernels/conv2d/cpu/conv2d_cpu_backend.cpp

std::vector<std::string> Conv2dFamily::builtin_workloads() const {
  return conv2d::builtin_workload_names();
}

Workload Conv2dFamily::builtin_workload(const std::string& name) const {
  return {name, conv2d::builtin_workload(name)};
}

}  // namespace ktune::kernels::conv2d

KTUNE_FAMILY_ENTRY(conv2d) {
  ktune::register_family(std::make_unique<ktune::kernels::conv2d::Conv2dFamily>());
  ktune::kernels::conv2d::register_cpu_backend();
}
