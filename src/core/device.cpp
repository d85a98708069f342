#include "ktune/device.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "ktune/error.hpp"

namespace ktune {

std::string DeviceInfo::features_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : features) j[name] = value;
  return j.dump();
}

std::pair<std::string, int> parse_device_spec(const std::string& spec) {
  if (spec == "cpu") return {"cpu", 0};
  const std::string prefix = "cuda:";
  if (spec.rfind(prefix, 0) == 0) {
    int index = -1;
    const char* begin = spec.data() + prefix.size();
    const char* end = spec.data() + spec.size();
    auto [ptr, ec] = std::from_chars(begin, end, index);
    if (ec == std::errc() && ptr == end && begin != end && index >= 0) return {"cuda", index};
  }
  throw Error(fmt::format("unknown device '{}' (expected cpu or cuda:N)", spec));
}

std::string slugify(const std::string& text) {
  std::string out;
  bool dash = false;
  for (unsigned char ch : text) {
    if (std::isalnum(ch)) {
      if (dash && !out.empty()) out += '-';
      out += static_cast<char>(std::tolower(ch));
      dash = false;
    } else {
      dash = true;
    }
  }
  return out;
}

namespace {

double feature(const DeviceInfo& d, const std::string& name) {
  for (const auto& [n, v] : d.features)
    if (n == name) return v;
  return 0;
}

}  // namespace

std::vector<std::string> shared_device_slugs(const std::vector<DeviceInfo>& devices) {
  // What makes two devices one: name, compute capability, memory (clocks vary between boards).
  using Identity = std::tuple<std::string, double, double>;
  auto identity = [](const DeviceInfo& d) {
    return Identity{d.name, feature(d, "compute_capability"), feature(d, "global_mem_bytes")};
  };
  std::map<std::string, std::set<Identity>> identities_of_slug;
  for (const auto& d : devices) identities_of_slug[d.slug].insert(identity(d));
  std::vector<std::string> out;
  for (const auto& d : devices) {
    if (identities_of_slug[d.slug].size() == 1) {
      out.push_back(d.slug);
      continue;
    }
    out.push_back(fmt::format("{}-{}gib-cc{}", d.slug,
                              std::lround(feature(d, "global_mem_bytes") / (1 << 30)),
                              std::lround(feature(d, "compute_capability") * 10)));
  }
  return out;
}

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "48K" -> 49152; "32768K" -> 33554432; "1M" -> 1048576.
double parse_cache_size(const std::string& text) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc()) return 0;
  if (ptr != text.data() + text.size()) {
    if (*ptr == 'K') value *= 1024;
    if (*ptr == 'M') value *= 1024 * 1024;
  }
  return value;
}

std::string cpu_model_and_flags(std::string* flags) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model;
  while (std::getline(in, line)) {
    auto value = [&] { return line.substr(line.find(':') + 2); };
    if (model.empty() && line.rfind("model name", 0) == 0) model = value();
    if (flags->empty() && line.rfind("flags", 0) == 0) *flags = " " + value() + " ";
    if (!model.empty() && !flags->empty()) break;
  }
  return model.empty() ? "unknown-cpu" : model;
}

}  // namespace

DeviceInfo query_cpu_device() {
  DeviceInfo d;
  d.spec = "cpu";
  d.backend = "cpu";
  std::string flags;
  d.name = cpu_model_and_flags(&flags);
  const int threads = omp_get_max_threads();
  d.slug = fmt::format("{}-{}c", slugify(d.name), threads);
  double simd_floats = 4;  // SSE is the x86-64 baseline
  if (flags.find(" avx2 ") != std::string::npos) simd_floats = 8;
  if (flags.find(" avx512f ") != std::string::npos) simd_floats = 16;
  d.features = {{"threads", threads}, {"simd_floats", simd_floats}};
  for (int i = 0; i < 8; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    const std::string level = read_first_line(dir + "level");
    if (level.empty()) break;
    const std::string type = read_first_line(dir + "type");
    if (type == "Instruction") continue;
    d.features.emplace_back(fmt::format("l{}_bytes", level),
                            parse_cache_size(read_first_line(dir + "size")));
  }
  return d;
}

}  // namespace ktune
