// The one metrics set (see metrics.hpp).
#include "ktune/ml/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ktune/ml/evaluate.hpp"
#include "ktune/vendor_candidates.hpp"

namespace ktune::ml {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The first best valid config of a row (as Dataset::oracle_index), or -1 when none has perf > 0.
Eigen::Index oracle_of(const Dataset& d, Eigen::Index row) {
  Eigen::Index best = -1;
  for (Eigen::Index c = 0; c < d.cols(); ++c) {
    if (d.valid(row, c) && d.perf(row, c) > (best < 0 ? 0.0 : d.perf(row, best))) best = c;
  }
  return best;
}

}  // namespace

Metrics score(const Dataset& data, const std::vector<Outcome>& outcomes,
              const std::vector<Eigen::Index>& shipped) {
  Metrics m;
  std::vector<double> ceiling, vs_reference, vs_expert;
  double speedup_log = 0, ns = 0;
  int correct = 0, served_oracle = 0, served_best = 0, valid_picks = 0, unservable = 0;
  std::vector<Eigen::Index> scored_rows, served_cols;
  for (const Outcome& o : outcomes) {
    const Eigen::Index oracle = oracle_of(data, o.row);
    if (oracle < 0) continue;  // nothing valid on this problem: not scored
    scored_rows.push_back(o.row);
    served_cols.push_back(o.served);
    const double oracle_perf = data.perf(o.row, oracle);
    auto ratio = [&](Eigen::Index c) {
      return data.valid(o.row, c) ? std::max(data.perf(o.row, c) / oracle_perf, kInvalidRatio)
                                  : kInvalidRatio;
    };
    // The best shipped config valid here (the first of equals, in shipped order).
    Eigen::Index best = shipped.empty() ? oracle : -1;
    for (Eigen::Index c : shipped) {
      if (data.valid(o.row, c) && (best < 0 || data.perf(o.row, c) > data.perf(o.row, best))) {
        best = c;
      }
    }
    const double served = ratio(o.served);
    m.ratios.push_back(served);
    ceiling.push_back(best < 0 ? 0.0 : data.perf(o.row, best) / oracle_perf);
    speedup_log += std::log(served / ratio(o.reference));
    vs_reference.push_back(served / ratio(o.reference));
    vs_expert.push_back(served / ratio(o.expert));
    const bool served_ok = data.valid(o.row, o.served);
    correct += o.pick == oracle ? 1 : 0;
    served_oracle += served_ok && o.served == oracle ? 1 : 0;
    served_best += served_ok && o.served == best ? 1 : 0;
    valid_picks += data.valid(o.row, o.pick) ? 1 : 0;
    unservable += best < 0 ? 1 : 0;
    ns += o.ns;
  }
  m.problems = static_cast<int>(m.ratios.size());
  m.pct_of_oracle = pct_of_oracle(m.ratios);
  m.ceiling_pct = pct_of_oracle(ceiling);
  if (m.problems == 0) return m;
  const OwnShare own = own_kernel_share(data, served_cols, scored_rows);
  m.own_share = own.problems;
  m.own_time_share = own.time;
  const double n = m.problems;
  m.accuracy = correct / n;
  m.accuracy_oracle = served_oracle / n;
  m.accuracy_shipped = served_best / n;
  m.validity = valid_picks / n;
  m.refused_rate = 1.0 - m.validity;
  m.unservable_rate = unservable / n;
  m.speedup_vs_reference = std::exp(speedup_log / n);
  m.median_speedup_vs_reference = median(vs_reference);
  m.mean_speedup_vs_reference = std::accumulate(vs_reference.begin(), vs_reference.end(), 0.0) / n;
  m.median_speedup_vs_expert = median(vs_expert);
  m.predict_ns = ns / n;
  return m;
}

}  // namespace ktune::ml
