// The shared CPU backend (see host_backend.hpp).
#include "ktune/host_backend.hpp"

#include <fmt/format.h>

#include <utility>

#include "ktune/error.hpp"
#include "ktune/host_measure.hpp"

namespace ktune {
namespace {

class HostBackend final : public Backend {
 public:
  HostBackend(const Family& family, HostSessionFactory open, HostConfigFilter implements,
              HostVendorDescriptions vendors)
      : family_(family),
        open_(std::move(open)),
        implements_(std::move(implements)),
        vendors_(std::move(vendors)),
        device_(query_cpu_device()),
        llc_bytes_(last_level_cache_bytes(device_)) {}
  const DeviceInfo& device() const override { return device_; }
  bool implements(const Config& config) const override {
    return !implements_ || implements_(family_, config);
  }
  std::map<std::string, std::string> vendor_descriptions() const override {
    return vendors_ ? vendors_() : std::map<std::string, std::string>{};
  }
  std::unique_ptr<ProblemSession> open(const Problem& problem) override {
    return open_(family_, problem, llc_bytes_);
  }

 private:
  const Family& family_;
  HostSessionFactory open_;
  HostConfigFilter implements_;
  HostVendorDescriptions vendors_;
  DeviceInfo device_;
  double llc_bytes_;
};

}  // namespace

void register_host_backend(const std::string& family, HostSessionFactory open,
                           HostConfigFilter implements, HostVendorDescriptions vendors) {
  register_backend(
      family, "cpu",
      [open = std::move(open), implements = std::move(implements), vendors = std::move(vendors)](
          const Family& f, int index) -> std::unique_ptr<Backend> {
        if (index != 0) {
          throw Error(fmt::format("device 'cpu:{}': only one cpu device exists", index));
        }
        return std::make_unique<HostBackend>(f, open, implements, vendors);
      });
}

}  // namespace ktune
