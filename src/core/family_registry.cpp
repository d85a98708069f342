#include <fmt/format.h>

#include <map>
#include <mutex>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"

namespace ktune {

namespace kernels::gemm {
void register_cpu_backend();  // kernels/gemm/cpu
}
namespace stencil { void register_builtin(); }  // kernels/stencil/stencil_register.cpp
namespace kernels::conv2d { void register_builtin(); }  // kernels/conv2d/conv2d_register.cpp

namespace {
struct Registry {
  std::map<std::string, std::unique_ptr<Family>> families;
  std::map<std::pair<std::string, std::string>, BackendFactory> backends;
};
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

Problem Family::make_problem(const std::vector<double>& feature_values) const {
  Problem p;
  p.names = feature_names();
  if (feature_values.size() != p.names.size())
    throw Error(fmt::format("{} problems have {} features, got {}", name(), p.names.size(),
                            feature_values.size()));
  p.values = feature_values;
  validate(p);
  return p;
}

void register_family(std::unique_ptr<Family> family) {
  std::string name = family->name();
  registry().families[name] = std::move(family);
}

const Family& find_family(const std::string& name) {
  auto& families = registry().families;
  auto it = families.find(name);
  if (it == families.end()) {
    std::string known;
    for (const auto& [n, f] : families) known += (known.empty() ? "" : ", ") + n;
    throw Error(fmt::format("unknown family '{}' (known: {})", name, known));
  }
  return *it->second;
}

std::vector<std::string> family_names() {
  std::vector<std::string> out;
  for (const auto& [name, f] : registry().families) out.push_back(name);
  return out;
}

void register_backend(const std::string& family, const std::string& backend_kind,
                      BackendFactory factory) {
  registry().backends[{family, backend_kind}] = std::move(factory);
}

std::unique_ptr<Backend> open_backend(const Family& family, const std::string& device_spec) {
  auto [kind, index] = parse_device_spec(device_spec);
  auto it = registry().backends.find({family.name(), kind});
  if (it == registry().backends.end())
    throw Error(fmt::format("device '{}': no {} backend for family {} in this build", device_spec,
                            kind, family.name()));
  return it->second(family, index);
}

void register_builtin() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_family(std::make_unique<kernels::gemm::GemmFamily>());
    kernels::gemm::register_cpu_backend();
    stencil::register_builtin();
    kernels::conv2d::register_builtin();
  });
}

}  // namespace ktune
