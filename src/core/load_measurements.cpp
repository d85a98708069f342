// load_measurements (include/ktune/interchange.hpp): the file formats measurements come in.
#include <fmt/format.h>

#include <filesystem>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/store.hpp"

namespace ktune {

std::vector<Measurement> load_measurements(const std::string& path, const std::string& device,
                                           const std::string& family,
                                           std::vector<DeviceInfo>* devices) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // Checked first: opening a missing store read-only must not create an empty one.
  if (!std::filesystem::is_regular_file(path))
    throw Error(fmt::format("dataset '{}' does not exist", path));
  std::vector<Measurement> ms;
  if (devices) devices->clear();
  if (ends_with(".sqlite") || ends_with(".db")) {
    const Store store(path, Store::Mode::read_only);
    ms = store.query(device, family);
    if (devices) *devices = store.devices();
  } else if (ends_with(".csv") || ends_with(".csv.gz")) {
    ms = read_measurements_csv(path);
  } else if (ends_with(".json") || ends_with(".json.gz")) {
    ms = read_t4(path);
  } else {
    throw Error(fmt::format(
        "dataset '{}': expected a .sqlite store, a .csv/.csv.gz export or a T4 .json[.gz]", path));
  }
  if (ms.empty()) throw Error(fmt::format("dataset '{}' holds no measurements", path));
  return ms;
}

}  // namespace ktune
