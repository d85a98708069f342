// Data side of the stencil protocol (see stencil_eval.hpp): loading every device of a file with
// its hardware features, merging devices into one problem set, and the splits.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/ml/stencil_eval.hpp"
#include "ktune/store.hpp"

namespace ktune::ml {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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

Eigen::Index require_feature(const Dataset& d, const std::string& name, const std::string& what) {
  const auto it = std::find(d.feature_names.begin(), d.feature_names.end(), name);
  if (it == d.feature_names.end()) {
    throw Error(
        fmt::format("{} needs the problem feature '{}', which the data lacks (features: {})", what,
                    name, fmt::join(d.feature_names, ", ")));
  }
  return Eigen::Index(it - d.feature_names.begin());
}

std::vector<DeviceData> load_device_data(const std::string& path, const std::string& device,
                                         const std::string& family) {
  const std::vector<Measurement> ms = load_measurements(path, device, family);
  std::vector<DeviceInfo> infos;  // device descriptions: only a store has them
  if (ends_with(path, ".sqlite") || ends_with(path, ".db"))
    infos = Store(path, Store::Mode::read_only).devices();
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
  for (const auto& [name, _] : parts.front().device_features) {
    bool everywhere = true;
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

SplitFolds kfold_splits(const MergedData& d, int k, uint64_t seed) {
  const Eigen::Index n = d.data.rows();
  if (n < 2) throw Error("split cv: needs at least 2 problems");
  if (k < 2) throw Error("split cv: needs at least 2 folds");
  k = int(std::min<Eigen::Index>(k, n));
  std::vector<Eigen::Index> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(idx.begin(), idx.end(), rng);
  SplitFolds s;
  s.name = "cv" + std::to_string(k);
  for (int f = 0; f < k; ++f) {
    Split fold;
    fold.name = s.name + ":" + std::to_string(f);
    for (size_t i = 0; i < idx.size(); ++i) {
      (int(i % size_t(k)) == f ? fold.test : fold.train).push_back(idx[i]);
    }
    std::sort(fold.test.begin(), fold.test.end());
    std::sort(fold.train.begin(), fold.train.end());
    s.folds.push_back(std::move(fold));
  }
  return s;
}

namespace {

// Leave-one-group-out over a per-row key; rows whose key is `skip` are never held out.
template <class Key>
SplitFolds leave_one_out(const MergedData& d, const std::string& name, const std::vector<Key>& key,
                         const std::vector<std::string>& label, const Key* skip) {
  std::map<Key, std::string> groups;
  for (size_t r = 0; r < key.size(); ++r) {
    if (!skip || key[r] != *skip) groups.emplace(key[r], label[r]);
  }
  SplitFolds s;
  s.name = name;
  for (const auto& [k, text] : groups) {
    Split fold;
    fold.name = name + ":" + text;
    for (size_t r = 0; r < key.size(); ++r)
      (key[r] == k ? fold.test : fold.train).push_back(Eigen::Index(r));
    if (!fold.train.empty()) s.folds.push_back(std::move(fold));
  }
  (void)d;
  if (s.folds.empty()) {
    throw Error(fmt::format("split {}: needs at least two groups to leave one out", name));
  }
  return s;
}

std::string number(double v) { return fmt::format("{}", v); }

}  // namespace

SplitFolds synthetic_real_split(const MergedData& d) {
  const Eigen::Index f = require_feature(d.data, "program", "split synthetic-real");
  Split fold;
  fold.name = "synthetic-real";
  for (Eigen::Index r = 0; r < d.data.rows(); ++r) {
    (d.data.features(r, f) == 0 ? fold.train : fold.test).push_back(r);
  }
  if (fold.train.empty() || fold.test.empty()) {
    throw Error(
        fmt::format("split synthetic-real: needs both synthetic (program 0) and real "
                    "problems; found {} synthetic and {} real",
                    fold.train.size(), fold.test.size()));
  }
  return {"synthetic-real", {std::move(fold)}};
}

SplitFolds leave_one_program_out(const MergedData& d) {
  const Eigen::Index f = require_feature(d.data, "program", "split program");
  std::vector<double> key;
  std::vector<std::string> label;
  for (Eigen::Index r = 0; r < d.data.rows(); ++r) {
    key.push_back(d.data.features(r, f));
    label.push_back(number(key.back()));
  }
  const double synthetic = 0;
  return leave_one_out(d, "program", key, label, &synthetic);
}

SplitFolds leave_one_size_out(const MergedData& d) {
  const Eigen::Index fr = require_feature(d.data, "rows", "split size");
  const Eigen::Index fc = require_feature(d.data, "cols", "split size");
  std::vector<std::pair<double, double>> key;
  std::vector<std::string> label;
  for (Eigen::Index r = 0; r < d.data.rows(); ++r) {
    key.emplace_back(d.data.features(r, fr), d.data.features(r, fc));
    label.push_back(number(key.back().first) + "x" + number(key.back().second));
  }
  return leave_one_out<std::pair<double, double>>(d, "size", key, label, nullptr);
}

SplitFolds leave_one_device_out(const MergedData& d) {
  if (d.devices.size() < 2) throw Error("split device: needs data of at least 2 devices");
  std::vector<std::string> label;
  for (int i : d.device_of) label.push_back(d.devices[size_t(i)]);
  return leave_one_out<int>(d, "device", d.device_of, label, nullptr);
}

}  // namespace ktune::ml
