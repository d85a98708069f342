#include <gtest/gtest.h>

#include "ktune/csv.hpp"
#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/ml/csv_import.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

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
  LongCsvOptions o;
  o.problem_cols = {"M", "N"};
  o.config_col = "kernel";
  o.time_col = "time";
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
  LongCsvOptions o;
  o.problem_cols = {"m"};
  o.config_col = "c";
  o.time_col = "t";
  const std::string path = dir.file("bad.csv");
  test::write_text(path, "m,c,t\n1,a,1\nbig,a,2\n");
  std::string e = error_of(path, o);
  EXPECT_NE(e.find(path + ":3"), std::string::npos) << e;
  EXPECT_NE(e.find("'m'"), std::string::npos) << e;
  for (const char* t : {"nan", "-1", "", "0", "abc"}) {
    test::write_text(path, std::string("m,c,t\n1,a,1\n2,a,") + t + "\n");
    e = error_of(path, o);
    EXPECT_NE(e.find(path + ":3"), std::string::npos) << "time '" << t << "': " << e;
  }
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

}  // namespace
}  // namespace ktune::ml
