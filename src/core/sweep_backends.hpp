#pragma once
// The backend a run_sweep worker measures on (src/core/sweep.cpp): its own or the caller's, under
// the worker's device slug, and the replay (the simulation runner, replay.hpp) behind it if any.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/replay.hpp"

namespace ktune::sweep_backends {

class WorkerBackend final : public Backend {
 public:
  // `owned` is null for the caller's backend (the one-backend overload of run_sweep).
  WorkerBackend(std::unique_ptr<Backend> owned, Backend& inner, const std::string& slug)
      : owned_(std::move(owned)), inner_(inner), device_(inner.device()) {
    if (!slug.empty()) device_.slug = slug;  // identical devices share one (device.hpp)
    const auto* worker = dynamic_cast<const WorkerBackend*>(&inner_);
    replay_ = worker ? worker->replay() : dynamic_cast<const ReplayBackend*>(&inner_);
  }
  // The stored measurements this backend answers from; nullptr for a device.
  const ReplayBackend* replay() const { return replay_; }
  const DeviceInfo& device() const override { return device_; }
  bool implements(const Config& c) const override { return inner_.implements(c); }
  std::map<std::string, std::string> vendor_descriptions() const override {
    return inner_.vendor_descriptions();
  }
  void prepare(const std::vector<Config>& configs) override { inner_.prepare(configs); }
  std::unique_ptr<ProblemSession> open(const Problem& p) override { return inner_.open(p); }

 private:
  std::unique_ptr<Backend> owned_;
  Backend& inner_;
  DeviceInfo device_;
  const ReplayBackend* replay_ = nullptr;
};

}  // namespace ktune::sweep_backends
