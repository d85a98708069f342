#include <fmt/format.h>

#include <map>

#include "ktune/error.hpp"
#include "ktune/family.hpp"

namespace ktune {

namespace {
struct Registry {
  std::map<std::string, std::unique_ptr<Family>> families;
  std::map<std::pair<std::string, std::string>, BackendFactory> backends;
  std::map<std::string, std::string> embedded;
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

Workload Family::builtin_workload(const std::string& name) const {
  (void)name;
  return {};
}

std::vector<Problem> Family::workload_variant(std::vector<Problem> problems,
                                              const std::string& variant) const {
  (void)problems;
  throw Error(fmt::format("the {} family has no workload variant '{}'", name(), variant));
}

std::string Family::feature_text(const std::string& name, double value) const {
  (void)name;
  return fmt::format("{}", value);
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

const Family* find_registered_family(const std::string& name) {
  auto& families = registry().families;
  auto it = families.find(name);
  return it == families.end() ? nullptr : it->second.get();
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

void register_embedded_file(const std::string& name, const std::string& text) {
  auto [it, fresh] = registry().embedded.emplace(name, text);
  if (!fresh && it->second != text)
    throw Error(fmt::format("two families embed different files named '{}'", name));
}

const std::string& embedded_file(const std::string& name) {
  const auto& files = registry().embedded;
  auto it = files.find(name);
  if (it == files.end())
    throw Error(fmt::format("embedded file '{}' is missing from this build", name));
  return it->second;
}

}  // namespace ktune
