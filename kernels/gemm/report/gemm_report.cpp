// What GEMM adds to the HTML report (docs/report.md): the arithmetic intensity of a shape for
// the roofline, FLOP per byte of the minimal FP32 traffic (A and B read once, C written once),
// as scripts/roofline.py computes it.
#include "ktune/ml/evaluate.hpp"
#include "ktune/report.hpp"

namespace ktune::kernels::gemm {
namespace {

double intensity(const Dataset& d, Eigen::Index row) {
  const double m = d.features(row, ml::require_feature(d, "m", "the GEMM roofline"));
  const double n = d.features(row, ml::require_feature(d, "n", "the GEMM roofline"));
  const double k = d.features(row, ml::require_feature(d, "k", "the GEMM roofline"));
  return 2.0 * m * n * k / (4.0 * (m * k + k * n + m * n));  // batch cancels out
}

const bool gemm_report_registered =
    report::register_family_report("gemm", {.intensity = intensity, .figures = nullptr});

}  // namespace
}  // namespace ktune::kernels::gemm
