// ktune_infer's answers: weights that overflow float give a one-line error, never a "top-5" of
// NaN classes with exit 0; beside each backend's median, its process CPU time per inference and
// the ratio to the wall time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "ktune/nn/network.hpp"
#include "ktune/nn/weights.hpp"
#include "tests/nn/infer_cli.hpp"

#ifdef KTUNE_INFER

namespace ktune::nn {
namespace {

testing::InferResult run_infer(const std::string& args) {
  return testing::run_infer_at(KTUNE_INFER, args);
}

TEST(InferCli, OverflowingWeightsAreAnErrorNotNanClasses) {
  const Network net = make_network("tiny", 1);
  Weights huge = random_weights(net, 1);
  for (const auto& [name, t] : huge.tensors()) {
    Tensor scaled = t;
    for (auto& v : scaled.data) v = v < 0 ? -3e38f : 3e38f;
    huge.set(name, scaled);
  }
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_huge.safetensors";
  huge.save_safetensors(path);
  const auto r =
      run_infer("--network tiny --backend reference --reps 1 --warmup 0 --weights " + path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("error: backend reference: logit"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("top-5"), std::string::npos) << r.out;
}

TEST(InferCli, PrintsCpuTimeAndItsRatioToTheWallTime) {
  const auto r =
      run_infer("--network tiny --batch 2 --backend ktune,reference --reps 5 --warmup 1");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::regex line(
      R"((\S+): process CPU time median ([0-9.]+) ms per inference, ([0-9.]+)x its wall time )"
      R"(\(min ([0-9.]+)x, max ([0-9.]+)x\))");
  int lines = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line);
       it != std::sregex_iterator(); ++it, ++lines) {
    const auto& m = *it;
    const double cpu = std::stod(m[2]), median = std::stod(m[3]), lo = std::stod(m[4]),
                 hi = std::stod(m[5]);
    EXPECT_GT(cpu, 0.0) << m[0];
    EXPECT_GT(lo, 0.0) << m[0];
    EXPECT_LE(lo, median) << m[0];
    EXPECT_LE(median, hi) << m[0];
  }
  EXPECT_EQ(lines, 2) << r.out;
}

TEST(InferCli, HelpPrintsTheOptions) {
  const auto r = run_infer("--help");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--network"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--batch"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ktune::nn

#endif
