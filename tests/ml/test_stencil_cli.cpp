// `ktune eval --protocol stencil` end to end through the binary (skipped when it is not built).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>

#include "ktune/interchange.hpp"
#include "ml_test_util.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

TEST(CliStencilEval, TwoDatasetsCsvColumnsAndMissingFeatureError) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  test::TempDir dir;
  const std::string a = dir.file("a.csv"), b = dir.file("b.csv.gz"), err = dir.file("err.txt");
  test::SyntheticOptions o;
  o.problems = 40;
  write_measurements_csv(test::make_synthetic_measurements(o), a);
  o.seed = 2;
  auto other = test::make_synthetic_measurements(o);
  for (auto& m : other) m.device = "second-dev";
  write_measurements_csv(other, b);

  const std::string csv = dir.file("out/stencil-eval.csv"), md = dir.file("out/stencil.md");
  std::filesystem::create_directories(dir.file("out"));
  ASSERT_EQ(testing::run_ktune_stderr_to(
                "eval --protocol stencil --data " + a + " --data " + b +
                    " --splits cv10 device --folds 4 --classifiers tree-a logreg "
                    "--regressors none --csv " +
                    csv + " --markdown " + md,
                err),
            0)
      << test::read_text(err);
  const std::string text = test::read_text(csv);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "method,model,fallback,split,pct_of_oracle,median_speedup_vs_baseline,"
            "mean_speedup_vs_baseline,median_speedup_vs_expert,accuracy,validity,refused_rate,"
            "predict_ns");
  // 2 splits × (2 fixed + 2 classifiers × 3 fallbacks) rows.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 2 * 8);
  EXPECT_NE(text.find("\nclassifier,logreg,nearest,device,"), std::string::npos);
  const std::string report = test::read_text(md);
  EXPECT_NE(report.find("synthetic-dev, second-dev"), std::string::npos);
  EXPECT_NE(report.find("| 94 % |"), std::string::npos) << report;  // the seed paper's figures
  EXPECT_NE(report.find("3.79×"), std::string::npos) << report;

  // The default splits need the stencil features; GEMM-like problems lack `program`.
  EXPECT_EQ(testing::run_ktune_stderr_to("eval --protocol stencil --data " + a, err), 1);
  const std::string message = test::read_text(err);
  EXPECT_NE(message.find("needs the problem feature 'program'"), std::string::npos) << message;
  // The selection protocol still takes exactly one dataset.
  EXPECT_EQ(testing::run_ktune_stderr_to("eval --data " + a + " --data " + b, err), 1);
}

}  // namespace
}  // namespace ktune
