// The stencil family's registration entry (called by the generated family list), and its
// built-in workloads.
#include <memory>

#include "kernels/stencil/stencil_family.hpp"
#include "ktune/workload.hpp"

namespace ktune::stencil {

void register_cpu_backend();  // cpu/stencil_cpu_backend.cpp

Workload StencilFamily::builtin_workload(const std::string& name) const {
  const std::string file = name.rfind("stencil-", 0) == 0 ? name + ".csv" : "stencil-" + name + ".csv";
  return {name, parse_workload_csv(*this, embedded_file(file), "workloads/stencil/" + file)};
}

}  // namespace ktune::stencil

KTUNE_FAMILY_ENTRY(stencil) {
  ktune::register_family(std::make_unique<ktune::stencil::StencilFamily>());
  ktune::stencil::register_cpu_backend();
}
