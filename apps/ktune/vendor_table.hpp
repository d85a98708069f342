#pragma once
// The sums behind `ktune report`'s vendor table, as pure functions: ktune's GFLOP/s per shape (the
// best swept config, or a deployed library) against the vendor library's, as a geometric mean of
// the per-shape ratios (every shape weighs the same), as a time-weighted ratio (the whole
// workload's speed-up: large shapes weigh more) and as the shapes where ktune loses most.
#include <cstddef>
#include <string>
#include <vector>

namespace ktune::cli {

struct VendorShape {
  std::string label;             // how the table names the shape
  double flops = 0;              // work of one run
  double ktune = 0, vendor = 0;  // GFLOP/s; 0: not measured ok
};

// Over the shapes where both are measured (ktune > 0 and vendor > 0).
struct VendorSummary {
  size_t count = 0;
  double geomean = 0;        // exp(mean of log(ktune / vendor)); 0 for no shape
  double time_weighted = 0;  // sum of vendor times / sum of ktune times (time = flops / GFLOP/s)
};
VendorSummary summarize(const std::vector<VendorShape>& shapes);

// The `most` measured shapes with the lowest ktune / vendor, lowest first (ties in given order).
std::vector<VendorShape> worst_shapes(const std::vector<VendorShape>& shapes, size_t most);

// A markdown table of worst_shapes(shapes, most): shape, both GFLOP/s and their ratio; `ktune`
// names ktune's column ("oracle", "deployed"). Empty when no shape is measured on both sides.
std::string worst_shapes_markdown(const std::vector<VendorShape>& shapes, size_t most,
                                  const std::string& ktune);

}  // namespace ktune::cli
