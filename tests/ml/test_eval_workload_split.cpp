// `ktune eval --split workload`: leave one builtin workload out (and the other splits of the
// recipe study), through the binary (skipped when it is not built). GEMM measurements of the `tiny`
// and `large` workloads with three configs whose ranking follows the problem size, so each split
// trains on one workload and tests on the other.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/interchange.hpp"
#include "ktune/workload.hpp"
#include "ml_test_util.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using test::read_text;
using test::TempDir;

std::vector<Measurement> tiny_and_large() {
  const Family& gemm = find_family("gemm");
  const auto configs = gemm.space().enumerate();
  std::vector<Measurement> ms;
  for (const char* w : {"tiny", "large"}) {
    for (const Problem& p : load_workload(gemm, w).problems) {
      const double size = gemm.flops(p);
      for (int c = 0; c < 3; ++c) {
        // Config 0 wins on small problems, config 2 on big ones.
        const double perf = 10.0 + (c == 0 ? 1e10 / size : c == 2 ? size * 1e-10 : 1.0);
        ms.push_back(test::gemm_measurement(gemm.space(), p, configs[size_t(c)], perf));
      }
    }
  }
  return ms;
}

// Each `<head><bad><tail>` exits with status 1 and one line on stderr (the file err).
void expect_one_line_errors(const std::function<int(const std::string&)>& ktune,
                            const std::string& err, const std::string& head,
                            const std::string& tail, const std::vector<std::string>& bads) {
  for (const std::string& bad : bads) {
    EXPECT_EQ(ktune(head + bad + tail), 1) << bad;
    const std::string message = read_text(err);
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << bad << ": " << message;
  }
}

TEST(EvalWorkloadSplit, LeavesEachNamedWorkloadOut) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  TempDir dir("ktune-eval-workload");
  const std::string data = dir.file("m.csv.gz"), err = dir.file("err.txt");
  write_measurements_csv(tiny_and_large(), data);
  auto ktune = [&](const std::string& args) { return testing::run_ktune_stderr_to(args, err); };
  const std::string matrix =
      " --norms scale --pruners topn --selectors tree-b --ks 2 --ceiling-ks 2,3 --threads 1";
  ASSERT_EQ(ktune("eval --data " + data + " --split workload --workloads tiny,large" + matrix +
                  " --csv " + dir.file("e.csv") + " --markdown " + dir.file("e.md")),
            0)
      << read_text(err);
  const std::string md = read_text(dir.file("e.md"));
  // Sizes: train on the other workload (27 large / 4 tiny shapes), test on the named one.
  EXPECT_NE(md.find("## Split workload:tiny (train 27, test 4)"), std::string::npos) << md;
  EXPECT_NE(md.find("## Split workload:large (train 4, test 27)"), std::string::npos) << md;
  const std::string csv = read_text(dir.file("e.csv"));
  EXPECT_NE(csv.find("workload:tiny,scale,topn,tree-b,2,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("workload:large,scale,topn,,3,,"), std::string::npos) << csv;
  // The matrix is restricted: no other norm, pruner or selector.
  EXPECT_EQ(csv.find("cutoff"), std::string::npos);
  EXPECT_EQ(csv.find("kmeans"), std::string::npos);
  EXPECT_EQ(csv.find("forest"), std::string::npos);

  // Bad input: one line on stderr naming it, exit status 1.
  expect_one_line_errors(ktune, err, "eval --data " + data, matrix,
                         {" --split workload --workloads tiny", " --workloads tiny,large",
                          " --split workload --workloads tiny,dnn", " --pruners nope"});
}

// The splits and options of the #13 recipe study: size tails, k-fold, dropped features, the
// unsure rule, the cover pruner.
TEST(EvalWorkloadSplit, SizeTailsFoldsAndDroppedFeatures) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  TempDir dir("ktune-eval-tails");
  const std::string data = dir.file("m.csv.gz"), err = dir.file("err.txt");
  write_measurements_csv(tiny_and_large(), data);  // 31 shapes
  auto ktune = [&](const std::string& args) { return testing::run_ktune_stderr_to(args, err); };
  const std::string matrix =
      " --norms scale --pruners cover --selectors tree-b --ks 2 --ceiling-ks 2 --threads 1"
      " --min-vote-share 0.5 --range-guard";
  auto md_of = [&](const std::string& split) {
    EXPECT_EQ(ktune("eval --data " + data + " --split " + split + matrix + " --markdown " +
                    dir.file("e.md")),
              0)
        << split << ": " << read_text(err);
    return read_text(dir.file("e.md"));
  };
  // round(31 · 0.2) = 6 held out.
  EXPECT_NE(md_of("largest20").find("## Split largest20 (train 25, test 6)"), std::string::npos);
  EXPECT_NE(md_of("smallest20").find("## Split smallest20 (train 25, test 6)"), std::string::npos);
  const std::string cv = md_of("cv3");
  for (const char* fold : {"## Split cv3:0", "## Split cv3:1", "## Split cv3:2"})
    EXPECT_NE(cv.find(fold), std::string::npos) << fold;
  EXPECT_EQ(ktune("eval --data " + data + " --split cv3 --drop-features bmnk,intensity" + matrix),
            0)
      << read_text(err);
  expect_one_line_errors(ktune, err, "eval --data " + data, matrix,
                         {" --split largest0", " --split cvx", " --split smallest100",
                          " --split cv3 --drop-features nope"});
}

}  // namespace
}  // namespace ktune
