// ktune_infer's answers: weights that overflow float give a one-line error, never a "top-5" of
// NaN classes with exit 0.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "ktune/nn/network.hpp"
#include "ktune/nn/weights.hpp"

#ifdef KTUNE_INFER

namespace ktune::nn {
namespace {

struct Result {
  int status = -1;
  std::string out;
};

Result run_infer(const std::string& args) {
  Result r;
  FILE* pipe = popen((std::string(KTUNE_INFER) + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) r.out.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
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

TEST(InferCli, HelpPrintsTheOptions) {
  const auto r = run_infer("--help");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--network"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--batch"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ktune::nn

#endif
