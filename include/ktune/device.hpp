#pragma once
// Devices: a spec ("cpu", "cuda:0") resolves to a stable slug and hardware features used as ML
// features and recorded beside every measurement.
#include <string>
#include <utility>
#include <vector>

namespace ktune {

struct DeviceInfo {
  std::string spec;     // as given on the command line: "cpu", "cuda:0"
  std::string backend;  // "cpu" or "cuda"
  std::string slug;     // stable, file-name safe: "h100-sxm", "xeon-8480-2c"
  std::string name;     // human readable model name
  std::vector<std::pair<std::string, double>> features;

  std::string features_json() const;
};

// Splits "cuda:1" into ("cuda", 1); "cpu" into ("cpu", 0). Throws Error for anything else.
std::pair<std::string, int> parse_device_spec(const std::string& spec);

DeviceInfo query_cpu_device();

// The slugs of devices that measure one sweep together (ktune bench --device cuda:all): devices
// with the same name, compute capability and memory are one device and share their slug, so
// their measurements form one dataset; devices that differ keep their own slugs, and where two
// different ones have the same slug each gets "-<memory GiB>gib-cc<capability>" appended.
std::vector<std::string> shared_device_slugs(const std::vector<DeviceInfo>& devices);

// Lower-cases, keeps [a-z0-9], turns runs of anything else into one '-'.
std::string slugify(const std::string& text);

}  // namespace ktune
