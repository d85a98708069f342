#include <gtest/gtest.h>

#include <algorithm>

#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/interchange.hpp"
#include "ktune/store.hpp"
#include "ktune/workload.hpp"
#include "ml_test_util.hpp"

namespace ktune {
namespace {

Measurement make(const std::string& problem, const std::string& config, int64_t id, double perf,
                 Status status = Status::ok, const std::string& device = "dev") {
  Measurement m;
  m.device = device;
  m.family = "fam";
  m.problem = problem;
  m.config = config;
  set_stored_config_id(m, id);  // -1: a vendor row
  m.outcome.status = status;
  m.perf = status == Status::ok ? perf : 0;
  return m;
}

TEST(Dataset, RowsSortedColumnsByIdVendorsSeparate) {
  std::vector<Measurement> ms = {
      make("x=2", "p=b", 5, 10), make("x=1", "p=a", 9, 20),   make("x=1", "p=b", 5, 30),
      make("x=2", "p=a", 9, 40), make("x=1", "blas", -1, 50),
  };
  const Dataset d = dataset_from_measurements(ms, "", "");
  EXPECT_EQ(d.device, "dev");
  EXPECT_EQ(d.family, "fam");
  EXPECT_EQ(d.problem_keys, (std::vector<std::string>{"x=1", "x=2"}));
  EXPECT_EQ(d.config_names, (std::vector<std::string>{"p=b", "p=a"}));  // id 5 before id 9
  EXPECT_DOUBLE_EQ(d.perf(0, 0), 30);
  EXPECT_DOUBLE_EQ(d.perf(0, 1), 20);
  EXPECT_DOUBLE_EQ(d.perf(1, 0), 10);
  EXPECT_DOUBLE_EQ(d.perf(1, 1), 40);
  ASSERT_EQ(d.vendor_names, std::vector<std::string>{"blas"});
  EXPECT_DOUBLE_EQ(d.vendor_perf(0, 0), 50);
  EXPECT_TRUE(std::isnan(d.vendor_perf(1, 0)));
  EXPECT_TRUE(d.valid.all());
  EXPECT_EQ(d.feature_names, std::vector<std::string>{"x"});
  EXPECT_DOUBLE_EQ(d.features(1, 0), 2);
  ASSERT_EQ(d.config_param_names, std::vector<std::string>{"p"});
  // Categorical values become their rank among the sorted distinct values (a=0, b=1).
  EXPECT_DOUBLE_EQ(d.config_params(0, 0), 1);
  EXPECT_DOUBLE_EQ(d.config_params(1, 0), 0);
}

TEST(Dataset, InvalidMissingAndTimeFallback) {
  std::vector<Measurement> ms = {
      make("x=1", "c=1", 0, 10), make("x=1", "c=2", 1, 99, Status::wrong),
      make("x=2", "c=1", 0, 0, Status::timeout), make("x=2", "c=3", 2, 0),  // ok but no perf
  };
  ms.back().outcome.timing.median_ms = 0.25;  // → perf 1/0.25 = 4
  const Dataset d = dataset_from_measurements(ms, "dev", "fam");
  ASSERT_EQ(d.cols(), 3);
  EXPECT_TRUE(d.valid(0, 0));
  EXPECT_FALSE(d.valid(0, 1));
  EXPECT_DOUBLE_EQ(d.perf(0, 1), 0);
  EXPECT_FALSE(d.valid(0, 2));  // never measured
  EXPECT_FALSE(d.valid(1, 0));
  EXPECT_TRUE(d.valid(1, 2));
  EXPECT_DOUBLE_EQ(d.perf(1, 2), 4);
  EXPECT_EQ(d.oracle_index(), (std::vector<Eigen::Index>{0, 2}));
  EXPECT_DOUBLE_EQ(d.oracle_perf()(1), 4);
  // Numeric config params are used as numbers.
  EXPECT_DOUBLE_EQ(d.config_params(2, 0), 3);
}

TEST(Dataset, RowsWithoutValidConfigAreDroppedOrRejected) {
  std::vector<Measurement> ms = {make("x=1", "c=1", 0, 10),
                                 make("x=2", "c=1", 0, 0, Status::failed)};
  size_t dropped = 0;
  const Dataset d = dataset_from_measurements(ms, "", "", {}, &dropped);
  EXPECT_EQ(d.rows(), 1);
  EXPECT_EQ(dropped, 1u);
  DatasetOptions strict;
  strict.drop_rows_without_valid = false;
  EXPECT_THROW(dataset_from_measurements(ms, "", "", strict), Error);
  ms.pop_back();
  ms[0].outcome.status = Status::refused;
  EXPECT_THROW(dataset_from_measurements(ms, "", ""), Error);  // nothing valid at all
}

TEST(Dataset, SliceSelectionErrors) {
  std::vector<Measurement> ms = {make("x=1", "c=1", 0, 10, Status::ok, "a"),
                                 make("x=1", "c=1", 0, 10, Status::ok, "b")};
  EXPECT_THROW(dataset_from_measurements(ms, "", ""), Error);    // two devices, none named
  EXPECT_THROW(dataset_from_measurements(ms, "zz", ""), Error);  // unknown device
  EXPECT_THROW(dataset_from_measurements(ms, "a", "nofam"), Error);
  EXPECT_THROW(dataset_from_measurements({}, "", ""), Error);
  EXPECT_EQ(dataset_from_measurements(ms, "b", "").device, "b");
  std::vector<Measurement> bad = {make("not a key", "c=1", 0, 10)};
  EXPECT_THROW(dataset_from_measurements(bad, "", ""), Error);
}

TEST(Dataset, GenericConfigParamsSplitPairs) {
  std::vector<Measurement> ms = {make("x=1", "t=4;wg=16x8", 0, 1), make("x=1", "t=2;wg=8x8", 1, 2)};
  const Dataset d = dataset_from_measurements(ms, "", "");
  EXPECT_EQ(d.config_param_names, (std::vector<std::string>{"t", "wg_x", "wg_y"}));
  EXPECT_DOUBLE_EQ(d.config_params(0, 1), 16);
  EXPECT_DOUBLE_EQ(d.config_params(0, 2), 8);
  EXPECT_DOUBLE_EQ(d.config_params(1, 0), 2);
}

TEST(Dataset, SubsetsKeepEverythingAligned) {
  test::SyntheticOptions o;
  o.vendor = true;
  const Dataset d = test::make_synthetic_dataset(o);
  const Dataset r = d.subset_rows({3, 1});
  ASSERT_EQ(r.rows(), 2);
  EXPECT_EQ(r.problem_keys[0], d.problem_keys[3]);
  EXPECT_EQ(r.features.row(1), d.features.row(1));
  EXPECT_EQ(r.perf.row(0), d.perf.row(3));
  EXPECT_EQ(r.vendor_perf(0, 0), d.vendor_perf(3, 0));
  EXPECT_EQ(r.work.size(), 0);  // not a registered family: no work column
  const Dataset c = d.subset_cols({5, 2});
  ASSERT_EQ(c.cols(), 2);
  EXPECT_EQ(c.config_names[0], d.config_names[5]);
  EXPECT_EQ(c.config_params.row(1), d.config_params.row(2));
  EXPECT_EQ(c.perf.col(0), d.perf.col(5));
  EXPECT_EQ(c.valid.col(1), d.valid.col(2));
  EXPECT_THROW(d.subset_rows({d.rows()}), Error);
  EXPECT_THROW(d.subset_cols({-1}), Error);
}

TEST(Dataset, GemmGetsDerivedFeaturesAndNetworkGroups) {
  register_builtin();
  const Family& gemm = find_family("gemm");
  const Workload dnn = load_workload(gemm, "dnn");
  ASSERT_FALSE(dnn.problems.empty());
  const Problem& p = dnn.problems.front();
  const auto configs = gemm.space().enumerate();
  std::vector<Measurement> ms;
  for (int c = 0; c < 3; ++c) {
    Measurement m = test::gemm_measurement(gemm.space(), p, configs[size_t(c)], 1 + c);
    m.tags = p.tags;
    ms.push_back(m);
  }
  const Dataset d = dataset_from_measurements(ms, "", "");
  const auto derived = gemm.derived_feature_names();
  ASSERT_EQ(d.feature_names.size(), p.names.size() + derived.size());
  EXPECT_EQ(d.feature_names.back(), derived.back());
  const auto values = gemm.derived_features(p);
  EXPECT_DOUBLE_EQ(d.features(0, Eigen::Index(p.names.size())), values.front());
  ASSERT_EQ(d.problem_groups.size(), 1u);
  std::vector<std::string> tags = p.tags;
  std::sort(tags.begin(), tags.end());
  EXPECT_EQ(d.problem_groups[0], tags);
  EXPECT_EQ(d.config_param_names, gemm.space().numeric_names());
  EXPECT_EQ(d.config_params.rows(), 3);
  // The family's work per problem, kept through row subsets (the cover pruner's size classes).
  ASSERT_EQ(d.work.size(), 1);
  EXPECT_DOUBLE_EQ(d.work(0), gemm.flops(p));
  EXPECT_DOUBLE_EQ(d.work(0), 2.0 * p.get("m") * p.get("n") * p.get("k") * p.get("batch"));
  EXPECT_EQ(d.subset_rows({0, 0}).work, Eigen::Vector2d(d.work(0), d.work(0)));
}

TEST(Dataset, GroupsAreTheUnionOfTheStoredTags) {
  std::vector<Measurement> ms = {make("x=1", "p=a", 0, 1), make("x=1", "p=b", 1, 2),
                                 make("x=2", "p=a", 0, 3)};
  ms[0].tags = {"vgg16"};
  ms[1].tags = {"resnet50", "vgg16"};
  const Dataset d = dataset_from_measurements(ms, "", "");
  EXPECT_EQ(d.problem_groups[0], (std::vector<std::string>{"resnet50", "vgg16"}));
  EXPECT_TRUE(d.problem_groups[1].empty());
}

TEST(Dataset, LoadsStoreAndExportedCsv) {
  test::TempDir dir;
  auto ms = test::make_synthetic_measurements();
  for (auto& m : ms) m.tags = {m.problem < "m=64" ? "net-a" : "net-b"};
  {
    Store store(dir.file("s.sqlite"));
    store.put_all(ms);
  }
  write_measurements_csv(ms, dir.file("m.csv.gz"));
  const Dataset expected = dataset_from_measurements(ms, "", "");
  for (const char* name : {"s.sqlite", "m.csv.gz"}) {
    const Dataset d = load_dataset(dir.file(name));
    EXPECT_EQ(d.problem_keys, expected.problem_keys) << name;
    EXPECT_EQ(d.config_names, expected.config_names) << name;
    EXPECT_TRUE(d.perf.isApprox(expected.perf)) << name;
    EXPECT_EQ(d.valid, expected.valid) << name;
    EXPECT_EQ(d.problem_groups, expected.problem_groups) << name;
  }
  EXPECT_THROW(load_dataset(dir.file("nothing.sqlite")), Error);
  EXPECT_THROW(load_dataset(dir.file("x.txt")), Error);
  test::write_text(dir.file("bad.csv"), "not,a,ktune,csv\n");
  EXPECT_THROW(load_dataset(dir.file("bad.csv")), Error);
}

}  // namespace
}  // namespace ktune
