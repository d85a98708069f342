// The vendor as a candidate (ktune/dataset.hpp): vendor columns with stable ids, shipped by the
// deploy recipe where the vendor wins, served when the selector is unsure, and counted apart in
// the metrics (the share served by ktune's own kernels).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/ml/codegen.hpp"
#include "ktune/ml/deploy.hpp"
#include "ktune/ml/metrics.hpp"
#include "ktune/ml/selector.hpp"
#include "ktune/vendor_candidates.hpp"

namespace ktune {
namespace {

// tests/deploy_vendor/planted_vendor_wins.py: kernels win below 384, OpenBLAS from 384 to 768,
// oneDNN from 1024 (on more shapes than OpenBLAS); OpenBLAS is never far from the best.
Dataset planted(bool vendors) {
  const Dataset d =
      load_dataset(std::string(KTUNE_SOURCE_DIR) + "/tests/deploy_vendor/vendor-wins.csv");
  return vendors ? with_vendor_candidates(d) : d;
}

Eigen::Index column(const Dataset& d, const std::string& name) {
  for (size_t c = 0; c < d.config_names.size(); ++c)
    if (d.config_names[c] == name) return Eigen::Index(c);
  return -1;
}

Eigen::Index feature(const Dataset& d, const std::string& name) {
  for (size_t f = 0; f < d.feature_names.size(); ++f)
    if (d.feature_names[f] == name) return Eigen::Index(f);
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

bool large(const Dataset& d, Eigen::Index row) { return d.features(row, feature(d, "m")) >= 384; }

TEST(VendorCandidates, VendorsBecomeColumnsWithStableIds) {
  const Dataset plain = planted(false);
  const Dataset d = planted(true);
  ASSERT_EQ(plain.cols(), 2);
  ASSERT_EQ(d.cols(), 4);
  // After the configs, by vendor name; the vendor baselines stay for the reports.
  EXPECT_EQ(d.config_names[2], "vendor=onednn");
  EXPECT_EQ(d.config_names[3], "vendor=openblas");
  EXPECT_EQ(d.vendor_names, plain.vendor_names);
  EXPECT_TRUE(is_vendor_config(d.config_names[3]));
  EXPECT_FALSE(is_vendor_config(d.config_names[0]));
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    EXPECT_EQ(d.perf(r, 3), plain.vendor_perf(r, 1));
    EXPECT_TRUE(d.valid(r, 3));
  }
  // The config params gain a "vendor" flag; the kernels keep theirs.
  EXPECT_EQ(d.config_param_names.back(), "vendor");
  EXPECT_EQ(d.config_params(3, d.config_params.cols() - 1), 1);
  EXPECT_EQ(d.config_params(0, d.config_params.cols() - 1), 0);
  EXPECT_EQ(d.config_params.row(0).head(plain.config_params.cols()), plain.config_params.row(0));
  // Idempotent: a dataset that has its vendor columns keeps them once.
  EXPECT_EQ(with_vendor_candidates(d).cols(), 4);
}

TEST(VendorCandidates, AnUnmeasuredVendorCellIsUnmeasured) {
  Dataset d = planted(false);
  d.vendor_perf(0, 1) = std::numeric_limits<double>::quiet_NaN();
  const Dataset v = with_vendor_candidates(d);
  EXPECT_EQ(v.state(0, 3), CellState::unmeasured);
  EXPECT_EQ(v.state(1, 3), CellState::ok);
  EXPECT_EQ(v.state(0, 0), CellState::ok);
}

// --refuse-untimed-vendors: the vendor's untimed cell is refused; timed cells and the kernels'
// cells keep their state.
TEST(VendorCandidates, UntimedVendorCellsCanBeRefused) {
  Dataset d = planted(false);
  d.vendor_perf(0, 1) = std::numeric_limits<double>::quiet_NaN();
  const Dataset v = refuse_unmeasured_vendor_cells(with_vendor_candidates(d));
  EXPECT_EQ(v.state(0, 3), CellState::invalid);
  EXPECT_EQ(v.state(1, 3), CellState::ok);
  EXPECT_EQ(v.state(0, 2), CellState::ok);
  EXPECT_EQ(v.state(0, 0), CellState::ok);
  EXPECT_EQ(v.perf(1, 3), d.vendor_perf(1, 1));
  ml::DeployRecipe r;
  r.vendors = true;
  r.refuse_untimed_vendors = true;
  EXPECT_NE(ml::recipe_arguments(r).find("--refuse-untimed-vendors"), std::string::npos);
  r.vendors = false;
  EXPECT_THROW(ml::train_recipe(planted(false), r, "planted"), Error);
}

TEST(VendorCandidates, PlantedVendorWinsShipsTheVendor) {
  ml::DeployRecipe r;
  r.pruner = ml::PruneMethod::topn;
  r.k = 2;
  r.selector = "tree-b";
  const auto without = ml::train_recipe(planted(false), r, "planted");
  for (const auto& c : without["configs"]) EXPECT_FALSE(is_vendor_config(c.get<std::string>()));
  r.vendors = true;
  EXPECT_NE(ml::recipe_arguments(r).find("--vendors"), std::string::npos);
  const auto model = ml::train_recipe(planted(false), r, "planted");
  std::vector<std::string> configs = model["configs"];
  EXPECT_NE(std::find(configs.begin(), configs.end(), "vendor=onednn"), configs.end());
  // The selector routes the large shapes to it and the small ones to ktune's kernel.
  const auto s = ml::Selector::from_json(model);
  const Dataset d = planted(true);
  const auto vendor = std::find(configs.begin(), configs.end(), "vendor=onednn") - configs.begin();
  for (Eigen::Index row = 0; row < d.rows(); ++row) {
    EXPECT_EQ(s->select(d.features.row(row)) == vendor, large(d, row))
        << d.problem_keys[size_t(row)];
  }
}

// --ship-vendors: both vendor calls ship besides the K pruned configs, where K = 2 alone ships
// only oneDNN (the vendor that wins more shapes), so OpenBLAS's shapes go to OpenBLAS again.
TEST(VendorCandidates, ShipVendorsShipsEveryVendorBesidesTheK) {
  ml::DeployRecipe r;
  r.pruner = ml::PruneMethod::topn;
  r.k = 2;
  r.selector = "tree-b";
  r.vendors = true;
  const auto pruned = ml::train_recipe(planted(false), r, "planted");
  const std::vector<std::string> k_only = pruned["configs"];
  ASSERT_EQ(k_only.size(), 2u);
  ASSERT_EQ(std::count(k_only.begin(), k_only.end(), "vendor=openblas"), 0);
  r.ship_vendors = true;
  EXPECT_NE(ml::recipe_arguments(r).find("--vendors --ship-vendors"), std::string::npos)
      << ml::recipe_arguments(r);
  const auto model = ml::train_recipe(planted(false), r, "planted");
  const std::vector<std::string> configs = model["configs"];
  EXPECT_EQ(configs.size(), 3u);  // the K = 2 and OpenBLAS
  for (const auto& c : k_only)
    EXPECT_NE(std::find(configs.begin(), configs.end(), c), configs.end()) << c;
  const auto openblas =
      std::find(configs.begin(), configs.end(), "vendor=openblas") - configs.begin();
  ASSERT_LT(size_t(openblas), configs.size());
  // The planted OpenBLAS shapes (384 <= m <= 768) are served by it now.
  const auto s = ml::Selector::from_json(model);
  const Dataset d = planted(true);
  int openblas_rows = 0;
  for (Eigen::Index row = 0; row < d.rows(); ++row) {
    const double m = d.features(row, feature(d, "m"));
    if (m < 384 || m > 768) continue;
    ++openblas_rows;
    EXPECT_EQ(s->select(d.features.row(row)), openblas) << d.problem_keys[size_t(row)];
  }
  EXPECT_GT(openblas_rows, 0);
  r.vendors = false;  // nothing to ship: refused, not ignored
  EXPECT_THROW(ml::train_recipe(planted(false), r, "planted"), Error);
}

TEST(VendorCandidates, UnsureShapesGetTheSafestCandidateTheVendor) {
  ml::DeployRecipe r;
  r.pruner = ml::PruneMethod::topn;
  r.k = 3;
  r.vendors = true;
  r.selector_options.unsure.range_guard = true;
  const auto model = ml::train_recipe(planted(false), r, "planted");
  const auto s = ml::Selector::from_json(model);
  const std::vector<std::string> configs = model["configs"];
  ASSERT_EQ(configs[size_t(s->unsure_config())], "vendor=openblas");
  const Dataset d = planted(true);
  Eigen::Index row64 = 0;
  while (d.features(row64, feature(d, "m")) != 64) ++row64;
  Eigen::RowVectorXd small = d.features.row(row64);  // 64^3: a kernel's shape
  EXPECT_EQ(configs[size_t(s->select(small))].rfind("kind=packed", 0), 0u);
  // A shape far below the trained range (k = 8) is unsure: the vendor, not the small-shape kernel.
  Eigen::RowVectorXd unseen = small;
  unseen(feature(d, "k")) = 8;
  EXPECT_EQ(configs[size_t(s->select(unseen))], "vendor=openblas");
  // The rule is in the generated code: the guard returns kUnsure, the vendor's index.
  const std::string header = ml::generate_selector_header(model, {});
  EXPECT_NE(header.find("inline constexpr int kUnsure = " + std::to_string(s->unsure_config())),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("\"vendor=openblas\""), std::string::npos);
}

// --unsure-vendor: where a kernel has the best geometric mean over the training problems, the
// unsure answer is still the shipped vendor call (the best of them), in the model and the header.
TEST(VendorCandidates, UnsureVendorServesTheBestShippedVendorNotTheBestKernel) {
  Dataset slow_vendors = planted(false);
  slow_vendors.vendor_perf *= 0.3;         // the kernels win on average now
  slow_vendors.vendor_perf.col(0) *= 0.5;  // and oneDNN is the slower vendor
  ml::DeployRecipe r;
  r.pruner = ml::PruneMethod::topn;
  r.k = 4;  // every kernel and both vendors
  r.vendors = true;
  r.selector_options.unsure.range_guard = true;
  const auto best_of_all = ml::Selector::from_json(ml::train_recipe(slow_vendors, r, "planted"));
  EXPECT_FALSE(is_vendor_config(best_of_all->config_names()[size_t(best_of_all->unsure_config())]));
  r.selector_options.unsure.vendor = true;
  EXPECT_NE(ml::recipe_arguments(r).find("--unsure-vendor"), std::string::npos);
  const auto model = ml::train_recipe(slow_vendors, r, "planted");
  const auto s = ml::Selector::from_json(model);
  EXPECT_TRUE(s->options().unsure.vendor);  // kept through the model file
  const std::vector<std::string> configs = model["configs"];
  ASSERT_EQ(configs[size_t(s->unsure_config())], "vendor=openblas");
  const Dataset d = with_vendor_candidates(slow_vendors);
  Eigen::RowVectorXd unseen = d.features.row(0);
  unseen(feature(d, "k")) = 8;  // outside the trained range
  EXPECT_EQ(configs[size_t(s->select(unseen))], "vendor=openblas");
  const std::string header = ml::generate_selector_header(model, {});
  EXPECT_NE(header.find("the shipped vendor call"), std::string::npos) << header;
  EXPECT_NE(header.find("inline constexpr int kUnsure = " + std::to_string(s->unsure_config())),
            std::string::npos);
  // Without a rule that is ever unsure, the option is refused rather than ignored.
  r.selector_options.unsure.range_guard = false;
  EXPECT_THROW(ml::train_recipe(slow_vendors, r, "planted"), Error);
}

TEST(VendorCandidates, MetricsCountTheShareServedByOwnKernels) {
  const Dataset d = planted(true);
  const Eigen::Index openblas = column(d, "vendor=openblas");
  const Eigen::Index kernel = column(d, "kind=packed;mr=8;nr=4;kc=128;mc=48;nc=960");
  std::vector<ml::Outcome> outcomes;
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    ml::Outcome o;
    o.row = r;
    o.pick = o.served = o.reference = o.expert = large(d, r) ? openblas : kernel;
    outcomes.push_back(o);
  }
  const ml::Metrics m = ml::score(d, outcomes);
  EXPECT_DOUBLE_EQ(m.own_share, 5.0 / 12);  // 5 of the 12 sizes are below 384
  // Time = work / perf: the vendor's large shapes take most of it.
  double own = 0, all = 0;
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    const Eigen::Index c = large(d, r) ? openblas : kernel;
    const double t = d.work(r) / d.perf(r, c);
    all += t;
    own += c == kernel ? t : 0;
  }
  EXPECT_NEAR(m.own_time_share, own / all, 1e-12);
  EXPECT_LT(m.own_time_share, 0.01);
  // Without vendor candidates every served config is ktune's own.
  const Dataset plain = planted(false);
  for (auto& o : outcomes) o.pick = o.served = o.reference = o.expert = 0;
  EXPECT_EQ(ml::score(plain, outcomes).own_share, 1);
}

// tests/deploy_vendor/planted_vendor_wins.py --tc: bf16 on a GPU's tensor cores; an mma kernel
// wins below 384, cuBLAS to 768, cuBLASLt's heuristic #0 from 1024, where cuBLASLt's best of its
// top 8 (a per-shape search, not a call) beats both.
Dataset planted_tc() {
  return load_dataset(std::string(KTUNE_SOURCE_DIR) + "/tests/deploy_vendor/vendor-wins-tc.csv");
}

TEST(VendorCandidates, OnlyTheNamedVendorsBecomeCandidates) {
  const Dataset plain = planted_tc();
  ASSERT_EQ(plain.vendor_names, (std::vector<std::string>{"cublas", "cublaslt", "cublaslt-top8"}));
  EXPECT_EQ(with_vendor_candidates(plain).cols(), 4);
  const Dataset d = with_vendor_candidates(plain, {"cublaslt", "cublas"});
  ASSERT_EQ(d.cols(), 3);
  EXPECT_EQ(d.config_names[1], "vendor=cublas");
  EXPECT_EQ(d.config_names[2], "vendor=cublaslt");
  for (Eigen::Index r = 0; r < d.rows(); ++r) EXPECT_EQ(d.perf(r, 2), plain.vendor_perf(r, 1));
  EXPECT_EQ(d.vendor_names, plain.vendor_names);  // the baselines stay for the reports
  try {
    with_vendor_candidates(plain, {"cublas", "rocblas"});
    ADD_FAILURE() << "an unknown vendor name was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'rocblas'"), std::string::npos) << e.what();
  }
}

TEST(VendorCandidates, PlantedBf16VendorWinsShipsTheCallableVendors) {
  ml::DeployRecipe r;
  r.pruner = ml::PruneMethod::topn;
  r.k = 3;
  r.vendors = true;
  // Every vendor: the search row wins the large shapes and is shipped, though no call serves it.
  std::vector<std::string> all = ml::train_recipe(planted_tc(), r, "planted")["configs"];
  EXPECT_NE(std::find(all.begin(), all.end(), "vendor=cublaslt-top8"), all.end());
  r.vendor_names = {"cublas", "cublaslt"};
  EXPECT_NE(ml::recipe_arguments(r).find("--vendors --vendor-names cublas,cublaslt"),
            std::string::npos)
      << ml::recipe_arguments(r);
  const auto model = ml::train_recipe(planted_tc(), r, "planted");
  const std::vector<std::string> configs = model["configs"];
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(std::find(configs.begin(), configs.end(), "vendor=cublaslt-top8"), configs.end());
  // Each size band goes to its winner: the kernel, cuBLAS, cuBLASLt.
  const auto s = ml::Selector::from_json(model);
  const Dataset d = with_vendor_candidates(planted_tc(), r.vendor_names);
  for (Eigen::Index row = 0; row < d.rows(); ++row) {
    const double m = d.features(row, feature(d, "m"));
    const std::string want = m < 384    ? "kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3"
                             : m < 1024 ? "vendor=cublas"
                                        : "vendor=cublaslt";
    EXPECT_EQ(configs[size_t(s->select(d.features.row(row)))], want) << d.problem_keys[size_t(row)];
  }
}

}  // namespace
}  // namespace ktune
