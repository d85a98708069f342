#include "ktune/provenance.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "ktune/error.hpp"
#include "ktune/family.hpp"

#ifndef KTUNE_VERSION
#error "KTUNE_VERSION must be defined by the build (CMakeLists.txt)"
#endif

namespace ktune {
namespace {

// FNV-1a: a stable digest (std::hash may differ between standard libraries).
struct Fnv1a {
  uint64_t h = 1469598103934665603ull;
  void add(const std::string& text) {
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;  // a separator, so "ab","c" differs from "a","bc"
  }
};

}  // namespace

std::string space_record_key(const std::string& family) { return "space:" + family; }

std::string code_version() { return std::string("ktune-") + KTUNE_VERSION; }

std::string space_fingerprint(const Space& space) {
  Fnv1a f;
  f.add(space.family());
  for (const SpaceKind& kind : space.kinds()) {
    f.add("kind " + kind.name);
    for (const Param& p : kind.params) {
      f.add("param " + p.name);
      for (const auto& v : p.values) f.add(v);
    }
  }
  // Constraints are code: the configs they keep stand for them.
  for (const Config& c : space.enumerate()) f.add(std::to_string(c.id));
  return fmt::format("{:016x}", f.h);
}

void check_records_agree(const std::map<std::string, std::string>& first,
                         const std::map<std::string, std::string>& second, const std::string& what,
                         const std::string& against) {
  for (const auto& [key, value] : second) {
    const auto it = first.find(key);
    if (it == first.end() || it->second == value) continue;
    throw Error(
        fmt::format("'{}' records {} '{}' but {} has '{}': measurements of different "
                    "code or config spaces do not mix",
                    what, key, value, against, it->second));
  }
}

std::string vendor_record_key(const std::string& device_slug, const std::string& vendor) {
  return "vendor:" + device_slug + ":" + vendor;
}

void stamp_vendors(Store& store, const Backend& backend) {
  std::map<std::string, std::string> ours;
  for (const auto& [vendor, description] : backend.vendor_descriptions())
    ours[vendor_record_key(backend.device().slug, vendor)] = description;
  check_records_agree(ours, store.records(), store.path(), "this run");  // before any write
  for (const auto& [key, value] : ours) store.put_record(key, value);
}

void stamp_store(Store& store, const Space& space) {
  const std::map<std::string, std::string> ours = {
      {kCodeVersionRecord, code_version()},
      {space_record_key(space.family()), space_fingerprint(space)}};
  check_records_agree(ours, store.records(), store.path(), "this ktune");  // before any write
  for (const auto& [key, value] : ours) store.put_record(key, value);
}

}  // namespace ktune
