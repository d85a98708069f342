#pragma once
// The vendor as a candidate (docs/deploy.md). A vendor's stable id among the configs is
// "vendor=<name>" ("vendor=openblas", "vendor=cublas"), a string no family's space spells, so
// pruners, selectors and codegen handle it as any config (they see only ids) and the family's
// deployed library decodes it into the vendor call.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"

namespace ktune {

inline constexpr const char* kVendorConfigPrefix = "vendor=";
std::string vendor_config_name(const std::string& vendor);
bool is_vendor_config(const std::string& config);

// The dataset with each vendor appended as a config column (after the configs, by name):
// ok where the vendor's perf is known, unmeasured where it is NaN; config params are those of
// the configs plus "vendor" (1 for vendor columns, whose other params are 0). vendor_names and
// vendor_perf stay, so reports still compare with the vendor. A dataset that already has
// vendor columns is returned as it is. `only` (when not empty) keeps just those vendors as
// candidates, e.g. the ones a deployed library can call (a row that is the best of several
// vendor algorithms timed per shape is a baseline, not a call); a name that is not one of the
// dataset's vendors throws Error naming it.
Dataset with_vendor_candidates(const Dataset& d, const std::vector<std::string>& only = {});

// The dataset with every unmeasured cell of a vendor column made refused (invalid), so no
// selector serves a vendor call where it was not timed. For sparse candidates, timed only where
// they won a search (cuBLASLt's heuristic answer #i, scripts/gemm_lt_heuristic_rows.py), whose
// imputed mean (normalize.cpp) would be the mean of their wins.
Dataset refuse_unmeasured_vendor_cells(const Dataset& d);

// Per row: whether the served column is one of ktune's own configs, not a vendor's, and the
// share of rows (or of time, weight = served time) served by ktune's own kernels.
struct OwnShare {
  double problems = 0, time = 0;
};
OwnShare own_kernel_share(const Dataset& d, const std::vector<Eigen::Index>& served_columns,
                          const std::vector<Eigen::Index>& rows);

}  // namespace ktune
