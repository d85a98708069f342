// Runs the built ktune binary: export -> import must reproduce the store, and bad input must
// fail with one line naming it while leaving the store as it was.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ktune/interchange.hpp"
#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"

namespace fs = std::filesystem;
using namespace ktune;

namespace {

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class CliInterchange : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built: " << KTUNE_BINARY;
    dir_ = ktune::testing::fresh_test_dir("ktune_cli_interchange_");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  RunResult ktune(const std::string& args) const {
    const std::string cmd = std::string("'") + KTUNE_BINARY + "' " + args + " >'" +
                            file("stdout.txt") + "' 2>'" + file("stderr.txt") + "'";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(file("stdout.txt"));
    r.err = slurp(file("stderr.txt"));
    return r;
  }

  // `ktune import --store <store> --<source> <path><more>`: source is csv, t4 or kernel-tuner.
  RunResult run_import(const std::string& store, const std::string& source, const std::string& path,
                       const std::string& more = "") const {
    return ktune("import --store '" + store + "' --" + source + " '" + path + "'" + more);
  }

  // A small store with every status and awkward messages.
  std::string make_source_store() const {
    const std::string path = file("src.sqlite");
    Store store(path);
    const Status statuses[] = {Status::ok, Status::refused, Status::failed, Status::wrong,
                               Status::timeout};
    for (int p = 0; p < 3; ++p) {
      for (int c = 0; c < 10; ++c) {
        Measurement m;
        m.device = p == 2 ? "h100-sxm" : "xeon-8480-2c";
        m.family = "gemm";
        m.problem = "m=" + std::to_string(64 << p) + ";n=32;k=16";
        m.config = "r=" + std::to_string(c) + ";wg=16x" + std::to_string(c + 1);
        m.config_id = c;
        m.outcome.status = statuses[c % 5];
        m.outcome.timing = {
            0.1 * (c + 1) / 3.0, 0.09 * (c + 1), 0.2 * (c + 1) / 7.0, 1e-5 * c, 5 + c, {}};
        m.outcome.rel_error = c % 5 == 0 ? 1e-7 / (c + 1) : -1;
        m.outcome.message = c % 5 == 0 ? "" : "line one, \"quoted\"\nline two " + std::to_string(c);
        m.perf = c % 5 == 0 ? 1234.5678 / (c + 1) : 0;
        m.created_at = "2026-11-22T03:0" + std::to_string(c % 10) + ":00Z";
        store.put(m);
      }
    }
    return path;
  }

  fs::path dir_;
};

void expect_same_rows(const std::vector<Measurement>& a, const std::vector<Measurement>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    // The CSV text of one row is a field-by-field comparison with exact doubles.
    EXPECT_EQ(format_measurements_csv({a[i]}), format_measurements_csv({b[i]})) << "row " << i;
  }
}

size_t line_count(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST_F(CliInterchange, ExportThenImportReproducesTheStore) {
  const std::string src = make_source_store();
  const auto original = Store(src, Store::Mode::read_only).query();
  ASSERT_EQ(original.size(), 30u);
  for (const std::string out : {"all.csv", "all.csv.gz", "all.json", "all.json.gz"}) {
    SCOPED_TRACE(out);
    const std::string format = out.find(".csv") != std::string::npos ? "csv" : "t4";
    auto r = ktune("export --store '" + src + "' --format " + format + " -o '" + file(out) + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string dst = file("dst_" + out + ".sqlite");
    r = run_import(dst, format, file(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("30 added, 0 skipped"), std::string::npos) << r.out;
    expect_same_rows(original, Store(dst, Store::Mode::read_only).query());
    // A second import adds nothing.
    r = run_import(dst, format, file(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("0 added, 30 skipped"), std::string::npos) << r.out;
  }
}

TEST_F(CliInterchange, ExportFiltersAndWritesStdout) {
  const std::string src = make_source_store();
  auto r = ktune("export --store '" + src + "' --format csv --device h100-sxm");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = parse_measurements_csv(r.out, "stdout");
  ASSERT_EQ(rows.size(), 10u);
  for (const auto& m : rows) EXPECT_EQ(m.device, "h100-sxm");
}

TEST_F(CliInterchange, MalformedInputFailsAndLeavesTheStoreUnchanged) {
  const std::string src = make_source_store();
  ASSERT_EQ(
      ktune("export --store '" + src + "' --format csv -o '" + file("good.csv") + "'").exit_code,
      0);
  const std::string dst = file("dst.sqlite");
  {
    Store store(dst);
    Measurement m = Store(src, Store::Mode::read_only).query().front();
    m.device = "other";
    store.put(m);
  }
  // Break a late row: every earlier row is valid, so a streaming importer would have
  // written them before noticing.
  std::string text = slurp(file("good.csv"));
  text.insert(text.rfind(",ok,") == std::string::npos ? text.size() : text.rfind(",ok,") + 4, "x");
  std::ofstream(file("bad.csv"), std::ios::binary) << text;

  auto r = run_import(dst, "csv", file("bad.csv"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(file("bad.csv") + ":"), std::string::npos) << r.err;
  EXPECT_EQ(Store(dst, Store::Mode::read_only).count(), 1u);

  std::ofstream(file("bad.json"), std::ios::binary) << "{\"results\": [ {";
  r = run_import(dst, "t4", file("bad.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(file("bad.json")), std::string::npos) << r.err;
  EXPECT_EQ(Store(dst, Store::Mode::read_only).count(), 1u);

  r = run_import(dst, "csv", file("missing.csv"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(file("missing.csv")), std::string::npos) << r.err;
}

TEST_F(CliInterchange, ExportFromAMissingOrUnreadableStoreFailsCleanly) {
  const std::string missing = file("nowhere.sqlite");
  auto r = ktune("export --store '" + missing + "' --format csv -o '" + file("o.csv") + "'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(missing));  // never created as a side effect
  EXPECT_FALSE(fs::exists(file("o.csv")));

  std::ofstream(file("junk.sqlite")) << "not a database";
  r = ktune("export --store '" + file("junk.sqlite") + "' --format t4");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(file("junk.sqlite")), std::string::npos) << r.err;

  const std::string src = make_source_store();
  r = ktune("export --store '" + src + "' --format xml");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("xml"), std::string::npos) << r.err;

  // Importing into a store path that cannot be created.
  ASSERT_EQ(
      ktune("export --store '" + src + "' --format csv -o '" + file("ok.csv") + "'").exit_code, 0);
  r = run_import(file("no/such/dir/s.sqlite"), "csv", file("ok.csv"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("no/such/dir/s.sqlite"), std::string::npos) << r.err;
}

TEST_F(CliInterchange, ProblemColsRouteToTheForeignLongCsvImporter) {
  std::ofstream(file("long.csv"), std::ios::binary) << "m,n,bx,by,time_ms\n"
                                                       "64,32,8,4,0.5\n"
                                                       "64,32,8,4,0.7\n"
                                                       "64,32,16,4,0.25\n"
                                                       "128,32,8,4,1.5\n";
  const std::string dst = file("long.sqlite");
  auto r = run_import(dst, "csv", file("long.csv"),
                      " --problem-cols m,n --config-cols bx,by --time-col time_ms --device d1 "
                      "--family fam");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 added"), std::string::npos) << r.out;  // repeated rows aggregated
  const auto rows = Store(dst, Store::Mode::read_only).query();
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& m : rows) {
    EXPECT_EQ(m.device, "d1");
    EXPECT_EQ(m.family, "fam");
    EXPECT_GT(m.perf, 0);
  }
  // Without a time column the options are incomplete: one-line error, nothing written.
  r = run_import(dst, "csv", file("long.csv"), " --problem-cols m,n --config-cols bx,by");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--time-col"), std::string::npos) << r.err;
  EXPECT_EQ(Store(dst, Store::Mode::read_only).count(), 3u);
}

TEST_F(CliInterchange, KernelTunerCacheImportsWithItsObjective) {
  const std::string fixture = KTUNE_SOURCE_DIR "/tests/core/data/kernel_tuner_cache.json";
  const std::string dst = file("kt.sqlite");
  auto r = run_import(dst, "kernel-tuner", fixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 added, 0 skipped"), std::string::npos) << r.out;
  const auto rows = Store(dst, Store::Mode::read_only).query();
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].device, "nvidia-rtx-a4000");
  EXPECT_EQ(rows[1].outcome.status, Status::refused);
  EXPECT_FALSE(rows[0].source.empty());  // the entry with every observable is kept
  // --objective with a direction Kernel Tuner does not know needs --direction.
  const std::string dst2 = file("kt2.sqlite");
  r = run_import(dst2, "kernel-tuner", fixture, " --objective energy2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--direction"), std::string::npos) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_FALSE(fs::exists(dst2));
  r = run_import(dst2, "kernel-tuner", fixture, " --objective GFLOP/s --family vadd");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Store(dst2, Store::Mode::read_only).query()[0].perf, 180.5);
}

TEST_F(CliInterchange, LongCsvWithInfTimesImportsAndReportsThem) {
  std::ofstream(file("inf.csv"), std::ios::binary) << "m,choice,time\n"
                                                      "1,triton_a,0.5\n"
                                                      "1,triton_b,inf\n"
                                                      "1,extern_mm,0.4\n";
  const std::string dst = file("inf.sqlite");
  auto r =
      run_import(dst, "csv", file("inf.csv"),
                 " --problem-cols m --config-col choice --time-col time --vendor-config extern_mm");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 added"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("1 of 3 rows hold an invalid time"), std::string::npos) << r.err;
  for (const auto& m : Store(dst, Store::Mode::read_only).query()) {
    EXPECT_EQ(m.config_id == -1, m.config == "extern_mm") << m.config;
    EXPECT_EQ(m.outcome.status == Status::failed, m.config == "triton_b") << m.config;
  }
}

TEST_F(CliInterchange, DataOfTheLearningVerbsAcceptsAForeignLongCsv) {
  std::ofstream csv(file("long.csv"), std::ios::binary);
  csv << "m,dtype,choice,time\n";
  for (int m = 1; m <= 8; ++m)
    for (const char* dtype : {"fp16", "fp32"})
      for (int c = 0; c < 3; ++c)
        csv << m * 64 << ',' << dtype << ",k" << c << ',' << 1.0 + ((m + c) % 3) * 0.5 << '\n';
  csv.close();
  const std::string opts =
      " --problem-cols m,dtype --categorical dtype --config-col choice --time-col time";
  auto r = ktune("analyze --data '" + file("long.csv") + "'" + opts);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("16"), std::string::npos) << r.out;  // 8 sizes × 2 dtypes
  std::ofstream(file("configs.txt")) << "k0\nk1\n";
  r = ktune("train --data '" + file("long.csv") + "'" + opts + " --selector tree-a --configs '" +
            file("configs.txt") + "' -o '" + file("model.json") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("16 problems"), std::string::npos) << r.out;
  // Without --problem-cols the column options are an error.
  r = ktune("analyze --data '" + file("long.csv") + "' --time-col time");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--problem-cols"), std::string::npos) << r.err;
}

// Data measured before tags were stored gets a workload's tags on import, and keeps them
// through an export.
TEST_F(CliInterchange, ImportTagsFromAWorkload) {
  Measurement m;
  m.device = "dev";
  m.family = "gemm";
  m.problem = "transa=0;transb=0;m=64;n=50176;k=27;batch=1";  // VGG16's first layer
  m.config = "cublas";
  m.outcome.status = Status::ok;
  m.perf = 1;
  Measurement other = m;
  other.problem = "transa=0;transb=0;m=3;n=5;k=7;batch=1";  // in no workload: no tags
  write_measurements_csv({m, other}, file("old.csv"));
  const std::string store = file("tagged.sqlite");
  ASSERT_EQ(
      ktune("import --csv " + file("old.csv") + " --store " + store + " --tags-from dnn").exit_code,
      0);
  const auto rows = Store(store, Store::Mode::read_only).query();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(std::find(rows[0].tags.begin(), rows[0].tags.end(), "vgg"), rows[0].tags.end());
  EXPECT_TRUE(rows[1].tags.empty());
  ASSERT_EQ(ktune("export --store " + store + " --format csv -o " + file("new.csv")).exit_code, 0);
  EXPECT_EQ(read_measurements_csv(file("new.csv"))[0].tags, rows[0].tags);
  const RunResult bad =
      ktune("import --csv " + file("old.csv") + " --store " + store + " --tags-from nosuch");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("nosuch"), std::string::npos) << bad.err;
}
