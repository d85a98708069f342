// Vendors as config columns, and the share served by ktune's own configs (vendor_candidates.hpp).
#include "ktune/vendor_candidates.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "ktune/error.hpp"

namespace ktune {

std::string vendor_config_name(const std::string& vendor) { return kVendorConfigPrefix + vendor; }

bool is_vendor_config(const std::string& config) { return config.starts_with(kVendorConfigPrefix); }

Dataset with_vendor_candidates(const Dataset& d, const std::vector<std::string>& only) {
  for (const auto& name : only)
    if (std::find(d.vendor_names.begin(), d.vendor_names.end(), name) == d.vendor_names.end())
      throw Error(fmt::format("vendor '{}' is not one of the dataset's vendors ({})", name,
                              fmt::join(d.vendor_names, ", ")));
  if (std::any_of(d.config_names.begin(), d.config_names.end(), is_vendor_config)) return d;
  // The dataset's vendor columns that become candidates, in the dataset's (name) order.
  std::vector<Eigen::Index> picked;
  for (size_t j = 0; j < d.vendor_names.size(); ++j)
    if (only.empty() || std::find(only.begin(), only.end(), d.vendor_names[j]) != only.end())
      picked.push_back(Eigen::Index(j));
  const Eigen::Index n = d.cols(), v = Eigen::Index(picked.size());
  Dataset out = d;
  if (v == 0) return out;
  out.perf.conservativeResize(d.rows(), n + v);
  out.valid.conservativeResize(d.rows(), n + v);
  BoolMatrix measured = d.measured.size() ? d.measured : BoolMatrix::Constant(d.rows(), n, true);
  measured.conservativeResize(d.rows(), n + v);
  for (Eigen::Index j = 0; j < v; ++j) {
    const Eigen::Index source = picked[size_t(j)];
    out.config_names.push_back(vendor_config_name(d.vendor_names[size_t(source)]));
    for (Eigen::Index r = 0; r < d.rows(); ++r) {
      const double p = d.vendor_perf.rows() == d.rows() ? d.vendor_perf(r, source) : NAN;
      const bool known = std::isfinite(p) && p > 0;
      out.perf(r, n + j) = known ? p : 0;
      out.valid(r, n + j) = known;
      measured(r, n + j) = known;
    }
  }
  out.measured = measured;
  // The configs' params, and a "vendor" param that tells the vendor columns apart.
  const Eigen::Index p = d.config_params.rows() == n ? d.config_params.cols() : 0;
  out.config_params = Eigen::MatrixXd::Zero(n + v, p + 1);
  if (p > 0) out.config_params.topLeftCorner(n, p) = d.config_params;
  out.config_params.bottomRightCorner(v, 1).setOnes();
  if (p == 0) out.config_param_names.clear();
  out.config_param_names.push_back("vendor");
  return out;
}

Dataset refuse_unmeasured_vendor_cells(const Dataset& d) {
  Dataset out = d;
  if (out.measured.size() == 0) return out;  // every cell measured
  for (Eigen::Index c = 0; c < out.cols(); ++c)
    if (is_vendor_config(out.config_names[size_t(c)]))
      for (Eigen::Index r = 0; r < out.rows(); ++r)
        if (!out.measured(r, c)) {
          out.measured(r, c) = true;
          out.valid(r, c) = false;
          out.perf(r, c) = 0;
        }
  return out;
}

OwnShare own_kernel_share(const Dataset& d, const std::vector<Eigen::Index>& served,
                          const std::vector<Eigen::Index>& rows) {
  double own = 0, own_time = 0, all_time = 0;
  for (size_t i = 0; i < rows.size() && i < served.size(); ++i) {
    const Eigen::Index r = rows[i], c = served[i];
    if (c < 0) continue;
    const bool mine = !is_vendor_config(d.config_names[size_t(c)]);
    // Time = work / perf (perf = work per time); without work, 1 / perf.
    const double work = d.work.size() == d.rows() ? d.work(r) : 1;
    const double time = d.perf(r, c) > 0 ? work / d.perf(r, c) : 0;
    own += mine;
    own_time += mine ? time : 0;
    all_time += time;
  }
  OwnShare s;
  s.problems = rows.empty() ? 0 : own / double(rows.size());
  s.time = all_time > 0 ? own_time / all_time : s.problems;
  return s;
}

}  // namespace ktune
