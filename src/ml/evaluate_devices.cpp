// Data side of the every-config protocol (see protocol.hpp): loading every device of a file with
// its hardware features, merging devices into one problem set, and leaving one device out.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/ml/protocol.hpp"

namespace ktune::ml {
namespace {

std::string resolve_family(const std::vector<Measurement>& ms, const std::string& family,
                           const std::string& path) {
  if (!family.empty()) return family;
  std::set<std::string> families;
  for (const auto& m : ms) families.insert(m.family);
  if (families.size() != 1) {
    throw Error(fmt::format("'{}' holds the families {}; name one with --family", path,
                            fmt::join(families, ", ")));
  }
  return *families.begin();
}

}  // namespace

std::vector<DeviceData> load_device_data(const std::string& path, const std::string& device,
                                         const std::string& family) {
  std::vector<DeviceInfo> infos;  // device descriptions: only a store has them
  const std::vector<Measurement> ms = load_measurements(path, device, family, &infos);
  const std::string fam = resolve_family(ms, family, path);
  std::vector<std::string> devices;  // in first-seen order
  for (const auto& m : ms) {
    if (m.family == fam && (device.empty() || m.device == device) &&
        std::find(devices.begin(), devices.end(), m.device) == devices.end())
      devices.push_back(m.device);
  }
  if (devices.empty()) {
    throw Error(fmt::format("dataset '{}' has no measurements of family '{}'{}", path, fam,
                            device.empty() ? "" : " on device '" + device + "'"));
  }
  std::vector<DeviceData> out;
  for (const auto& dev : devices) {
    DeviceData part;
    part.data = dataset_from_measurements(ms, dev, fam);
    for (const auto& info : infos) {
      if (info.slug == dev) part.device_features = info.features;
    }
    out.push_back(std::move(part));
  }
  return out;
}

MergedData merge_devices(const std::vector<DeviceData>& parts) {
  if (parts.empty()) throw Error("merge: no device data given");
  MergedData m;
  const Dataset& first = parts.front().data;
  // Device features every device has, in the first device's order.
  std::vector<std::string> dev_features;
  for (const auto& feature : parts.front().device_features) {
    const std::string& name = feature.first;  // not a structured binding: clang 14 (fuzz build)
    bool everywhere = true;                   // cannot capture one in a lambda
    for (const auto& p : parts) {
      everywhere = everywhere && std::any_of(p.device_features.begin(), p.device_features.end(),
                                             [&](const auto& f) { return f.first == name; });
    }
    if (everywhere) dev_features.push_back(name);
  }
  // Columns: the union of configs in first-seen order.
  std::vector<std::string> configs;
  std::map<std::string, Eigen::Index> col_of;
  Eigen::Index rows = 0;
  for (const auto& p : parts) {
    const Dataset& d = p.data;
    if (d.family != first.family) {
      throw Error(fmt::format("merge: device '{}' has family '{}' but '{}' has '{}'", d.device,
                              d.family, first.device, first.family));
    }
    if (d.feature_names != first.feature_names) {
      throw Error(fmt::format("merge: device '{}' has features {} but '{}' has {}", d.device,
                              fmt::join(d.feature_names, ","), first.device,
                              fmt::join(first.feature_names, ",")));
    }
    if (std::find(m.devices.begin(), m.devices.end(), d.device) != m.devices.end()) {
      throw Error(fmt::format("merge: device '{}' is given twice", d.device));
    }
    m.devices.push_back(d.device);
    for (const auto& c : d.config_names) {
      if (col_of.emplace(c, Eigen::Index(configs.size())).second) configs.push_back(c);
    }
    rows += d.rows();
  }
  Dataset& out = m.data;
  out.family = first.family;
  out.device = fmt::format("{}", fmt::join(m.devices, "+"));
  out.feature_names = first.feature_names;
  for (const auto& f : dev_features) out.feature_names.push_back("device_" + f);
  out.config_names = configs;
  out.config_param_names = first.config_param_names;
  const auto C = Eigen::Index(configs.size());
  const auto P = Eigen::Index(out.config_param_names.size());
  out.config_params = Eigen::MatrixXd::Zero(C, P);
  std::vector<bool> params_set(size_t(C), false);
  out.features.resize(rows, Eigen::Index(out.feature_names.size()));
  out.perf = Eigen::MatrixXd::Zero(rows, C);
  out.valid = BoolMatrix::Constant(rows, C, false);
  out.measured = BoolMatrix::Constant(rows, C, false);  // a config a device lacks: unmeasured
  out.vendor_perf.resize(rows, 0);
  Eigen::Index r0 = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const DeviceData& p = parts[i];
    const Dataset& d = p.data;
    const bool have_params = d.config_param_names == out.config_param_names &&
                             d.config_params.rows() == d.cols() && d.config_params.cols() == P;
    for (Eigen::Index c = 0; c < d.cols(); ++c) {
      const Eigen::Index col = col_of[d.config_names[size_t(c)]];
      if (have_params && !params_set[size_t(col)]) {
        out.config_params.row(col) = d.config_params.row(c);
        params_set[size_t(col)] = true;
      }
      for (Eigen::Index r = 0; r < d.rows(); ++r) {
        out.perf(r0 + r, col) = d.valid(r, c) ? d.perf(r, c) : 0.0;
        out.valid(r0 + r, col) = d.valid(r, c);
        out.measured(r0 + r, col) = d.is_measured(r, c);
      }
    }
    for (Eigen::Index r = 0; r < d.rows(); ++r) {
      out.problem_keys.push_back(d.device + "/" + d.problem_keys[size_t(r)]);
      out.problem_groups.emplace_back();
      m.device_of.push_back(int(i));
      out.features.row(r0 + r).head(d.features.cols()) = d.features.row(r);
      for (size_t f = 0; f < dev_features.size(); ++f) {
        for (const auto& [name, value] : p.device_features) {
          if (name == dev_features[f])
            out.features(r0 + r, d.features.cols() + Eigen::Index(f)) = value;
        }
      }
    }
    r0 += d.rows();
  }
  if (std::find(params_set.begin(), params_set.end(), false) != params_set.end()) {
    out.config_param_names.clear();  // some device's configs carry no params: use one-hot
    out.config_params.resize(C, 0);
  }
  return m;
}

SplitFolds leave_one_device_out(const MergedData& d) {
  if (d.devices.size() < 2) throw Error("split device: needs data of at least 2 devices");
  std::vector<std::vector<double>> keys;
  std::vector<std::string> labels;
  for (int i : d.device_of) {
    keys.push_back({double(i)});
    labels.push_back(d.devices[size_t(i)]);
  }
  return leave_one_value_out("device", keys, labels);
}

}  // namespace ktune::ml
