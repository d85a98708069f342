// ktune_infer --onnx: a model file runs on every CPU backend and says which layers fall back; a
// bad model is one line `error: ...` and exit status 1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/nn/infer_cli.hpp"
#include "tests/nn/nn_test_util.hpp"
#include "tests/nn_onnx/onnx_builder.hpp"

#ifdef KTUNE_INFER

namespace ktune::nn {
namespace {

using testing::OnnxBuilder;
using testing::random_floats;

testing::InferResult run_infer(const std::string& args) {
  return testing::run_infer_at(KTUNE_INFER, args);
}

std::string write_model(const OnnxBuilder& m, const std::string& name) {
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + name;
  std::ofstream(path, std::ios::binary) << m.bytes();
  return path;
}

TEST(OnnxCli, AGroupedModelRunsOnEveryCpuBackendAndSaysSo) {
  OnnxBuilder m(8);
  m.init("w", {6, 1, 3, 3}, random_floats(6 * 9, 1));
  OnnxBuilder::integer(m.node("Conv", {"x", "w"}, "y", "dw"), "group", 3);
  m.node("GlobalAveragePool", {"y"}, "p");
  m.node("Flatten", {"p"}, "out");
  m.output("out");
  const auto path = write_model(m, "_grouped.onnx");
  const auto r = run_infer("--onnx " + path + " --batch 2 --backend reference,ktune --reps 1");
  std::filesystem::remove(path);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("note: layer 0 (dw): a conv of 3 groups runs as a dense conv"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("reference: image 1 top-5: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ktune: image 1 top-5: "), std::string::npos) << r.out;
}

TEST(OnnxCli, AnUnsupportedOpIsOneErrorLine) {
  OnnxBuilder m(8);
  m.node("Sigmoid", {"x"}, "out", "gate");
  m.output("out");
  const auto path = write_model(m, "_sigmoid.onnx");
  const auto r = run_infer("--onnx " + path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(r.out.rfind("error: " + path + ": node 'gate' (Sigmoid): op 'Sigmoid' is not", 0), 0u)
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

TEST(OnnxCli, NetworkAndOnnxExcludeEachOther) {
  const auto r = run_infer("--network tiny --onnx m.onnx");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("excludes"), std::string::npos) << r.out;
  const auto none = run_infer("--batch 2");
  EXPECT_EQ(none.status, 1) << none.out;
  EXPECT_NE(none.out.find("error: ktune_infer: give one of --network and --onnx"),
            std::string::npos)
      << none.out;
}

}  // namespace
}  // namespace ktune::nn

#endif  // KTUNE_INFER
