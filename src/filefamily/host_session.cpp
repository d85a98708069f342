// Host sessions of file families (host_session.hpp).
#include "src/filefamily/host_session.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "ktune/error.hpp"
#include "ktune/host_measure.hpp"
#include "src/filefamily/file_family.hpp"
#include "src/filefamily/launch.hpp"
#include "src/filefamily/problem_data.hpp"

namespace ktune::filefamily {
namespace {

class HostSession final : public ProblemSession {
 public:
  HostSession(const FileFamily& family, const Problem& problem, double llc_bytes)
      : family_(family), problem_(problem), data_(family, problem) {
    rotation_ = host_rotation(data_.vector_bytes(), llc_bytes);
    const size_t args = family.spec().arguments.size();
    buffers_.resize(rotation_.copies);
    pointers_.resize(rotation_.copies);
    for (size_t c = 0; c < rotation_.copies; ++c) {
      for (size_t i = 0; i < args; ++i) {
        buffers_[c].emplace_back(data_.initial(i).bytes);
        std::memcpy(buffers_[c][i].data.get(), data_.initial(i).data.get(), data_.initial(i).bytes);
        pointers_[c].push_back(buffers_[c][i].data.get());
      }
    }
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    const auto kernel = family_.kernel(config);
    if (const auto* why = std::get_if<std::string>(&kernel)) return failed_outcome(*why);
    if (auto why = launch_refusal(family_.launch_sizes(problem_, config)))
      return refused_outcome(*why);
    const EntryPoint entry = std::get<Loaded>(kernel).entry;
    auto verify = [&] {
      reset_copy0();
      entry(pointers_[0].data());
      return data_.judge([&](size_t arg) { return buffers_[0][arg].data.get(); });
    };
    auto run_copy = [&](size_t c) { entry(pointers_[c].data()); };
    return verify_then_time_on_host(verify, run_copy, rotation_, policy);
  }

  std::vector<std::string> vendors() const override { return {}; }
  Outcome run_vendor(const std::string& vendor, const TimingPolicy&) override {
    throw Error(fmt::format("family {} has no vendor baseline '{}'", family_.name(), vendor));
  }

 private:
  // Copy 0 as before any run: inputs from the initial data, write-only outputs poisoned.
  void reset_copy0() {
    const auto& args = family_.spec().arguments;
    for (size_t i = 0; i < args.size(); ++i) {
      std::byte* p = buffers_[0][i].data.get();
      if (args[i].access == Access::write_only && !args[i].scalar)
        poison(args[i].type, p, data_.count(i));
      else
        std::memcpy(p, data_.initial(i).data.get(), data_.initial(i).bytes);
    }
  }

  const FileFamily& family_;
  Problem problem_;
  ProblemData data_;
  HostRotation rotation_;
  std::vector<std::vector<Buffer>> buffers_;
  std::vector<std::vector<void*>> pointers_;
};

}  // namespace

std::unique_ptr<ProblemSession> open_host_session(const FileFamily& family, const Problem& problem,
                                                  double llc_bytes) {
  return std::make_unique<HostSession>(family, problem, llc_bytes);
}

}  // namespace ktune::filefamily
