#include "apps/ktune/remembered_import.hpp"

#include <stdexcept>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/problem.hpp"
#include "ktune/remember.hpp"
#include "ktune/space.hpp"
#include "ktune/vendor_candidates.hpp"

namespace ktune::cli {

std::vector<Measurement> remembered_measurements(const std::string& cache) {
  std::vector<RememberedTiming> rows;
  try {
    rows = read_remembered(cache);
  } catch (const std::runtime_error& e) {
    throw Error(e.what());  // "<file>: why"
  }
  register_builtin();
  std::vector<Measurement> out;
  for (const RememberedTiming& r : rows) {
    const Family& family = find_family(r.family);
    Measurement m;
    m.device = r.device;
    m.family = r.family;
    m.problem = r.problem;
    if (is_vendor_config(r.config)) {
      m.config = r.config.substr(std::string(kVendorConfigPrefix).size());
      set_stored_config_id(m, -1);
    } else {
      const Config config = family.space().parse(r.config);
      m.config = family.space().to_string(config);
      m.config_id = config.id;
    }
    m.outcome.status = Status::ok;
    m.outcome.timing.median_ms = r.median_ms;
    m.outcome.timing.min_ms = r.min_ms;
    m.outcome.timing.max_ms = r.max_ms;
    m.outcome.timing.mad_ms = r.mad_ms;
    m.outcome.timing.reps = r.reps;
    m.perf = r.median_ms > 0 ? family.flops(Problem::parse(r.problem)) / r.median_ms / 1e6 : 0;
    m.created_at = r.created_at;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ktune::cli
