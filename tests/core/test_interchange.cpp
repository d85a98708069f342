#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "interchange_test_util.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"

namespace fs = std::filesystem;
using namespace ktune;
using namespace ktune::test;

namespace {

Measurement make(std::string config, int64_t id, Status status, double median, double perf,
                 std::string message = "") {
  Measurement m;
  m.device = "xeon-8480-2c";
  m.family = "gemm";
  m.problem = "m=64;n=128;k=256;batch=1;transa=0;transb=0";
  m.config = std::move(config);
  set_stored_config_id(m, id);  // -1: a vendor row
  m.outcome.status = status;
  m.outcome.timing.median_ms = median;
  m.outcome.timing.min_ms = median * 0.9;
  m.outcome.timing.max_ms = median * 1.7;
  m.outcome.timing.mad_ms = median / 3.0;
  m.outcome.timing.reps = status == Status::ok ? 7 : 0;
  m.outcome.rel_error = status == Status::ok ? 1.0 / 3.0 * 1e-7 : -1;
  m.outcome.message = std::move(message);
  m.perf = perf;
  m.created_at = "2026-11-22T03:04:05Z";
  return m;
}

// Values chosen so a printer with too few digits, or a quoting bug, changes them.
std::vector<Measurement> sample_rows() {
  std::vector<Measurement> ms;
  ms.push_back(make("r=2;a=4;c=8;wg=16x16", 17, Status::ok, 0.1, 1.0 / 0.1 * 3.14159));
  ms.push_back(make("r=1;a=2;c=4;wg=8x8", 3, Status::ok, 1e-300, 123456.789012345678));
  ms.push_back(make("r=4;a=8;c=8;wg=32x8", 99, Status::failed, 0, 0,
                    "NVRTC compile error: \"x\" undeclared, line 3\nsecond line"));
  ms.push_back(make("r=4;a=8;c=16;wg=32x8", 100, Status::failed, 0, 0, "launch failed, code 719"));
  ms.push_back(make("r=8;a=8;c=16;wg=32x32", 101, Status::refused, 0, 0, "needs 96 KiB, has 48"));
  ms.push_back(
      make("r=8;a=1;c=16;wg=4x4", 102, Status::wrong, 2.5, 0, "rel error 0.5 > 1e-3\r\nCRLF"));
  ms.push_back(make("r=8;a=2;c=16;wg=4x4", 103, Status::timeout, 2000.0000000000002, 0, ""));
  ms.push_back(make("cublas", -1, Status::ok, 0.031234567890123456, 9876.54321));
  ms.back().device = "h100-sxm";
  ms.back().outcome.message = "  leading, trailing  ";
  ms.back().outcome.timing.samples_ms = {0.03, 0.031234567890123456, 0.04};
  ms[0].outcome.timing.samples_ms = {0.1, 0.1, 0.12, 0.09};
  ms[1].created_at = "";
  ms[0].tags = {"resnet", "vgg"};
  ms[2].tags = {"one, with a comma"};
  return ms;
}

void expect_same(const Measurement& a, const Measurement& b, bool with_samples) {
  SCOPED_TRACE(a.config);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.config_id, b.config_id);
  EXPECT_EQ(a.vendor, b.vendor);
  EXPECT_EQ(a.outcome.status, b.outcome.status);
  // Exact double equality on purpose: the round trip must be bit-identical.
  EXPECT_EQ(a.outcome.timing.median_ms, b.outcome.timing.median_ms);
  EXPECT_EQ(a.outcome.timing.min_ms, b.outcome.timing.min_ms);
  EXPECT_EQ(a.outcome.timing.max_ms, b.outcome.timing.max_ms);
  EXPECT_EQ(a.outcome.timing.mad_ms, b.outcome.timing.mad_ms);
  EXPECT_EQ(a.outcome.timing.reps, b.outcome.timing.reps);
  EXPECT_EQ(a.perf, b.perf);
  EXPECT_EQ(a.outcome.rel_error, b.outcome.rel_error);
  EXPECT_EQ(a.outcome.message, b.outcome.message);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.tags, b.tags);
  if (with_samples) {
    EXPECT_EQ(a.outcome.timing.samples_ms, b.outcome.timing.samples_ms);
  }
}

void expect_same_rows(const std::vector<Measurement>& a, const std::vector<Measurement>& b,
                      bool with_samples) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) expect_same(a[i], b[i], with_samples);
}

}  // namespace

TEST(InterchangeCsv, RoundTripIsExact) {
  TempDir dir;
  const auto rows = sample_rows();
  write_measurements_csv(rows, dir.file("m.csv"));
  const std::string text = raw_bytes(dir.file("m.csv"));
  EXPECT_EQ(text.substr(0, text.find('\n')), kMeasurementCsvHeader);
  EXPECT_NE(text.find("\"NVRTC compile error: \"\"x\"\" undeclared, line 3\nsecond line\""),
            std::string::npos);
  expect_same_rows(rows, read_measurements_csv(dir.file("m.csv")), false);
}

TEST(InterchangeCsv, GzipRoundTripIsExactAndCompressed) {
  TempDir dir;
  const auto rows = sample_rows();
  write_measurements_csv(rows, dir.file("m.csv.gz"));
  const std::string bytes = raw_bytes(dir.file("m.csv.gz"));
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  EXPECT_FALSE(fs::exists(dir.file("m.csv.gz.tmp")));
  expect_same_rows(rows, read_measurements_csv(dir.file("m.csv.gz")), false);
  EXPECT_EQ(read_text_file(dir.file("m.csv.gz")), format_measurements_csv(rows));
}

TEST(InterchangeCsv, EmptyStoreRoundTrips) {
  EXPECT_TRUE(parse_measurements_csv(format_measurements_csv({}), "empty.csv").empty());
}

TEST(InterchangeCsv, MalformedInputNamesFileAndLine) {
  TempDir dir;
  const std::string path = dir.file("bad.csv");
  std::string text = format_measurements_csv(sample_rows());
  // Line 5 starts the third data row (row 2 spans lines 4-5 because of its quoted newline)...
  // so break a number on the row that starts on line 6.
  const auto rows = parse_measurements_csv(text, "x");
  ASSERT_EQ(rows.size(), 8u);
  const size_t pos = text.find(",launch failed, code 719");
  ASSERT_EQ(pos, std::string::npos) << "message must have been quoted";
  const size_t row = text.find("r=4;a=8;c=16;wg=32x8,100,failed,");
  ASSERT_NE(row, std::string::npos);
  text.replace(row + std::string("r=4;a=8;c=16;wg=32x8,100,failed,").size(), 1, "zero");
  write_raw(path, text);
  const std::string msg = error_of([&] { read_measurements_csv(path); });
  EXPECT_NE(msg.find(path + ":6:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("median_ms"), std::string::npos) << msg;

  write_raw(path, "device,family\nx,y\n");
  EXPECT_NE(error_of([&] { read_measurements_csv(path); }).find(path + ":1:"), std::string::npos);

  write_raw(path, std::string(kMeasurementCsvHeader) + "\na,b,c,d,1,ok,1,1,1,0,3,1,-1\n");
  EXPECT_NE(error_of([&] { read_measurements_csv(path); }).find(path + ":2: 13 fields"),
            std::string::npos);

  write_raw(path, std::string(kMeasurementCsvHeader) + "\na,b,c,d,1,great,1,1,1,0,3,1,-1,,t,\n");
  EXPECT_NE(error_of([&] { read_measurements_csv(path); }).find(path + ":2: column status"),
            std::string::npos);

  write_raw(path, std::string(kMeasurementCsvHeader) + "\na,b,c,d,1,ok,1,1,1,0,3,1,-1,\"open,t\n");
  EXPECT_NE(error_of([&] { read_measurements_csv(path); }).find("unterminated"), std::string::npos);

  EXPECT_NE(error_of([&] {
              read_measurements_csv(dir.file("missing.csv"));
            }).find(dir.file("missing.csv")),
            std::string::npos);
}

// NaN parses as a double but is no measurement: SQLite would store it as NULL and the NOT NULL
// row would be dropped silently (an import reported it as "already stored"). Each number column.
TEST(InterchangeCsv, NanInANumberFieldIsAnErrorNamingTheLine) {
  const std::vector<std::string> good = {"a", "b", "c", "d", "1",  "ok", "1", "1",
                                         "1", "0", "3", "1", "-1", "",   "t", ""};
  const std::map<size_t, std::string> columns = {{6, "median_ms"}, {7, "min_ms"},
                                                 {8, "max_ms"},    {9, "mad_ms"},
                                                 {11, "perf"},     {12, "rel_error"}};
  for (const auto& [index, column] : columns) {
    for (const char* nan : {"nan", "NaN", "-nan"}) {
      auto fields = good;
      fields[index] = nan;
      std::string row;
      for (const auto& f : fields) row += (row.empty() ? "" : ",") + f;
      const std::string text = std::string(kMeasurementCsvHeader) + "\n" + row + "\n";
      const std::string msg = error_of([&] { parse_measurements_csv(text, "n.csv"); });
      EXPECT_NE(msg.find("n.csv:2: column " + column + ": NaN is not a value"), std::string::npos)
          << nan << " in " << column << ": " << msg;
    }
  }
}

// Exports made before the tags column are still read, without tags; each row must then have the
// old column count.
TEST(InterchangeCsv, ReadsFilesWithoutTheTagsColumn) {
  std::string text = format_measurements_csv(sample_rows());
  std::string old_header(kMeasurementCsvHeader);
  old_header.resize(old_header.rfind(','));
  std::string old = old_header + "\na,b,c,d,1,ok,1,1,1,0,3,1,-1,,t\n";
  const auto rows = parse_measurements_csv(old, "old.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].tags.empty());
  EXPECT_EQ(rows[0].created_at, "t");
  EXPECT_NE(error_of([&] {
              parse_measurements_csv(old_header + "\na,b,c,d,1,ok,1,1,1,0,3,1,-1,,t,x\n", "o.csv");
            }).find("o.csv:2: 16 fields, expected 15"),
            std::string::npos);
  const auto tagged = parse_measurements_csv(text, "new.csv");
  EXPECT_EQ(tagged[0].tags, (std::vector<std::string>{"resnet", "vgg"}));
}

TEST(InterchangeT4, RoundTripIsExactIncludingSamples) {
  TempDir dir;
  const auto rows = sample_rows();
  for (const std::string name : {"m.json", "m.json.gz"}) {
    write_t4(rows, dir.file(name));
    expect_same_rows(rows, read_t4(dir.file(name)), true);
  }
}

TEST(InterchangeT4, FollowsTheT4ResultsSchema) {
  const auto rows = sample_rows();
  const auto doc = nlohmann::ordered_json::parse(format_t4(rows));
  EXPECT_EQ(doc.at("schema_version"), "1.0.0");
  const auto& results = doc.at("results");
  ASSERT_EQ(results.size(), rows.size());
  const std::set<std::string> invalidities = {"timeout",     "compile",     "runtime",
                                              "correctness", "constraints", "correct"};
  for (const auto& r : results) {
    for (const char* key : {"configuration", "times", "invalidity", "correctness"})
      EXPECT_TRUE(r.contains(key)) << key;
    EXPECT_TRUE(invalidities.count(r.at("invalidity").get<std::string>()));
    EXPECT_TRUE(r.at("times").at("runtimes").is_array());
    EXPECT_TRUE(r.at("measurements").is_array());
  }
  std::vector<std::string> got;
  for (const auto& r : results) got.push_back(r.at("invalidity"));
  EXPECT_EQ(got, (std::vector<std::string>{"correct", "correct", "compile", "runtime",
                                           "constraints", "correctness", "timeout", "correct"}));
  // Numeric parameter values are JSON numbers; "16x16" stays a string; order is kept.
  const auto& c0 = results[0].at("configuration");
  EXPECT_EQ(c0.dump(), R"({"r":2,"a":4,"c":8,"wg":"16x16"})");
  EXPECT_EQ(results[0].at("measurements")[0].at("value").get<double>(), 0.1);
  EXPECT_EQ(results[7].at("configuration").at("vendor"), "cublas");
  EXPECT_EQ(results[2].at("measurements")[0].at("value"), "CompilationFailedConfig");
}

TEST(InterchangeT4, ConfigurationKeepsParameterOrderForForeignReaders) {
  // Drop the ktune object: a reader that only knows T4 rebuilds the config from
  // "configuration", which must give back the same string (order and spelling).
  auto doc = nlohmann::ordered_json::parse(format_t4(sample_rows()));
  for (auto& r : doc["results"]) r.erase("ktune");
  const auto foreign = parse_t4(doc.dump(), "foreign.json", t4_labels("dev", "gemm", "p=1"));
  ASSERT_EQ(foreign.size(), 8u);
  EXPECT_EQ(foreign[0].config, "r=2;a=4;c=8;wg=16x16");
  EXPECT_EQ(foreign[0].outcome.status, Status::ok);
  EXPECT_EQ(foreign[2].outcome.status, Status::failed);
  EXPECT_NE(foreign[2].outcome.message.find("compile"), std::string::npos);
  EXPECT_EQ(foreign[3].outcome.message.find("compile"), std::string::npos);
  EXPECT_EQ(foreign[4].outcome.status, Status::refused);
  EXPECT_EQ(foreign[5].outcome.status, Status::wrong);
  EXPECT_EQ(foreign[6].outcome.status, Status::timeout);
  EXPECT_EQ(foreign[7].config, "vendor=cublas");
  // ids: first-seen order of configurations.
  for (size_t i = 0; i < foreign.size(); ++i) EXPECT_EQ(foreign[i].config_id, int64_t(i));
  // Samples are recomputed into statistics; perf = 1/median.
  EXPECT_EQ(foreign[0].outcome.timing.reps, 4);
  EXPECT_DOUBLE_EQ(foreign[0].outcome.timing.median_ms, 0.1);
  EXPECT_DOUBLE_EQ(foreign[0].perf, 10.0);
}

TEST(InterchangeT4, ForeignTimeUnitsAreConverted) {
  const std::string doc = R"({"schema_version":"1.0.0","metadata":{"timeunit":"seconds"},
    "results":[{"configuration":{"bx":32,"by":4},"times":{"runtimes":[0.002,0.001,0.003]},
                "invalidity":"correct","correctness":1},
               {"configuration":{"bx":64,"by":4},"times":{},
                "invalidity":"correct","correctness":1,
                "measurements":[{"name":"time","value":0.004,"unit":"s"}]}]})";
  const auto ms = parse_t4(doc, "k.json", t4_labels("gpu", "kern", ""));
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].problem, "problem=0");
  EXPECT_DOUBLE_EQ(ms[0].outcome.timing.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(ms[0].outcome.timing.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(ms[0].outcome.timing.max_ms, 3.0);
  EXPECT_DOUBLE_EQ(ms[0].outcome.timing.mad_ms, 1.0);
  EXPECT_DOUBLE_EQ(ms[0].perf, 0.5);
  EXPECT_DOUBLE_EQ(ms[1].outcome.timing.median_ms, 4.0);
  EXPECT_EQ(ms[1].config, "bx=64;by=4");
}

TEST(InterchangeT4, MalformedInputNamesTheFile) {
  EXPECT_NE(error_of([] { parse_t4("{\"results\": [", "broken.json"); }).find("broken.json"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { parse_t4("{\"schema_version\":\"1.0.0\"}", "nores.json"); }).find("nores.json"),
      std::string::npos);
  const std::string bad = R"({"results":[
      {"configuration":{"a":1},"times":{"runtimes":[1]},"invalidity":"correct","correctness":1},
      {"configuration":{"a":2},"times":{"runtimes":[1]},"invalidity":"weird","correctness":1}]})";
  const std::string msg = error_of([&] { parse_t4(bad, "bad.json", t4_labels("d", "f", "")); });
  EXPECT_NE(msg.find("bad.json: results[1]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("weird"), std::string::npos) << msg;
  // No device in options or metadata.
  EXPECT_NE(error_of([&] { parse_t4(bad, "bad.json"); }).find("--device"), std::string::npos);
}

TEST(InterchangeT4, NonFiniteValuesAreRefusedOnWrite) {
  auto rows = sample_rows();
  rows[0].perf = std::nan("");
  EXPECT_NE(error_of([&] { format_t4(rows); }).find("perf"), std::string::npos);
}

TEST(InterchangeT4, ImportsThePublicConvolutionDataset) {
  if (!fs::exists(kT4Fixture)) GTEST_SKIP() << "fixture not present: " << kT4Fixture;
  // The file's metadata names no device or kernel: the labels come from the options, never
  // from splitting the file name.
  EXPECT_NE(error_of([] { read_t4(kT4Fixture); }).find("--device"), std::string::npos);
  const auto ms = read_t4(kT4Fixture, t4_labels("a100", "convolution", ""));
  ASSERT_EQ(ms.size(), 4362u);

  // Cross-check against the raw JSON, read independently.
  const auto doc = nlohmann::json::parse(read_text_file(kT4Fixture));
  std::map<std::string, size_t> by_invalidity;
  for (const auto& r : doc["results"]) ++by_invalidity[r["invalidity"].get<std::string>()];

  std::map<Status, size_t> by_status;
  std::set<int64_t> ids;
  size_t compile_messages = 0;
  for (size_t i = 0; i < ms.size(); ++i) {
    const Measurement& m = ms[i];
    EXPECT_EQ(m.device, "a100");
    EXPECT_EQ(m.family, "convolution");
    EXPECT_EQ(m.problem, "problem=0");
    ++by_status[m.outcome.status];
    ids.insert(m.config_id);
    if (m.outcome.message.find("compile") != std::string::npos) ++compile_messages;
    EXPECT_EQ(m.created_at, doc["results"][i]["timestamp"].get<std::string>());
    if (m.outcome.status == Status::ok) {
      const auto& runtimes = doc["results"][i]["times"]["runtimes"];
      EXPECT_EQ(m.outcome.timing.reps, static_cast<int>(runtimes.size()));
      EXPECT_GT(m.perf, 0);
      EXPECT_EQ(m.perf, 1.0 / m.outcome.timing.median_ms);
      EXPECT_LE(m.outcome.timing.min_ms, m.outcome.timing.median_ms);
      EXPECT_GE(m.outcome.timing.max_ms, m.outcome.timing.median_ms);
    } else {
      EXPECT_EQ(m.perf, 0);
    }
  }
  EXPECT_EQ(by_status[Status::ok], by_invalidity["correct"]);
  EXPECT_EQ(by_status[Status::failed], by_invalidity["runtime"] + by_invalidity["compile"]);
  EXPECT_EQ(compile_messages, by_invalidity["compile"]);
  EXPECT_GT(by_invalidity["compile"], 0u);
  EXPECT_EQ(ids.size(), 4362u);  // every configuration is distinct
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), 4361);
  EXPECT_EQ(ms[0].config.substr(0, 30), "block_size_x=16;block_size_y=1");

  // Options relabel; ktune's own T4 export of the imported rows round-trips exactly.
  const auto relabelled = read_t4(kT4Fixture, t4_labels("a100-pcie", "conv2d", "h=4096;w=4096"));
  EXPECT_EQ(relabelled[0].device, "a100-pcie");
  EXPECT_EQ(relabelled[0].family, "conv2d");
  EXPECT_EQ(relabelled[0].problem, "h=4096;w=4096");
  expect_same_rows(ms, parse_t4(format_t4(ms), "again.json"), true);
}
