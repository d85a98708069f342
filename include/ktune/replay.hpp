#pragma once
// The simulation runner: a backend that answers from stored measurements instead of a device,
// so `bench --simulate` runs a strategy through the one sweep driver (run_sweep, bench.hpp)
// offline. The driver writes each answer exactly as it was stored (status, timing, error, perf),
// considers for a problem only the configs the data holds for it, and records no provenance of
// this build (the rows were measured by another).
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ktune/family.hpp"

namespace ktune {

class ReplayBackend final : public Backend {
 public:
  // The config rows of `device` and `family` in `data`; throws Error when there are none.
  ReplayBackend(const Family& family, std::vector<Measurement> data, const std::string& device);
  const DeviceInfo& device() const override { return device_; }
  bool implements(const Config& config) const override;  // some problem holds it
  std::unique_ptr<ProblemSession> open(const Problem& problem) override;
  // The stored measurement of a (problem key, config string), or nullptr.
  const Measurement* find(const std::string& problem, const std::string& config) const;

 private:
  const Space& space_;
  std::vector<Measurement> data_;
  std::map<std::pair<std::string, std::string>, const Measurement*> rows_;
  std::set<std::string> configs_;
  DeviceInfo device_;
};

}  // namespace ktune
