// Foreign tuning data: T4 files written by other tools (labels, declared objectives, a lossless
// round trip through the store, the crash and range bugs of issue 11) and Kernel Tuner caches.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "interchange_test_util.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/import_duplicates.hpp"
#include "ktune/interchange.hpp"
#include "ktune/store.hpp"
#include "measurement_test_util.hpp"

using namespace ktune;
using namespace ktune::test;
using OJson = nlohmann::ordered_json;

namespace {

// One ok measurement of config on device d, family f, problem p=1, timed 1 ms over reps.
Measurement ok_measurement(const std::string& config, int64_t config_id, int reps) {
  return ktune::testing::ok_measurement("d", "f", "p=1", config, config_id, 1, reps);
}

const std::string kKernelTunerFixture = KTUNE_SOURCE_DIR "/tests/core/data/kernel_tuner_cache.json";

// Seconds, every kind of time, an empty and a missing timestamp, a float that must stay 0.0001
// (not "1e-04"), integers that must stay integers.
const std::string kForeignT4 = R"({"schema_version":"1.0.0","metadata":{"timeunit":"seconds",
"device":"NVIDIA GeForce RTX 2080 Ti","kernel_name":"gemm_kernel"},"results":[
{"timestamp":"2024-01-02 03:04:05+00:00","configuration":{"bx":32,"scale":0.0001,"layout":"NT"},
 "times":{"compilation":0.5,"framework":0.25,"search_algorithm":0,"validation":0.125,
 "runtimes":[0.002,0.001,0.003]},"invalidity":"correct","correctness":1,
 "measurements":[{"name":"time","value":0.002,"unit":"s"},{"name":"energy","value":3,"unit":"J"}],
 "objectives":["time"]},
{"timestamp":"","configuration":{"bx":64,"scale":0.0001,"layout":"NT"},
 "times":{"compilation":1,"runtimes":[]},"invalidity":"compile","correctness":1,
 "measurements":[{"name":"time","value":"CompilationFailedConfig","unit":"s"}],
 "objectives":["time"]},
{"configuration":{"bx":128,"scale":1e-05,"layout":"TN"},"times":{"runtimes":[0.004]},
 "invalidity":"correct","correctness":1,"measurements":[],"objectives":["time"]}]})";

// A T4 document around the given results and metadata.
std::string t4_doc(const std::string& metadata, const std::string& results) {
  return R"({"schema_version":"1.0.0","metadata":)" + metadata + R"(,"results":[)" + results + "]}";
}

const std::string kOneResult =
    R"({"configuration":{"a":1},"times":{"runtimes":[1.0]},"invalidity":"correct",
        "correctness":1})";

// Each exported result, without ktune's labelling object, must be the original byte for byte.
void expect_results_verbatim(const OJson& original, const OJson& exported) {
  ASSERT_EQ(exported.at("results").size(), original.at("results").size());
  EXPECT_EQ(exported.at("metadata").at("timeunit"), original.at("metadata").at("timeunit"));
  for (size_t i = 0; i < original["results"].size(); ++i) {
    OJson r = exported["results"][i];
    ASSERT_TRUE(r.contains("ktune"));
    r.erase("ktune");
    EXPECT_EQ(r.dump(), original["results"][i].dump()) << "result " << i;
  }
}

std::vector<Measurement> through_store(const std::vector<Measurement>& ms, const TempDir& dir) {
  const std::string path = dir.file("s.sqlite");
  Store(path).put_all(ms);
  return Store(path, Store::Mode::read_only).query();
}

}  // namespace

TEST(T4Foreign, LabelsComeFromTheMetadataNeverFromTheFileName) {
  const auto ms = parse_t4(kForeignT4, "RTX_2080_Ti_T4.json");
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].device, "nvidia-geforce-rtx-2080-ti");
  EXPECT_EQ(ms[0].family, "gemm-kernel");
  // Options relabel.
  EXPECT_EQ(parse_t4(kForeignT4, "x.json", t4_labels("rtx-2080-ti", "gemm", ""))[0].device,
            "rtx-2080-ti");
  // Without metadata the file name is not split (it gave device "ti", family "rtx-2080").
  const std::string bare = t4_doc(R"({"timeunit":"milliseconds"})", kOneResult);
  EXPECT_NE(error_of([&] { parse_t4(bare, "RTX_2080_Ti_T4.json"); }).find("--device"),
            std::string::npos);
  // Kernel Tuner's nvidia-smi query: an empty gpu array crashed; now it names no device.
  const std::string smi = R"({"environment":{"device_query":{"nvidia-smi":{"nvidia_smi_log":
      {"gpu":GPU}}}},"kernel_name":"k"})";
  auto with_gpu = [&](const std::string& gpu) {
    std::string m = smi;
    m.replace(m.find("GPU"), 3, gpu);
    return t4_doc(m, kOneResult);
  };
  EXPECT_NE(error_of([&] { parse_t4(with_gpu("[]"), "e.json"); }).find("--device"),
            std::string::npos);
  EXPECT_EQ(parse_t4(with_gpu("[]"), "e.json", t4_labels("a100", "", ""))[0].device, "a100");
  EXPECT_EQ(parse_t4(with_gpu(R"([{"product_name":"NVIDIA A100-PCIE-40GB"}])"), "g.json")[0].device,
            "nvidia-a100-pcie-40gb");
  EXPECT_EQ(parse_t4(with_gpu(R"({"product_name":"Tesla T4"})"), "g.json")[0].device, "tesla-t4");
}

TEST(T4Foreign, TheDeclaredObjectiveRanksTheConfigs) {
  // Config a is faster, b has more GFLOP/s: a file optimizing GFLOP/s must rank b first.
  const std::string results = R"(
    {"configuration":{"c":"a"},"times":{"runtimes":[1.0]},"invalidity":"correct","correctness":1,
     "measurements":[{"name":"GFLOP/s","value":100},{"name":"energy","value":4}],
     "objectives":["GFLOP/s"]},
    {"configuration":{"c":"b"},"times":{"runtimes":[2.0]},"invalidity":"correct","correctness":1,
     "measurements":[{"name":"GFLOP/s","value":300},{"name":"energy","value":2}],
     "objectives":["GFLOP/s"]})";
  const std::string doc = t4_doc(R"({"device":"d","kernel":"k"})", results);
  auto ms = parse_t4(doc, "o.json");
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].perf, 100);
  EXPECT_EQ(ms[1].perf, 300);
  EXPECT_EQ(ms[1].outcome.timing.median_ms, 2.0);  // the runtimes still give the statistics
  // Overridden: energy is lower-is-better by Kernel Tuner's defaults.
  T4ImportOptions o;
  o.objective.name = "energy";
  ms = parse_t4(doc, "o.json", o);
  EXPECT_EQ(ms[0].perf, 0.25);
  EXPECT_EQ(ms[1].perf, 0.5);
  o.objective.name = "time";
  EXPECT_EQ(parse_t4(doc, "o.json", o)[0].perf, 1.0);
  // An objective of unknown direction needs one.
  o.objective.name = "score";
  EXPECT_NE(error_of([&] { parse_t4(doc, "o.json", o); }).find("--direction"), std::string::npos);
  o.objective = {"GFLOP/s", -1};  // an explicit direction wins over the default
  EXPECT_EQ(parse_t4(doc, "o.json", o)[1].perf, 1.0 / 300);
}

TEST(T4Foreign, RoundTripThroughTheStoreIsLossless) {
  TempDir dir;
  const auto imported = parse_t4(kForeignT4, "f.json");
  ASSERT_EQ(imported.size(), 3u);
  EXPECT_DOUBLE_EQ(imported[0].outcome.timing.median_ms, 2.0);  // seconds → ms
  EXPECT_EQ(imported[0].config, "bx=32;scale=0.0001;layout=NT");
  EXPECT_EQ(imported[1].outcome.status, Status::failed);
  const auto stored = through_store(imported, dir);
  const OJson original = OJson::parse(kForeignT4);
  const OJson exported = OJson::parse(format_t4(stored));
  expect_results_verbatim(original, exported);
  // And back again: the store rows come back with the same source and statistics.
  const auto again = parse_t4(exported.dump(), "again.json");
  ASSERT_EQ(again.size(), stored.size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].source, stored[i].source);
    EXPECT_EQ(again[i].outcome.timing.median_ms, stored[i].outcome.timing.median_ms);
    EXPECT_EQ(again[i].perf, stored[i].perf);
    EXPECT_EQ(again[i].device, stored[i].device);
  }
  expect_results_verbatim(original, OJson::parse(format_t4(again)));
}

TEST(T4Foreign, MixedUnitsExportInMilliseconds) {
  auto ms = parse_t4(kForeignT4, "f.json");  // seconds
  const auto ms2 = parse_t4(t4_doc(R"({"device":"d","kernel":"k"})", kOneResult), "g.json");
  ms.push_back(ms2[0]);  // milliseconds (the default)
  const OJson exported = OJson::parse(format_t4(ms));
  EXPECT_EQ(exported["metadata"]["timeunit"], "milliseconds");
  EXPECT_EQ(exported["results"][0]["times"]["runtimes"][1].get<double>(), 1.0);  // 0.001 s
  // Read back, the statistics are unchanged.
  const auto back = parse_t4(exported.dump(), "m.json");
  EXPECT_DOUBLE_EQ(back[0].outcome.timing.median_ms, ms[0].outcome.timing.median_ms);
  EXPECT_DOUBLE_EQ(back[3].outcome.timing.median_ms, 1.0);
}

TEST(T4Foreign, ThePublicDatasetRoundTripsThroughTheStore) {
  if (!std::filesystem::exists(kT4Fixture)) GTEST_SKIP() << "fixture absent: " << kT4Fixture;
  TempDir dir;
  const auto stored = through_store(read_t4(kT4Fixture, t4_labels("a100", "convolution", "")), dir);
  ASSERT_EQ(stored.size(), 4362u);
  expect_results_verbatim(OJson::parse(read_text_file(kT4Fixture)),
                          OJson::parse(format_t4(stored)));
}

TEST(T4Foreign, CrashInputsAreOneLineErrors) {
  // Deep nesting overflowed the stack in parsing and in dumping a configuration.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(error_of([&] { parse_t4(deep, "deep.json"); }).find("deep.json: JSON nested deeper"),
            std::string::npos);
  std::string nested = std::string(30, '[') + "1" + std::string(30, ']');
  const auto ok = parse_t4(t4_doc(R"({"device":"d","kernel":"k"})",
                                  R"({"configuration":{"a":)" + nested +
                                      R"(},"times":{"runtimes":[1]},"invalidity":"correct"})"),
                           "n.json");
  EXPECT_EQ(ok[0].config, "a=" + nested);
  // A result without "times" (undefined behaviour before): its time measurement counts.
  const auto no_times = parse_t4(t4_doc(R"({"device":"d","kernel":"k"})",
                                        R"({"configuration":{"a":1},"invalidity":"correct",
                 "measurements":[{"name":"time","value":2.0}]},
                {"configuration":{"a":2},"invalidity":"runtime"})"),
                                 "t.json");
  ASSERT_EQ(no_times.size(), 2u);
  EXPECT_EQ(no_times[0].perf, 0.5);
  EXPECT_EQ(no_times[1].outcome.status, Status::failed);
  EXPECT_NE(error_of([] {
              parse_t4(t4_doc(R"({"device":"d","kernel":"k"})",
                              R"({"configuration":{"a":1},"invalidity":"correct"})"),
                       "t.json");
            }).find("t.json: results[0]"),
            std::string::npos);
  // Numbers that do not fit their field (reps 1e300 became INT_MIN, config_id 1e23 INT64_MIN).
  const Measurement m = ok_measurement("a=1", 7, 3);
  const std::string good = format_t4({m});
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"reps\":3", "\"reps\":1e300"},
           {"\"reps\":3", "\"reps\":-1"},
           {"\"reps\":3", "\"reps\":2.5"},
           {"\"config_id\":7", "\"config_id\":1e23"},
           {"\"config_id\":7", "\"config_id\":\"7\""}}) {
    std::string bad = good;
    ASSERT_NE(bad.find(from), std::string::npos);
    bad.replace(bad.find(from), from.size(), to);
    const std::string e = error_of([&] { parse_t4(bad, "r.json"); });
    EXPECT_NE(e.find("r.json: results[0]"), std::string::npos) << to << ": " << e;
    EXPECT_NE(e.find(from.substr(1, from.find('"', 1) - 1)), std::string::npos) << e;
  }
}

TEST(KernelTuner, ImportsTheCacheFixture) {
  const auto ms = read_kernel_tuner(kKernelTunerFixture);
  ASSERT_EQ(ms.size(), 6u);
  for (const auto& m : ms) {
    EXPECT_EQ(m.device, "nvidia-rtx-a4000");
    EXPECT_EQ(m.family, "vector-add");
    EXPECT_EQ(m.problem, "size_x=4096;size_y=2048");
    EXPECT_NE(m.source.find("\"compile_time\""), std::string::npos);  // every observable kept
  }
  EXPECT_EQ(ms[0].config, "block_size_x=128;use_shmem=0");
  EXPECT_EQ(ms[5].config, "block_size_x=512;use_shmem=1");
  const Status expected[] = {Status::ok,     Status::refused, Status::ok,
                             Status::failed, Status::failed,  Status::ok};
  for (size_t i = 0; i < ms.size(); ++i) {
    EXPECT_EQ(ms[i].config_id, int64_t(i));
    EXPECT_EQ(ms[i].outcome.status, expected[i]) << i;
    EXPECT_EQ(ms[i].perf > 0, expected[i] == Status::ok) << i;
  }
  EXPECT_NE(ms[3].outcome.message.find("CompilationFailedConfig"), std::string::npos);
  EXPECT_NE(ms[4].outcome.message.find("RuntimeFailedConfig"), std::string::npos);
  EXPECT_EQ(ms[0].outcome.timing.reps, 3);
  EXPECT_DOUBLE_EQ(ms[0].outcome.timing.median_ms, 0.045);
  EXPECT_DOUBLE_EQ(ms[2].outcome.timing.median_ms, 0.03);
  EXPECT_EQ(ms[0].perf, 1.0 / ms[0].outcome.timing.median_ms);
  EXPECT_EQ(ms[0].created_at, "2022-12-23 12:11:26.411558+00:00");
  // T4 export names the failures as Kernel Tuner does, and ktune → T4 → ktune is exact.
  const OJson t4 = OJson::parse(format_t4(ms));
  EXPECT_EQ(t4["results"][1]["invalidity"], "constraints");
  EXPECT_EQ(t4["results"][3]["invalidity"], "compile");
  EXPECT_EQ(t4["results"][4]["invalidity"], "runtime");
  const auto back = parse_t4(t4.dump(), "kt.json");
  ASSERT_EQ(back.size(), ms.size());
  for (size_t i = 0; i < ms.size(); ++i) {
    EXPECT_EQ(back[i].source, ms[i].source);
    EXPECT_EQ(back[i].perf, ms[i].perf);
    EXPECT_EQ(back[i].outcome.timing.samples_ms, ms[i].outcome.timing.samples_ms);
  }
}

TEST(KernelTuner, ObjectiveAndDirection) {
  KernelTunerImportOptions o;
  o.objective.name = "GFLOP/s";  // higher is better by Kernel Tuner's defaults
  auto ms = read_kernel_tuner(kKernelTunerFixture, o);
  EXPECT_EQ(ms[0].perf, 180.5);
  EXPECT_EQ(ms[2].perf, 300.25);
  o.objective.name = "energy";  // lower is better
  ms = read_kernel_tuner(kKernelTunerFixture, o);
  EXPECT_DOUBLE_EQ(ms[5].perf, 2.0);
  EXPECT_EQ(ms[1].outcome.status, Status::refused);  // failures stay failures
  o.objective.name = "compile_time";                 // unknown direction
  EXPECT_NE(error_of([&] { read_kernel_tuner(kKernelTunerFixture, o); }).find("--direction"),
            std::string::npos);
  o.objective.direction = -1;
  EXPECT_DOUBLE_EQ(read_kernel_tuner(kKernelTunerFixture, o)[0].perf, 1.0 / 440.95);
  o.objective = {"temperature", 1};  // an entry without the objective is an error naming it
  const std::string e = error_of([&] { read_kernel_tuner(kKernelTunerFixture, o); });
  EXPECT_NE(e.find("cache[\"128,0\"]"), std::string::npos) << e;
}

TEST(KernelTuner, UnclosedCacheOfAnInterruptedRunIsRead) {
  std::string text = read_text_file(kKernelTunerFixture);
  // What Kernel Tuner leaves while tuning: the closing "}\n}" cut, a trailing comma.
  const size_t last = text.rfind("}\n}");
  ASSERT_NE(last, std::string::npos);
  text = text.substr(0, last) + ",\n";
  EXPECT_EQ(parse_kernel_tuner(text, "open.json").size(), 6u);
  // Cut mid-entry it stays an error naming the file.
  EXPECT_NE(error_of([&] {
              parse_kernel_tuner(text.substr(0, text.size() - 40), "cut.json");
            }).find("cut.json"),
            std::string::npos);
}

TEST(KernelTuner, MalformedCachesAreOneLineErrors) {
  const std::string head = R"({"device_name":"GPU","kernel_name":"k","problem_size":"callable",)"
                           R"("tune_params_keys":["bx"],"cache":)";
  EXPECT_EQ(parse_kernel_tuner(head + R"({"1":{"bx":1,"time":1.5}}})", "a.json")[0].problem,
            "problem=0");
  const std::string e =
      error_of([&] { parse_kernel_tuner(head + R"({"1":{"by":1,"time":1.5}}})", "b.json"); });
  EXPECT_NE(e.find("b.json: cache[\"1\"]"), std::string::npos) << e;
  EXPECT_NE(e.find("'bx'"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { parse_kernel_tuner(R"({"cache":[]})", "c.json"); }).find("c.json"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              parse_kernel_tuner(R"({"kernel_name":"k","tune_params_keys":["bx"],"cache":{}})",
                                 "d.json");
            }).find("--device"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { parse_kernel_tuner(std::string(5000, '{'), "e.json"); }).find("nested deeper"),
      std::string::npos);
}

TEST(T4Foreign, FloatParametersStayNumbers) {
  // A float parameter was exported as the string "1e-04"; its config text is JSON's spelling.
  const Measurement m = ok_measurement("bx=32;scale=0.0001;tiny=1e-05", 0, 1);
  const OJson c = OJson::parse(format_t4({m}))["results"][0]["configuration"];
  EXPECT_EQ(c.dump(), R"({"bx":32,"scale":0.0001,"tiny":1e-05})");
  OJson doc = OJson::parse(format_t4({m}));
  doc["results"][0].erase("ktune");
  EXPECT_EQ(parse_t4(doc.dump(), "f.json", t4_labels("d", "f", ""))[0].config, m.config);
}

// Impossible times were stored (-5 ms would rank first); NaN / Infinity, which Python's json
// writes, made the whole cache "not valid JSON"; two keys of one configuration kept one row
// and reported the other as "already stored" in an empty store.
TEST(KernelTuner, NegativeTimesAreErrorsNamingTheEntry) {
  const std::string head = R"({"device_name":"GPU","kernel_name":"k","problem_size":"callable",)"
                           R"("tune_params_keys":["bx"],"cache":)";
  for (const char* entry : {R"({"bx":1,"time":-5,"times":[-5,-5]})",
                            R"({"bx":1,"time":0,"times":[0]})", R"({"bx":1,"time":-5})"}) {
    const std::string e =
        error_of([&] { parse_kernel_tuner(head + R"({"1":)" + entry + "}}", "neg.json"); });
    EXPECT_NE(e.find("neg.json: cache[\"1\"]"), std::string::npos) << entry << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  // A T4 runtime of -5 likewise.
  const std::string e = error_of([&] {
    parse_t4(
        t4_doc(
            R"({"timeunit":"milliseconds","device":"GPU","kernel_name":"k"})",
            R"({"configuration":{"a":1},"times":{"runtimes":[-5.0]},"invalidity":"correct","correctness":1})"),
        "neg_t4.json");
  });
  EXPECT_NE(e.find("neg_t4.json"), std::string::npos) << e;
  EXPECT_NE(e.find("-5"), std::string::npos) << e;
}

TEST(KernelTuner, NanAndInfinityLiteralsAreRead) {
  const std::string cache =
      R"({"device_name":"GPU","kernel_name":"k","problem_size":"callable","note":"NaN stays",)"
      R"("tune_params_keys":["bx"],"cache":{)"
      R"("1":{"bx":1,"time":1.5,"times":[1.5],"GFLOP/s":NaN,"power":-Infinity},)"
      R"("2":{"bx":2,"time":NaN,"times":[]},)"
      R"("3":{"bx":3,"time":Infinity}}})";
  const auto ms = parse_kernel_tuner(cache, "nan.json");
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].outcome.status, Status::ok);
  EXPECT_DOUBLE_EQ(ms[0].perf, 1 / 1.5);
  for (size_t i : {1, 2}) {
    EXPECT_EQ(ms[i].outcome.status, Status::failed) << i;
    EXPECT_NE(ms[i].outcome.message.find("not a finite number"), std::string::npos);
  }
}

TEST(KernelTuner, TwoKeysOfOneConfigurationKeepBothRecords) {
  const std::string cache =
      R"({"device_name":"GPU","kernel_name":"k","problem_size":"callable",)"
      R"("tune_params_keys":["bx"],"cache":{)"
      R"("16":{"bx":16,"time":2.0},"16.0":{"bx":16.0,"time":1.0},"32":{"bx":32,"time":3.0}}})";
  auto ms = parse_kernel_tuner(cache, "dup.json");
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].config, ms[1].config);  // "bx=16" both
  EXPECT_EQ(fold_duplicate_keys(ms), 1u);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_DOUBLE_EQ(ms[0].outcome.timing.median_ms, 2.0);  // the first kept
  const auto source = nlohmann::json::parse(ms[0].source);
  ASSERT_TRUE(source.contains("duplicates"));
  EXPECT_EQ(source["duplicates"][0]["kernel_tuner"]["time"], 1.0);  // the other one's record
  EXPECT_EQ(source["kernel_tuner"]["time"], 2.0);
  EXPECT_EQ(ms[1].source.find("duplicates"), std::string::npos);
}

TEST(LongCsvImport, NegativeOrNonFiniteTimesAreErrorsNamingTheRow) {
  const std::string header = std::string(kMeasurementCsvHeader) + "\n";
  const std::string good = "d,f,p=1,c=1,1,ok,1,1,1,0,3,1,0,,,\n";
  EXPECT_EQ(parse_measurements_csv(header + good, "ok.csv").size(), 1u);
  // Zero times are "not recorded" (rows that carry only a perf), so they stay readable.
  const std::string untimed = "d,f,p=2,c=1,1,ok,0,0,0,0,3,1,0,,,\n";
  EXPECT_EQ(parse_measurements_csv(header + untimed, "ok.csv").size(), 1u);
  for (const char* bad :
       {"d,f,p=1,c=1,1,ok,1,-5,1,0,3,1,0,,,\n", "d,f,p=1,c=1,1,ok,1,1,nan,0,3,1,0,,,\n",
        "d,f,p=1,c=1,1,failed,inf,0,0,0,0,0,0,,,\n"}) {
    const std::string e = error_of([&] { parse_measurements_csv(header + good + bad, "t.csv"); });
    EXPECT_NE(e.find("t.csv:3: column"), std::string::npos) << bad << ": " << e;
  }
}
