#pragma once
// `ktune bench --device`: one device ("cpu", "cuda:1") or several CUDA devices of this host
// ("cuda:all", "cuda:0,1", "cuda:0,cuda:2"), each measured by its own worker thread.
#include <string>
#include <vector>

#include "ktune/device.hpp"

namespace ktune::cli {

// The device specs a --device value names, in order. Throws Error naming the value when it is
// malformed, repeats a device, names a missing one, or lists devices without CUDA.
std::vector<std::string> expand_device_list(const std::string& value);

// Descriptions of the listed CUDA devices (name, features) for the slug rule, queried without
// opening a backend.
std::vector<DeviceInfo> describe_devices(const std::vector<std::string>& specs);

}  // namespace ktune::cli
