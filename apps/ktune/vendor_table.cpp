// The sums behind `ktune report`'s vendor table (vendor_table.hpp).
#include "apps/ktune/vendor_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ktune::cli {
namespace {

bool measured(const VendorShape& s) { return s.ktune > 0 && s.vendor > 0; }

}  // namespace

VendorSummary summarize(const std::vector<VendorShape>& shapes) {
  VendorSummary out;
  double log_sum = 0, ktune_time = 0, vendor_time = 0;
  for (const auto& s : shapes) {
    if (!measured(s)) continue;
    log_sum += std::log(s.ktune / s.vendor);
    ktune_time += s.flops / s.ktune;
    vendor_time += s.flops / s.vendor;
    ++out.count;
  }
  if (out.count == 0) return out;
  out.geomean = std::exp(log_sum / double(out.count));
  out.time_weighted = ktune_time > 0 ? vendor_time / ktune_time : 0.0;
  return out;
}

std::vector<VendorShape> worst_shapes(const std::vector<VendorShape>& shapes, size_t most) {
  std::vector<VendorShape> out;
  std::copy_if(shapes.begin(), shapes.end(), std::back_inserter(out), measured);
  std::stable_sort(out.begin(), out.end(), [](const VendorShape& a, const VendorShape& b) {
    return a.ktune / a.vendor < b.ktune / b.vendor;
  });
  if (out.size() > most) out.resize(most);
  return out;
}

std::string worst_shapes_markdown(const std::vector<VendorShape>& shapes, size_t most,
                                  const std::string& ktune) {
  const std::vector<VendorShape> worst = worst_shapes(shapes, most);
  if (worst.empty()) return "";
  std::string md = fmt::format(
      "Worst shapes (lowest {0} / vendor):\n\n"
      "| shape | {0} GFLOP/s | vendor GFLOP/s | {0} / vendor |\n|---|---:|---:|---:|\n",
      ktune);
  for (const auto& s : worst)
    md += fmt::format("| {} | {:.1f} | {:.1f} | {:.3f} |\n", s.label, s.ktune, s.vendor,
                      s.ktune / s.vendor);
  return md;
}

}  // namespace ktune::cli
