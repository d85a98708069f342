#pragma once
// Pieces of the report shared between its source files (not public API).
#include <vector>

#include "ktune/report.hpp"

namespace ktune::report {

// % of oracle against K per pruner, the normalizations compared and the selectors (when the
// table has them), on its random split (or its first split when there is none).
void append_eval_figures(const EvalTable& table, std::vector<Figure>& out);

}  // namespace ktune::report
