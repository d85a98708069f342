#pragma once
// What a store records about the code that measured into it, so that measurements of different
// builds or config spaces never end up in one dataset: a sweep refuses to resume into a store
// recorded by other code, and `ktune merge` refuses to combine such stores.
#include <map>
#include <string>

#include "ktune/space.hpp"
#include "ktune/store.hpp"

namespace ktune {

class Backend;  // family.hpp

// Record keys (Store::records): "code_version" and "space:<family>".
inline constexpr const char* kCodeVersionRecord = "code_version";
std::string space_record_key(const std::string& family);

// This build's measurement code version: "ktune-<project version>" (CMake project(VERSION)),
// raised whenever what a stored measurement means changes.
std::string code_version();
// A digest of a space: its kinds, params and values, and the ids its constraints keep.
std::string space_fingerprint(const Space& space);

// Before a sweep writes: records this build's version and the space's fingerprint in the store,
// or throws Error naming the store when it already records different ones.
void stamp_store(Store& store, const Space& space);

// Where a sweep that measures vendor rows records what a vendor library ran on a device
// ("vendor:<device slug>:<vendor>" → Backend::vendor_descriptions()), so that vendor rows of
// different builds or kernels (OpenBLAS's core follows OPENBLAS_CORETYPE) never mix either.
std::string vendor_record_key(const std::string& device_slug, const std::string& vendor);
// Records a backend's vendor descriptions for its device, or throws Error naming the store when
// it already records other ones (before any write).
void stamp_vendors(Store& store, const Backend& backend);

// Throws Error when two sets of records disagree on a key both hold; `what` is the second set's
// store path, `against` says whose the first set is ("'a.sqlite'", "this ktune"). A store made
// before records existed holds none and agrees with every other.
void check_records_agree(const std::map<std::string, std::string>& first,
                         const std::map<std::string, std::string>& second, const std::string& what,
                         const std::string& against);

}  // namespace ktune
