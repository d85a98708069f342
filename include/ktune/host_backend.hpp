#pragma once
// The CPU backend of every family's host kernels: the host as device "cpu" (index 0 only), its
// last-level cache size for the buffer rotation (host_measure.hpp), and the family's sessions.
// A family registers its CPU backend with one call instead of a Backend class of its own.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "ktune/family.hpp"

namespace ktune {

// Opens the family's session for one problem; llc_bytes = last_level_cache_bytes(host).
using HostSessionFactory = std::function<std::unique_ptr<ProblemSession>(
    const Family& family, const Problem& problem, double llc_bytes)>;
// Whether the host has a kernel for the config's kind (Backend::implements).
using HostConfigFilter = std::function<bool(const Family& family, const Config& config)>;
// What the family's vendor libraries run on the host (Backend::vendor_descriptions).
using HostVendorDescriptions = std::function<std::map<std::string, std::string>()>;

// The factory of a session type constructible from (family, problem, llc_bytes).
template <typename Session>
HostSessionFactory host_sessions() {
  return [](const Family& family, const Problem& problem,
            double llc_bytes) -> std::unique_ptr<ProblemSession> {
    return std::make_unique<Session>(family, problem, llc_bytes);
  };
}

// Registers the family's "cpu" backend; an empty filter accepts every config. Opening any
// device index but 0 throws Error "device 'cpu:N': only one cpu device exists".
void register_host_backend(const std::string& family, HostSessionFactory open,
                           HostConfigFilter implements = {},
                           HostVendorDescriptions vendor_descriptions = {});

}  // namespace ktune
