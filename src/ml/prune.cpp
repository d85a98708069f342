// Pruners: pick K configs to ship (see prune.hpp). Each method proposes picks; duplicates are
// replaced by the best remaining config by geometric mean, so exactly K distinct ones ship.
#include "ktune/ml/prune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ktune/enum_names.hpp"
#include "ktune/error.hpp"
#include "ktune/ml/hdbscan.hpp"
#include "ktune/ml/kmeans.hpp"
#include "ktune/ml/pca.hpp"
#include "ktune/ml/spectral.hpp"
#include "prune_internal.hpp"

namespace ktune::ml {
namespace {

constexpr int kPcaComponents = 25;

using Picks = std::vector<Eigen::Index>;

std::vector<Eigen::Index> all_rows(const Dataset& d) {
  std::vector<Eigen::Index> rows(size_t(d.rows()));
  std::iota(rows.begin(), rows.end(), 0);
  return rows;
}

// Configs ordered best first by geomean over all rows (ties by column index).
std::vector<Eigen::Index> geomean_order(const Dataset& d, const std::vector<bool>& usable) {
  const Eigen::VectorXd score = geomean_scaled(d);
  std::vector<Eigen::Index> order;
  for (Eigen::Index c = 0; c < d.cols(); ++c) {
    if (usable[size_t(c)]) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return score(a) > score(b); });
  return order;
}

Picks topn(const Dataset& d, int k, const std::vector<bool>& usable) {
  std::vector<int> wins(size_t(d.cols()), 0);
  for (Eigen::Index best : d.oracle_index()) {
    if (best >= 0) ++wins[size_t(best)];
  }
  const Eigen::VectorXd score = geomean_scaled(d);
  std::vector<Eigen::Index> order;
  for (Eigen::Index c = 0; c < d.cols(); ++c) {
    if (usable[size_t(c)]) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    if (wins[size_t(a)] != wins[size_t(b)]) return wins[size_t(a)] > wins[size_t(b)];
    return score(a) > score(b);
  });
  order.resize(std::min(order.size(), size_t(k)));
  return order;
}

// Centroids (in normalized space) → argmax configs, largest clusters first.
Picks centroid_picks(const Eigen::MatrixXd& centers, const std::vector<int>& labels,
                     const std::vector<bool>& usable) {
  std::vector<int> sizes(size_t(centers.rows()), 0);
  for (int l : labels) ++sizes[size_t(l)];
  std::vector<Eigen::Index> order(size_t(centers.rows()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return sizes[size_t(a)] > sizes[size_t(b)];
  });
  Picks picks;
  for (Eigen::Index c : order) picks.push_back(detail::argmax_valid(centers.row(c), usable));
  return picks;
}

Picks kmeans_picks(const Eigen::MatrixXd& n, int k, uint64_t seed,
                   const std::vector<bool>& usable) {
  KMeansOptions o;
  o.k = std::min<int>(k, int(n.rows()));
  o.seed = seed;
  const auto r = kmeans(n, o);
  return centroid_picks(r.centers, r.labels, usable);
}

Picks pca_kmeans_picks(const Eigen::MatrixXd& n, int k, uint64_t seed,
                       const std::vector<bool>& usable) {
  if (n.rows() < 2) return kmeans_picks(n, k, seed, usable);
  Pca pca;
  const Eigen::MatrixXd z = pca.fit_transform(n, kPcaComponents);
  KMeansOptions o;
  o.k = std::min<int>(k, int(n.rows()));
  o.seed = seed;
  const auto r = kmeans(z, o);
  return centroid_picks(pca.inverse_transform(r.centers), r.labels, usable);
}

// Per group of rows, the config with the best geomean over the group; larger groups first.
Picks group_picks(const Dataset& d, std::vector<std::vector<Eigen::Index>> groups,
                  const std::vector<bool>& usable) {
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  Picks picks;
  for (const auto& g : groups) {
    if (!g.empty()) picks.push_back(detail::best_geomean_over(d, g, usable));
  }
  return picks;
}

Picks spectral_picks(const Dataset& d, const Eigen::MatrixXd& n, int k, uint64_t seed,
                     const std::vector<bool>& usable) {
  SpectralOptions o;
  o.k = std::min<int>(k, int(n.rows()));
  o.seed = seed;
  const auto r = spectral_clustering(n, o);
  std::vector<std::vector<Eigen::Index>> groups(size_t(o.k));
  for (size_t i = 0; i < r.labels.size(); ++i)
    groups[size_t(r.labels[i])].push_back(Eigen::Index(i));
  return group_picks(d, std::move(groups), usable);
}

// Sweeps min_cluster_size × min_samples for the clustering whose count is closest to k (the
// first such in sweep order); with more than k clusters the k largest are used.
Picks hdbscan_picks(const Dataset& d, const Eigen::MatrixXd& n, int k,
                    const std::vector<bool>& usable) {
  if (n.rows() < 2) return {};
  const Eigen::MatrixXd dist = pairwise_distances(n);
  HdbscanResult best;
  int best_gap = -1;
  for (int mcs : {2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 32, 40, 50, 64}) {
    if (mcs > n.rows()) break;
    for (int ms : {1, 2, 3, 4, 6, 8, 12, 16}) {
      if (ms > n.rows()) break;
      HdbscanResult r = hdbscan_distances(dist, {mcs, ms});
      const int gap = std::abs(r.n_clusters - k);
      if (best_gap < 0 || gap < best_gap) {
        best_gap = gap;
        best = std::move(r);
      }
      if (best_gap == 0) break;
    }
    if (best_gap == 0) break;
  }
  std::vector<std::vector<Eigen::Index>> groups;
  for (const auto& ex : best.exemplars) groups.emplace_back(ex.begin(), ex.end());
  // Largest clusters (by members) first, then keep k of them.
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return best.members[a].size() > best.members[b].size();
  });
  std::vector<std::vector<Eigen::Index>> kept;
  for (size_t i = 0; i < order.size() && int(kept.size()) < k; ++i)
    kept.push_back(groups[order[i]]);
  Picks picks;
  for (const auto& g : kept) picks.push_back(detail::best_geomean_over(d, g, usable));
  return picks;
}

}  // namespace

namespace detail {

Eigen::Index argmax_valid(const Eigen::Ref<const Eigen::RowVectorXd>& values,
                          const std::vector<bool>& usable) {
  Eigen::Index best = -1;
  for (Eigen::Index c = 0; c < values.size(); ++c) {
    if (usable[size_t(c)] && (best < 0 || values(c) > values(best))) best = c;
  }
  return best;
}

Eigen::Index best_geomean_over(const Dataset& data, const std::vector<Eigen::Index>& rows,
                               const std::vector<bool>& usable) {
  const Eigen::VectorXd score = geomean_scaled(data, rows);
  return argmax_valid(score.transpose(), usable);
}

}  // namespace detail

namespace {

constexpr EnumName<PruneMethod> kPruneMethods[] = {{PruneMethod::topn, "topn"},
                                                   {PruneMethod::kmeans, "kmeans"},
                                                   {PruneMethod::pca_kmeans, "pca-kmeans"},
                                                   {PruneMethod::spectral, "spectral"},
                                                   {PruneMethod::hdbscan, "hdbscan"},
                                                   {PruneMethod::tree, "tree"},
                                                   {PruneMethod::cover, "cover"}};

}  // namespace

std::vector<std::string> pruner_names() { return enum_names(kPruneMethods); }

std::vector<PruneMethod> prune_methods() {
  std::vector<PruneMethod> all;
  for (const auto& [method, _] : kPruneMethods) all.push_back(method);
  return all;
}

PruneMethod parse_prune_method(const std::string& text) {
  if (const auto method = enum_value(kPruneMethods, text)) return *method;
  throw Error(fmt::format("unknown pruner '{}' (expected one of {})", text,
                          fmt::join(pruner_names(), ", ")));
}

std::string to_string(PruneMethod method) { return enum_name(kPruneMethods, method); }

Eigen::VectorXd geomean_scaled(const Dataset& data, const std::vector<Eigen::Index>& rows) {
  const Eigen::MatrixXd scaled = normalize(data, Norm::scale);
  const std::vector<Eigen::Index> use = rows.empty() ? all_rows(data) : rows;
  if (use.empty()) return Eigen::VectorXd::Zero(data.cols());
  if (data.unmeasured_count() == 0) {  // the common case, kept in its original vector form
    Eigen::VectorXd log_sum = Eigen::VectorXd::Zero(data.cols());
    for (Eigen::Index r : use) {
      log_sum += scaled.row(r).transpose().cwiseMax(kInvalidRatio).array().log().matrix();
    }
    return (log_sum / double(use.size())).array().exp();
  }
  // Unmeasured cells are left out: each config's mean runs over the rows it was measured on.
  Eigen::VectorXd out = Eigen::VectorXd::Zero(data.cols());
  for (Eigen::Index c = 0; c < data.cols(); ++c) {
    double log_sum = 0;
    int n = 0;
    for (Eigen::Index r : use) {
      if (!data.is_measured(r, c)) continue;
      log_sum += std::log(std::max(scaled(r, c), kInvalidRatio));
      ++n;
    }
    out(c) = n ? std::exp(log_sum / n) : 0.0;
  }
  return out;
}

double ceiling(const Dataset& data, const std::vector<Eigen::Index>& picked) {
  if (data.rows() == 0) throw Error("ceiling of an empty dataset");
  const Eigen::MatrixXd scaled = normalize(data, Norm::scale);
  double log_sum = 0;
  int n = 0;
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    double best = 0;
    bool unknown = false;
    for (Eigen::Index c : picked) {
      if (c < 0 || c >= data.cols()) throw Error(fmt::format("ceiling: column {} out of range", c));
      if (data.valid(r, c)) best = std::max(best, scaled(r, c));
      unknown = unknown || !data.is_measured(r, c);
    }
    if (best == 0 && unknown) continue;  // nothing known to serve, and an unmeasured candidate
    log_sum += std::log(std::max(best, kInvalidRatio));
    ++n;
  }
  return n ? std::exp(log_sum / n) : std::numeric_limits<double>::quiet_NaN();
}

std::vector<Eigen::Index> prune(const Dataset& train, const PruneOptions& options) {
  if (train.rows() == 0 || train.cols() == 0) {
    throw Error(fmt::format("cannot prune an empty dataset ({} problems x {} configs)",
                            train.rows(), train.cols()));
  }
  std::vector<bool> usable(size_t(train.cols()));
  int n_usable = 0;
  for (Eigen::Index c = 0; c < train.cols(); ++c) {
    usable[size_t(c)] = train.valid.col(c).any();
    n_usable += usable[size_t(c)];
  }
  if (options.k < 1 || options.k > n_usable) {
    throw Error(fmt::format("cannot pick k={} configs: {} configs have a valid measurement",
                            options.k, n_usable));
  }
  const Eigen::MatrixXd n = normalize(train, options.norm);
  Picks picks;
  const int k = options.k;
  switch (options.method) {
    case PruneMethod::topn:
      picks = topn(train, k, usable);
      break;
    case PruneMethod::kmeans:
      picks = kmeans_picks(n, k, options.seed, usable);
      break;
    case PruneMethod::pca_kmeans:
      picks = pca_kmeans_picks(n, k, options.seed, usable);
      break;
    case PruneMethod::spectral:
      picks = spectral_picks(train, n, k, options.seed, usable);
      break;
    case PruneMethod::hdbscan:
      picks = hdbscan_picks(train, n, k, usable);
      break;
    case PruneMethod::tree:
      picks = detail::tree_picks(train, n, k, usable);
      break;
    case PruneMethod::cover:
      picks = detail::cover_picks(train, k, usable);
      break;
  }
  // Keep first occurrences, then fill with the best remaining configs by geomean.
  std::vector<Eigen::Index> out;
  std::vector<bool> taken(size_t(train.cols()), false);
  for (Eigen::Index c : picks) {
    if (c >= 0 && usable[size_t(c)] && !taken[size_t(c)] && int(out.size()) < k) {
      taken[size_t(c)] = true;
      out.push_back(c);
    }
  }
  for (Eigen::Index c : geomean_order(train, usable)) {
    if (int(out.size()) >= k) break;
    if (!taken[size_t(c)]) {
      taken[size_t(c)] = true;
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace ktune::ml
