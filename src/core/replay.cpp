// The simulation runner (see replay.hpp).
#include "ktune/replay.hpp"

#include <fmt/format.h>

#include "ktune/error.hpp"

namespace ktune {
namespace {

// A problem's stored outcomes; the driver writes the stored rows themselves (find()).
class ReplaySession final : public ProblemSession {
 public:
  ReplaySession(const ReplayBackend& backend, const Space& space, std::string problem)
      : backend_(backend), space_(space), problem_(std::move(problem)) {}
  Outcome run(const Config& config, const TimingPolicy&) override {
    if (const Measurement* m = backend_.find(problem_, space_.to_string(config))) return m->outcome;
    return refused_outcome("not in the replayed data");
  }
  std::vector<std::string> vendors() const override { return {}; }
  Outcome run_vendor(const std::string& vendor, const TimingPolicy&) override {
    return refused_outcome("no vendor rows are replayed: " + vendor);
  }

 private:
  const ReplayBackend& backend_;
  const Space& space_;
  std::string problem_;
};

}  // namespace

ReplayBackend::ReplayBackend(const Family& family, std::vector<Measurement> data,
                             const std::string& device)
    : space_(family.space()), data_(std::move(data)) {
  for (const auto& m : data_) {
    if (m.device != device || m.family != family.name() || m.vendor || m.config_id < 0) continue;
    rows_.emplace(std::pair{m.problem, m.config}, &m);
    configs_.insert(m.config);
  }
  if (rows_.empty())
    throw Error(
        fmt::format("simulation: no {} measurements of device '{}'", family.name(), device));
  device_.slug = device;
  device_.name = "simulated from stored measurements";
  device_.backend = "simulation";
}

bool ReplayBackend::implements(const Config& config) const {
  return configs_.count(space_.to_string(config)) > 0;
}

std::unique_ptr<ProblemSession> ReplayBackend::open(const Problem& problem) {
  return std::make_unique<ReplaySession>(*this, space_, problem.key());
}

const Measurement* ReplayBackend::find(const std::string& problem,
                                       const std::string& config) const {
  const auto it = rows_.find({problem, config});
  return it == rows_.end() ? nullptr : it->second;
}

}  // namespace ktune
