#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ktune/csv.hpp"
#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/ml/csv_import.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

// Options naming the problem columns, the one config column and the time column.
LongCsvOptions options(std::vector<std::string> problem_cols, std::string config_col,
                       std::string time_col) {
  LongCsvOptions o;
  o.problem_cols = std::move(problem_cols);
  o.config_col = std::move(config_col);
  o.time_col = std::move(time_col);
  return o;
}

std::string error_of(const std::string& path, const LongCsvOptions& o) {
  try {
    import_long_csv(path, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CsvImport, ParsesQuotesAndCrlf) {
  const auto rows = read_csv_records("a,\"b,c\",\"say \"\"hi\"\"\"\r\n1,2,3\n\n4,,6", "csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].fields, (std::vector<std::string>{"a", "b,c", "say \"hi\""}));
  EXPECT_EQ(rows[2].fields, (std::vector<std::string>{"4", "", "6"}));
  EXPECT_EQ(rows[2].line, 4u);  // physical line, the blank line 3 counted
  EXPECT_THROW(read_csv_records("a,\"open\n1,2", "csv"), Error);
}

TEST(CsvImport, MedianOfRepeatsAndOneOverTime) {
  test::TempDir dir;
  const std::string path = dir.file("t.csv");
  test::write_text(path,
                   "M,N,kernel,time\n"
                   "64,32,k1,2.0\n"
                   "64,32,k1,4.0\n"
                   "64,32,k1,10.0\n"
                   "64,32,\"k2\",1.0\n"
                   "8,8,k2,0.5\n");
  LongCsvOptions o = options({"M", "N"}, "kernel", "time");
  const auto ms = import_long_csv(path, o);
  ASSERT_EQ(ms.size(), 3u);
  const Measurement* k1 = nullptr;
  for (const auto& m : ms) {
    if (m.config == "k1") k1 = &m;
    EXPECT_NE(m.config_id, -1);  // never taken for a vendor
    EXPECT_EQ(m.device, "imported");
  }
  ASSERT_NE(k1, nullptr);
  EXPECT_EQ(k1->problem, "M=64;N=32");
  EXPECT_DOUBLE_EQ(k1->outcome.timing.median_ms, 4.0);
  EXPECT_DOUBLE_EQ(k1->perf, 0.25);
  EXPECT_EQ(k1->outcome.timing.reps, 3);
  const Dataset d = dataset_from_measurements(ms, "", "");
  EXPECT_EQ(d.rows(), 2);
  EXPECT_EQ(d.cols(), 2);
  EXPECT_EQ(d.valid.count(), 3);  // k1 was never measured on 8x8
}

TEST(CsvImport, ConfigColumnsAndHigherIsBetter) {
  test::TempDir dir;
  const std::string path = dir.file("g.csv");
  test::write_text(path, "m,tile,wg,gflops\n16,4,8,100\n16,4,8,300\n16,2,8,50\n");
  LongCsvOptions o;
  o.problem_cols = {"m"};
  o.config_cols = {"tile", "wg"};
  o.time_col = "gflops";
  o.higher_is_better = true;
  const auto ms = import_long_csv(path, o);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].config, "tile=2;wg=8");
  EXPECT_DOUBLE_EQ(ms[0].perf, 50);
  EXPECT_EQ(ms[1].config, "tile=4;wg=8");
  EXPECT_DOUBLE_EQ(ms[1].perf, 200);
}

TEST(CsvImport, BadInputNamesFileLineAndColumn) {
  test::TempDir dir;
  LongCsvOptions o = options({"m"}, "c", "t");
  const std::string path = dir.file("bad.csv");
  test::write_text(path, "m,c,t\n1,a,1\nbig,a,2\n");
  std::string e = error_of(path, o);
  EXPECT_NE(e.find(path + ":3"), std::string::npos) << e;
  EXPECT_NE(e.find("'m'"), std::string::npos) << e;
  test::write_text(path, "m,c,t\n1,a,1\n0x10,a,2\n");  // strict: no hex, no trailing text
  EXPECT_NE(error_of(path, o).find(path + ":3"), std::string::npos);
  test::write_text(path, "m,c,t\n1,a,1\n2abc,a,2\n");
  EXPECT_NE(error_of(path, o).find(path + ":3"), std::string::npos);
  test::write_text(path, "m,c,t\n1,a\n");
  EXPECT_NE(error_of(path, o).find(path + ":2"), std::string::npos);
  test::write_text(path, "m,c\n1,a\n");
  EXPECT_NE(error_of(path, o).find("'t'"), std::string::npos);
  test::write_text(path, "m,c,t\n");
  EXPECT_FALSE(error_of(path, o).empty());
  test::write_text(path, "");
  EXPECT_FALSE(error_of(path, o).empty());
  EXPECT_FALSE(error_of(dir.file("missing.csv"), o).empty());
  o.config_cols = {"c"};  // both a config column and config columns
  test::write_text(path, "m,c,t\n1,a,1\n");
  EXPECT_FALSE(error_of(path, o).empty());
}

// PyTorch's autotuning logs write inf for a failed choice; other tools leave the field empty or
// write a marker. Each is an invalid measurement: counted, kept as failed, never fatal.
TEST(CsvImport, InvalidTimesAreCountedAndKeptAsFailed) {
  test::TempDir dir;
  const std::string path = dir.file("inf.csv");
  test::write_text(path,
                   "m,kernel,time\n"
                   "1,a,2.0\n"
                   "1,a,inf\n"  // a has one valid and one invalid row: ok, median of the valid
                   "1,b,inf\n"
                   "1,c,nan\n"
                   "1,d,\n"
                   "1,e,RuntimeFailedConfig\n"
                   "1,f,-1\n"
                   "1,g,0\n"
                   "2,a,1.0\n");
  LongCsvOptions o = options({"m"}, "kernel", "time");
  LongCsvReport report;
  const auto ms = import_long_csv(path, o, &report);
  EXPECT_EQ(report.rows, 9u);
  EXPECT_EQ(report.invalid_rows, 7u);
  EXPECT_EQ(report.invalid_keys, 6u);
  ASSERT_EQ(ms.size(), 8u);
  for (const auto& m : ms) {
    SCOPED_TRACE(m.config);
    if (m.config == "a") {
      EXPECT_EQ(m.outcome.status, Status::ok);
      EXPECT_EQ(m.outcome.timing.reps, 1);
      continue;
    }
    EXPECT_EQ(m.outcome.status, Status::failed);
    EXPECT_EQ(m.perf, 0);
    EXPECT_NE(m.outcome.message.find(path + ":"), std::string::npos) << m.outcome.message;
  }
  EXPECT_EQ(ms[0].config, "a");
  EXPECT_DOUBLE_EQ(ms[0].outcome.timing.median_ms, 2.0);
  // The dataset sees them as invalid entries, not as missing ones.
  const Dataset d = dataset_from_measurements(ms, "", "");
  EXPECT_EQ(d.rows(), 2);
  EXPECT_EQ(d.valid.count(), 2);
}

TEST(CsvImport, VendorConfigIsImportedAsTheBaseline) {
  test::TempDir dir;
  const std::string path = dir.file("v.csv");
  test::write_text(path,
                   "m,choice,time\n"
                   "1,triton_a,2.0\n1,triton_b,1.0\n1,extern_mm,1.5\n"
                   "2,triton_a,1.0\n2,triton_b,3.0\n2,extern_mm,0.5\n");
  LongCsvOptions o = options({"m"}, "choice", "time");
  o.vendor_configs = {"extern_mm"};
  const auto ms = import_long_csv(path, o);
  for (const auto& m : ms) EXPECT_EQ(m.config_id == -1, m.config == "extern_mm") << m.config;
  const Dataset d = dataset_from_measurements(ms, "", "");
  EXPECT_EQ(d.config_names, (std::vector<std::string>{"triton_a", "triton_b"}));
  ASSERT_EQ(d.vendor_names, (std::vector<std::string>{"extern_mm"}));
  EXPECT_DOUBLE_EQ(d.vendor_perf(1, 0), 2.0);  // m=2: 1/0.5
  o.vendor_configs = {"cublas"};               // a typo must not pass silently
  EXPECT_NE(error_of(path, o).find("'cublas'"), std::string::npos);
}

TEST(CsvImport, CategoricalColumnsAreOneHotEncoded) {
  test::TempDir dir;
  const std::string path = dir.file("c.csv");
  test::write_text(path,
                   "m,dtype,layout,kernel,time\n"
                   "64,float16,NT,k1,1\n"
                   "64,float32,NT,k1,2\n"
                   "64,bfloat16,TN,k1,3\n");
  LongCsvOptions o = options({"m", "dtype", "layout"}, "kernel", "time");
  // Without --categorical a category is an error that says what to do.
  EXPECT_NE(error_of(path, o).find("--categorical"), std::string::npos);
  o.categorical_cols = {"dtype", "layout"};
  const auto ms = import_long_csv(path, o);
  ASSERT_EQ(ms.size(), 3u);
  std::set<std::string> keys;
  for (const auto& m : ms) keys.insert(m.problem);
  EXPECT_TRUE(
      keys.count("m=64;dtype.bfloat16=0;dtype.float16=1;dtype.float32=0;layout.NT=1;layout.TN=0"));
  EXPECT_TRUE(
      keys.count("m=64;dtype.bfloat16=1;dtype.float16=0;dtype.float32=0;layout.NT=0;layout.TN=1"));
  const Dataset d = dataset_from_measurements(ms, "", "");
  EXPECT_EQ(d.rows(), 3);
  ASSERT_GE(d.feature_names.size(), 6u);
  EXPECT_EQ(d.feature_names[1], "dtype.bfloat16");
  // A categorical column must be a problem column.
  o.categorical_cols = {"kernel"};
  EXPECT_NE(error_of(path, o).find("'kernel'"), std::string::npos);
}

}  // namespace
}  // namespace ktune::ml
