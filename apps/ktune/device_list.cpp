#include "apps/ktune/device_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "ktune/error.hpp"

#ifdef KTUNE_HAVE_CUDA
#include "ktune/cuda.hpp"
#endif

namespace ktune::cli {
namespace {

int cuda_devices(const std::string& value) {
#ifdef KTUNE_HAVE_CUDA
  const int count = cuda_device_count();
  if (count == 0) throw Error(fmt::format("--device {}: no CUDA device available", value));
  return count;
#else
  throw Error(fmt::format("--device {}: this ktune was built without CUDA", value));
#endif
}

}  // namespace

std::vector<std::string> expand_device_list(const std::string& value) {
  if (value != "cuda:all" && value.find(',') == std::string::npos) {
    parse_device_spec(value);  // throws for anything but cpu / cuda:N
    return {value};
  }
  if (value.rfind("cuda:", 0) != 0)
    throw Error(fmt::format("--device {}: only CUDA devices can be listed (cuda:all, cuda:0,1)",
                            value));
  const int count = cuda_devices(value);
  std::vector<std::string> specs;
  if (value == "cuda:all") {
    for (int i = 0; i < count; ++i) specs.push_back(fmt::format("cuda:{}", i));
    return specs;
  }
  std::stringstream items(value.substr(5));
  std::string item;
  while (std::getline(items, item, ',')) {
    const std::string spec = item.rfind("cuda:", 0) == 0 ? item : "cuda:" + item;
    try {
      parse_device_spec(spec);
    } catch (const Error&) {
      throw Error(fmt::format("--device {}: '{}' is not a CUDA device index", value, item));
    }
    if (parse_device_spec(spec).second >= count)
      throw Error(fmt::format("--device {}: no {} (this host has cuda:0..cuda:{})", value, spec,
                              count - 1));
    if (std::find(specs.begin(), specs.end(), spec) != specs.end())
      throw Error(fmt::format("--device {}: {} is listed twice", value, spec));
    specs.push_back(spec);
  }
  return specs;
}

std::vector<DeviceInfo> describe_devices(const std::vector<std::string>& specs) {
  std::vector<DeviceInfo> out;
#ifdef KTUNE_HAVE_CUDA
  for (const auto& spec : specs) out.push_back(query_cuda_device(parse_device_spec(spec).second));
#else
  if (!specs.empty()) cuda_devices(specs.front());
#endif
  return out;
}

}  // namespace ktune::cli
