// Multi-device tuned libraries: which measured device's selector to serve (ktune/tuned_device.hpp).
// Names no family.
#include "ktune/tuned_device.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace ktune {
namespace {

std::mutex& choices_mutex() {
  static std::mutex m;
  return m;
}

std::vector<TunedDeviceChoice>& choices() {
  static std::vector<TunedDeviceChoice> c;
  return c;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end; (end = s.find(sep, start)) != std::string::npos; start = end + 1)
    parts.push_back(s.substr(start, end - start));
  parts.push_back(s.substr(start));
  return parts;
}

// "f=v" items (empty items skipped) appended to d.features; `what` names the input in errors.
void parse_features(const std::vector<std::string>& items, size_t first, tuned_device::Device& d,
                    const std::string& what) {
  for (size_t i = first; i < items.size(); ++i) {
    if (items[i].empty()) continue;
    const size_t eq = items[i].find('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(items[i].c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == items[i].c_str() + eq + 1 || *end != '\0' ||
        !std::isfinite(v))
      throw std::invalid_argument(what + ": feature '" + items[i] + "' is not <name>=<number>");
    d.features.emplace_back(items[i].substr(0, eq), v);
  }
}

// `ktune bench`'s slug rule (ktune::slugify): lower-case [a-z0-9] runs joined by '-'.
std::string slug_of(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
    if (keep)
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

const double* feature(const tuned_device::Device& d, const std::string& name) {
  for (const auto& [n, v] : d.features)
    if (n == name) return &v;
  return nullptr;
}

// Mean |log2(a / b)| over the features both devices record with positive values (a factor of 2
// in one feature counts 1); negative when they share none.
double distance(const tuned_device::Device& a, const tuned_device::Device& b) {
  double sum = 0;
  int shared = 0;
  for (const auto& [name, v] : a.features) {
    const double* w = feature(b, name);
    if (!w || v <= 0 || *w <= 0) continue;
    sum += std::fabs(std::log2(v / *w));
    ++shared;
  }
  return shared ? sum / shared : -1;
}

std::string describe(const tuned_device::Device& d) {
  return d.name.empty() || d.name == d.slug ? d.slug : d.slug + " (" + d.name + ")";
}

tuned_device::Device detect_cuda(const char* name, const double* f) {
  tuned_device::Device d;
  if (!name) return {"unknown-cuda-device", "", {}};
  d.name = name;
  d.slug = slug_of(d.name);
  if (d.slug.rfind("nvidia-", 0) == 0) d.slug.erase(0, 7);  // as ktune bench: "h100-80gb-hbm3"
  if (f)
    d.features = {{"sm_count", f[0]},
                  {"compute_capability", f[1]},
                  {"global_mem_bytes", f[2]},
                  {"l2_bytes", f[3]}};
  return d;
}

}  // namespace

std::vector<TunedDeviceChoice> tuned_device_choices() {
  std::lock_guard lock(choices_mutex());
  return choices();
}

namespace tuned_device {

Device parse_record(const std::string& record) {
  const auto fields = split(record, '\t');
  if (fields.size() != 3 || fields[0].empty())
    throw std::invalid_argument("device record '" + record +
                                "' is not <slug>\\t<name>\\t<features>");
  Device d{fields[0], fields[1], {}};
  parse_features(split(fields[2], ';'), 0, d, "device record of " + d.slug);
  return d;
}

Device parse_override(const std::string& text) {
  const auto items = split(text, ';');
  if (items[0].empty()) throw std::invalid_argument("device '" + text + "' names no slug");
  Device d{items[0], "", {}};
  parse_features(items, 1, d, "device '" + text + "'");
  return d;
}

Device detect_cpu() {
  Device d;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string flags;
  for (std::string line; std::getline(cpuinfo, line) && (d.name.empty() || flags.empty());) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t at = line.find_first_not_of(' ', colon + 1);
    const std::string value = at == std::string::npos ? "" : line.substr(at);
    if (d.name.empty() && line.rfind("model name", 0) == 0) d.name = value;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = " " + value + " ";
  }
  if (d.name.empty()) d.name = "unknown-cpu";
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  d.slug = slug_of(d.name) + "-" + std::to_string(threads) + "c";
  const double simd = flags.find(" avx512f ") != std::string::npos ? 16
                      : flags.find(" avx2 ") != std::string::npos  ? 8
                                                                   : 4;
  d.features = {{"threads", double(threads)}, {"simd_floats", simd}};
  for (int i = 0; i < 8; ++i) {  // the data and unified caches, as ktune bench records them
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = first_line(dir + "level"), size = first_line(dir + "size");
    if (level.empty()) break;
    if (first_line(dir + "type") == "Instruction" || size.empty()) continue;
    char* end = nullptr;
    double bytes = std::strtod(size.c_str(), &end);
    bytes *= *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : 1;
    d.features.emplace_back("l" + level + "_bytes", bytes);
  }
  return d;
}

int choose(const Device& detected, const std::vector<Device>& measured, TunedDeviceChoice& choice) {
  if (measured.empty()) throw std::invalid_argument("no measured device to choose from");
  choice.detected = describe(detected);
  choice.exact = false;
  auto pick = [&](size_t i, std::string reason) {
    choice.device = measured[i].slug;
    choice.reason = std::move(reason);
    return int(i);
  };
  for (size_t i = 0; i < measured.size(); ++i) {
    if (measured[i].slug == detected.slug) {
      choice.exact = true;
      return pick(i, "the measured device of the same slug");
    }
  }
  for (size_t i = 0; i < measured.size(); ++i) {
    const double *t = feature(measured[i], "threads"), *u = feature(detected, "threads");
    if (!detected.name.empty() && measured[i].name == detected.name && (!t || !u || *t == *u)) {
      choice.exact = true;
      return pick(i, "the measured device of the same name");
    }
  }
  int best = -1;
  double best_distance = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    const double d = distance(detected, measured[i]);
    if (d >= 0 && (best < 0 || d < best_distance)) best = int(i), best_distance = d;
  }
  if (best >= 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", best_distance);
    return pick(size_t(best), std::string("an unknown device: the nearest measured device by "
                                          "device features (mean |log2 ratio| ") +
                                  text + ")");
  }
  return pick(0,
              "an unknown device with no features shared with a measured one: the first "
              "measured device");
}

}  // namespace tuned_device
}  // namespace ktune

extern "C" int ktune_tuned_pick_device(const char* library, const char* backend,
                                       const char* const* records, int count, const char* cuda_name,
                                       const double* cuda_features) {
  using namespace ktune;
  TunedDeviceChoice choice;
  choice.library = library ? library : "";
  choice.backend = backend ? backend : "";
  int index = 0;
  try {
    std::vector<tuned_device::Device> measured;
    for (int i = 0; i < count; ++i) measured.push_back(tuned_device::parse_record(records[i]));
    const bool cuda = choice.backend == "cuda";
    const char* override_env = std::getenv(cuda ? "KTUNE_DEVICE_CUDA" : "KTUNE_DEVICE_CPU");
    const tuned_device::Device detected = override_env && *override_env
                                              ? tuned_device::parse_override(override_env)
                                          : cuda ? detect_cuda(cuda_name, cuda_features)
                                                 : tuned_device::detect_cpu();
    index = tuned_device::choose(detected, measured, choice);
  } catch (const std::exception& e) {
    // A bad override must not stop the library: serve the first device and say why.
    choice.device = count > 0 ? split(records[0], '\t')[0] : "";
    choice.reason = std::string(e.what()) + ": the first measured device";
  }
  std::fprintf(stderr, "ktune: the %s library (%s) on %s serves the selector of %s: %s\n",
               choice.library.c_str(), choice.backend.c_str(),
               choice.detected.empty() ? "an unidentified device" : choice.detected.c_str(),
               choice.device.c_str(), choice.reason.c_str());
  std::lock_guard lock(choices_mutex());
  choices().push_back(choice);
  return index;
}
