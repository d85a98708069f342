#pragma once
// Code generation for multi-device libraries (docs/deploy.md, "Several devices in one library"):
// the tree selectors of one family on several devices as one header. It ships the union of the
// devices' configs (kConfigs; each device's selector in a namespace device_<i> of its own, its
// answers mapped into the union) and records every device (slug, name, device features). Its
// select() asks the tuned libraries' runtime once, at the first call, which device's selector to
// serve (ktune_tuned_pick_device, ktune/tuned_device.hpp), then only indexes a cached choice.
// kBaseline is the first device's; kSafeOrder interleaves the devices' safe orders; kUnsure is
// stated when every device's selector has an unsure rule serving the same config.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ktune/ml/codegen.hpp"

namespace ktune::ml {

struct DeviceRecord {
  std::string slug, name;                                // name: the model name; may be empty
  std::vector<std::pair<std::string, double>> features;  // ktune bench's device features
};

struct DeviceSelector {
  nlohmann::json model;  // a tree selector model of the device
  std::string dataset;   // recorded in the header's comment
  DeviceRecord device;
};

// "<slug>\t<name>\t<feature>=<value>;...": how the header records a device for the runtime.
std::string device_record(const DeviceRecord& d);

// The header text (namespace options.namespace_name). Throws Error (one line) for fewer than two
// devices, two of one slug, devices of different families or features, unsure rules that serve
// different configs, or a model codegen refuses.
std::string generate_multi_device_header(const std::vector<DeviceSelector>& devices,
                                         const CodegenOptions& options);

}  // namespace ktune::ml
