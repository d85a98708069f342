// GEMM's 16-bit C as part of the problem: the optional `c16` feature (absent for FP32 C, so every
// older key, store row and dataset stays as it was), the workload variant "large@bf16:c=bf16"
// and its one-line errors, a store holding old and new rows side by side, and a CPU sweep that
// records (not fails) the kinds and vendors that cannot store 16-bit C.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_test_util.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/store.hpp"
#include "ktune/workload.hpp"
#include "measurement_test_util.hpp"

namespace ktune {
namespace {

using kernels::gemm::Precision;
namespace gemm = kernels::gemm;

const Family& gemm_family() {
  register_builtin();
  return find_family("gemm");
}

// The Error message of f(), or "" when it did not throw.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(GemmOut16, KeysCarryC16OnlyWhenSet) {
  gemm::Shape s = gemm::packed_shape(false, true, 64, 32, 16);
  s.precision = Precision::bf16;
  const std::string fp32_c = "transa=0;transb=1;m=64;n=32;k=16;batch=1;precision=2";
  EXPECT_EQ(gemm::problem_of(s).key(), fp32_c);  // FP32 C: the key of before
  s.c16 = true;
  const Problem p = gemm::problem_of(s, {"llm"});
  EXPECT_EQ(p.key(), fp32_c + ";c16=1");
  const gemm::Shape back = gemm::shape_of(Problem::parse(p.key()));
  EXPECT_TRUE(back.c16);
  EXPECT_EQ(back.precision, Precision::bf16);
  EXPECT_FALSE(gemm::shape_of(Problem::parse(fp32_c)).c16);
  EXPECT_FALSE(gemm::shape_of(Problem::parse(fp32_c + ";c16=0")).c16);
  // A precision change keeps 16-bit C where the inputs stay 16-bit, and drops it otherwise.
  EXPECT_EQ(gemm::with_precision(p, Precision::fp16).key(),
            "transa=0;transb=1;m=64;n=32;k=16;batch=1;precision=3;c16=1");
  EXPECT_EQ(gemm::with_precision(p, Precision::tf32).key(),
            "transa=0;transb=1;m=64;n=32;k=16;batch=1;precision=1");
  EXPECT_EQ(gemm::with_precision(p, Precision::bf16).tags, std::vector<std::string>{"llm"});
}

TEST(GemmOut16, C16NeedsSixteenBitInputsAndIsZeroOrOne) {
  const std::string base = "transa=0;transb=0;m=8;n=8;k=8;batch=1";
  for (const std::string& bad : {base + ";c16=1", base + ";precision=1;c16=1",
                                 base + ";precision=2;c16=2", base + ";precision=2;c16=0.5"}) {
    const std::string what = error_of([&] { gemm_family().validate(Problem::parse(bad)); });
    EXPECT_NE(what.find(bad), std::string::npos) << bad << ": " << what;
    EXPECT_NE(what.find("c16"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(GemmOut16, VariantsNamePrecisionAndCType) {
  const auto v = [](const std::string& text) { return gemm::parse_variant(text); };
  EXPECT_EQ(v("bf16").precision, Precision::bf16);
  EXPECT_FALSE(v("bf16").c16);
  EXPECT_TRUE(v("bf16:c=bf16").c16);
  EXPECT_TRUE(v("fp16:c=fp16").c16);
  EXPECT_EQ(v("fp16:c=fp16").precision, Precision::fp16);
  EXPECT_FALSE(v("bf16:c=fp32").c16);
  EXPECT_FALSE(v("tf32:c=fp32").c16);
  for (const std::string bad : {"bf16:c=fp16", "tf32:c=tf32", "fp32:c=fp32x", "bf16:x=bf16",
                                "bf16:", "bf16:c=", "fp8:c=fp8", ":c=bf16"}) {
    const std::string what = error_of([&] { v(bad); });
    ASSERT_FALSE(what.empty()) << bad << " was accepted";
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    // The variant's text, or for an unknown precision the precision's.
    EXPECT_NE(what.find("'" + bad.substr(0, bad.find(':'))), std::string::npos) << what;
  }
}

TEST(GemmOut16, WorkloadsRunPerPrecisionAndCType) {
  const Family& family = gemm_family();
  const Workload plain = load_workload(family, "tiny@bf16");
  const Workload c16 = load_workload(family, "tiny@bf16:c=bf16");
  EXPECT_EQ(c16.name, "tiny@bf16:c=bf16");
  ASSERT_EQ(plain.problems.size(), c16.problems.size());
  for (size_t i = 0; i < plain.problems.size(); ++i) {
    EXPECT_EQ(c16.problems[i].key(), plain.problems[i].key() + ";c16=1");
    EXPECT_EQ(c16.problems[i].tags, plain.problems[i].tags);
  }
  // c=fp32 is the default spelled out: the same problems as without it.
  const Workload explicit_fp32 = load_workload(family, "tiny@fp16:c=fp32");
  EXPECT_EQ(explicit_fp32.problems.size(), plain.problems.size());
  EXPECT_EQ(explicit_fp32.problems[0].key().find("c16"), std::string::npos);
  EXPECT_EQ(load_workload(family, "large@fp16:c=fp16").problems.size(),
            load_workload(family, "large").problems.size());
  const auto names = builtin_workload_names("gemm");
  EXPECT_NE(std::find(names.begin(), names.end(), "llm@bf16:c=bf16"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "llm@tf32:c=tf32"), names.end());

  // A workload file in a variant, and a bad one named in a one-line error.
  const std::string path = ::testing::TempDir() + "out16_variant.csv";
  std::ofstream(path) << "transa,transb,m,n,k,batch\n1,0,40,24,8,2\n";
  const Workload file = load_workload(family, path + "@fp16:c=fp16");
  ASSERT_EQ(file.problems.size(), 1u);
  EXPECT_EQ(file.problems[0].key(), "transa=1;transb=0;m=40;n=24;k=8;batch=2;precision=3;c16=1");
  const std::string what = error_of([&] { load_workload(family, path + "@fp16:c=bf16"); });
  EXPECT_NE(what.find("'fp16:c=bf16'"), std::string::npos) << what;
  EXPECT_THROW(load_workload(family, "tiny@tf32:c=tf32"), Error);
}

// A store made before 16-bit C (an FP32 and an FP32-C bf16 row) takes the c16 rows of the same
// shape beside them: distinct keys, the old rows read back unchanged.
TEST(GemmOut16, StoreKeepsOldRowsBesideSixteenBitCRows) {
  const std::string path = ::testing::TempDir() + "out16_store.sqlite";
  std::filesystem::remove(path);
  gemm::Shape s = gemm::packed_shape(false, false, 96, 80, 64);
  const std::string fp32_key = gemm::problem_of(s).key();
  s.precision = Precision::bf16;
  const std::string bf16_key = gemm::problem_of(s).key();
  s.c16 = true;
  const std::string c16_key = gemm::problem_of(s).key();
  auto row = [](const std::string& key, double median_ms) {
    return testing::ok_measurement("dev", "gemm", key, "tiled", 7, median_ms, 3);
  };
  {
    Store old(path);
    EXPECT_EQ(old.put_all({row(fp32_key, 1), row(bf16_key, 2)}), 2u);
  }
  {
    Store store(path);
    EXPECT_TRUE(store.put(row(c16_key, 3)));
    EXPECT_FALSE(store.put(row(bf16_key, 9)));  // the old row's key: kept as first stored
  }
  const Store back(path, Store::Mode::read_only);
  const auto rows = back.query("dev", "gemm");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].problem, fp32_key);
  EXPECT_EQ(rows[1].problem, bf16_key);
  EXPECT_EQ(rows[1].outcome.timing.median_ms, 2);
  EXPECT_EQ(rows[2].problem, c16_key);
  EXPECT_TRUE(gemm::shape_of(Problem::parse(rows[2].problem)).c16);
  EXPECT_FALSE(gemm::shape_of(Problem::parse(rows[1].problem)).c16);
}

// The CPU stores C in FP32 only: a sweep of a 16-bit-C workload records every kind and vendor as
// refused, naming 16-bit C, and finishes.
TEST(GemmOut16, CpuSweepRecordsSixteenBitCAsRefused) {
  const Family& family = gemm_family();
  Workload w = load_workload(family, "tiny@bf16:c=bf16");
  w.problems.resize(1);
  const std::string path = ::testing::TempDir() + "out16_sweep.sqlite";
  std::filesystem::remove(path);
  Store store(path);
  SweepOptions options;
  options.configs = parse_config_list(
      family.space(),
      "kind=packedz;mr=32;nr=12;kc=256;mc=192;nc=3072;pa=1;pb=1,r=2;a=2;c=2;wg=8x8");
  options.timing.warmups = 0;
  options.timing.min_reps = options.timing.max_reps = 1;
  const auto backend = open_backend(family, "cpu");
  const SweepSummary summary = run_sweep(family, *backend, w, store, options);
  EXPECT_EQ(summary.vendors_ok, 0u);
  const auto rows = store.query();
  ASSERT_EQ(rows.size(), 2 + backend->open(w.problems[0])->vendors().size());
  for (const Measurement& m : rows) {
    EXPECT_EQ(m.problem, w.problems[0].key());
    EXPECT_EQ(m.outcome.status, Status::refused) << m.config;
    // packedz serves bf16 with FP32 C; the seed kind not even bf16.
    if (m.config.find("packedz") != std::string::npos || m.vendor) {
      EXPECT_NE(m.outcome.message.find("16-bit C"), std::string::npos) << m.outcome.message;
    }
  }
}

// `ktune bench` with a bad C type: one line naming the variant, non-zero exit, no store made.
TEST(GemmOut16, BenchWithABadCTypeIsAOneLineError) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  const std::string store = ::testing::TempDir() + "out16_bad.sqlite";
  std::filesystem::remove(store);
  const auto r = testing::run_ktune(
      "bench --family gemm --device cpu --workload tiny@bf16:c=fp16 "
      "--store " +
      store);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("'bf16:c=fp16'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(store));
}

}  // namespace
}  // namespace ktune
