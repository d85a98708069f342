// The CUDA path of file families: every config's NVRTC program (compiled for sm_90 on any
// machine with the toolkit), and on a GPU the verdicts ok, refused (a block over the device's
// limit) and failed (a config that does not compile). Built with the CUDA toolkit only.
#ifdef KTUNE_HAVE_CUDA
#include <gtest/gtest.h>

#include <cstdlib>

#include "ktune/cuda/nvrtc_compile.hpp"
#include "ktune/family.hpp"
#include "ktune/file_family.hpp"
#include "src/filefamily/cuda/file_cuda_backend.hpp"
#include "src/filefamily/file_family.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace ktune {
namespace {

const Family& saxpy() {
  testing::private_cache("cuda");
  return find_family(register_file_family(testing::filefamily_data("saxpy.json")));
}

TEST(FileFamilyCuda, NvrtcCompilesTheConfigsAndRejectsABadOne) {
  const auto& family = dynamic_cast<const filefamily::FileFamily&>(saxpy());
  const Config good = family.space().parse("BLOCK=256;ITEMS=4");
  const cuda::NvrtcRequest request = filefamily::nvrtc_request(family, good, "sm_90");
  EXPECT_EQ(request.name_expression, "saxpy");
  EXPECT_FALSE(cuda::compile_cubin(request).cubin.empty());
  const Config bad = family.space().parse("BLOCK=64;ITEMS=3");
  try {
    cuda::compile_cubin(filefamily::nvrtc_request(family, bad, "sm_90"));
    FAIL() << "ITEMS=3 compiled";
  } catch (const cuda::CompileError& e) {
    EXPECT_NE(e.log().find("ITEMS is 1, 2 or 4"), std::string::npos) << e.log();
  }
}

TEST(FileFamilyCuda, MeasuresOkRefusedAndFailedConfigs) {
  KTUNE_REQUIRE_GPU();
  const Family& family = saxpy();
  auto backend = open_backend(family, "cuda:0");
  const Workload w = family.builtin_workload("file");
  auto session = backend->open(w.problems[1]);
  TimingPolicy quick;
  quick.min_reps = 1;
  quick.budget_ms = 0.1;
  for (const char* config : {"BLOCK=64;ITEMS=1", "BLOCK=256;ITEMS=4"}) {
    const Outcome ok = session->run(family.space().parse(config), quick);
    EXPECT_EQ(ok.status, Status::ok) << config << ": " << ok.message;
    EXPECT_LE(ok.rel_error, 1e-6);
  }
  const Outcome refused = session->run(family.space().parse("BLOCK=2048;ITEMS=1"), quick);
  EXPECT_EQ(refused.status, Status::refused) << refused.message;
  const Outcome failed = session->run(family.space().parse("BLOCK=64;ITEMS=3"), quick);
  EXPECT_EQ(failed.status, Status::failed) << failed.message;
}

}  // namespace
}  // namespace ktune
#endif  // KTUNE_HAVE_CUDA
