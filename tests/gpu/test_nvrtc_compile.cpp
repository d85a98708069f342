// NVRTC compilation and its disk cache. These need the NVRTC library but no GPU or driver, so
// they run (for sm_90, the H100/H200 arch) on any machine with the toolkit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"
#include "ktune/cuda/nvrtc_compile.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

using ktune::cuda::compile_cubin;
using ktune::cuda::CompileError;
using ktune::cuda::NvrtcRequest;
namespace gcuda = ktune::kernels::gemm::cuda;

NvrtcRequest seed_request(int r, int a, int c, const std::string& arch = "sm_90") {
  ktune::kernels::gemm::Tile tile;
  tile.r = r, tile.a = a, tile.c = c;
  return {ktune::embedded_file("gemm_seed.cuh"), "gemm_seed.cu", gcuda::seed_name_expression(tile),
          arch, gcuda::seed_compile_options()};
}

bool is_elf(const std::string& bytes) {
  return bytes.size() > 4 && bytes.compare(0, 4,
                                           "\x7f"
                                           "ELF") == 0;
}

TEST(NvrtcCompile, EveryTileOfTheSpaceCompilesToCubinForSm90) {
  ktune::test::ScopedCacheDir cache("all-tiles");
  const int values[] = {1, 2, 4, 8};
  std::vector<NvrtcRequest> requests;
  for (int r : values)
    for (int a : values)
      for (int c : values) requests.push_back(seed_request(r, a, c));
  // Itanium mangling of a template instantiation: _Z15ktune_gemm_seedILi...
  const auto images =
      ktune::test::expect_all_compile(requests, [](size_t) { return "ktune_gemm_seed"; });
  for (size_t i = 0; i < requests.size(); ++i)
    EXPECT_NE(images[i].lowered_name, requests[i].name_expression);
}

TEST(NvrtcCompile, SecondCompileIsACacheHitWithTheSameCubin) {
  ktune::test::ScopedCacheDir cache("hit");
  const NvrtcRequest request = seed_request(2, 4, 8);
  const auto first = compile_cubin(request);
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(ktune::cuda::nvrtc_cache_dir(), (cache.path() / "nvrtc").string());
  const auto second = compile_cubin(request);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(first.cubin, second.cubin);
  EXPECT_EQ(first.lowered_name, second.lowered_name);
  // Exactly one file, no temp files left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cache.path() / "nvrtc")) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".cubin");
  }
  EXPECT_EQ(files, 1);
}

TEST(NvrtcCompile, KeyCoversArchOptionsAndSource) {
  ktune::test::ScopedCacheDir cache("key");
  NvrtcRequest request = seed_request(1, 1, 1);
  compile_cubin(request);
  NvrtcRequest other_arch = request;
  other_arch.arch = "sm_80";
  EXPECT_FALSE(compile_cubin(other_arch).from_cache);
  NvrtcRequest other_options = request;
  other_options.options.push_back("-DKTUNE_UNUSED_MACRO=1");
  EXPECT_FALSE(compile_cubin(other_options).from_cache);
  NvrtcRequest other_source = request;
  other_source.source += "\n// changed\n";
  EXPECT_FALSE(compile_cubin(other_source).from_cache);
  EXPECT_TRUE(compile_cubin(request).from_cache);
}

TEST(NvrtcCompile, CorruptCacheFileIsRecompiled) {
  ktune::test::ScopedCacheDir cache("corrupt");
  const NvrtcRequest request = seed_request(4, 1, 2);
  const auto first = compile_cubin(request);
  for (const auto& entry : std::filesystem::directory_iterator(cache.path() / "nvrtc")) {
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << "KTUNE-NVRTC-CUBIN-1\n12";
  }
  const auto again = compile_cubin(request);
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.cubin, first.cubin);
}

TEST(NvrtcCompile, BrokenSourceThrowsCompileErrorWithTheLogsFirstErrorLine) {
  ktune::test::ScopedCacheDir cache("broken");
  NvrtcRequest request = seed_request(1, 1, 1);
  request.source =
      "template <int R, int A, int C> __global__ void ktune_gemm_seed(float* c) {\n"
      "  c[0] = undefined_name;\n}\n";
  try {
    compile_cubin(request);
    FAIL() << "a broken program compiled";
  } catch (const CompileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("undefined_name"), std::string::npos) << message;
    EXPECT_NE(message.find("ktune_gemm_seed<1,1,1>"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    EXPECT_NE(e.log().find("error"), std::string::npos);
  }
}

}  // namespace

namespace {

// A kernel file included by a relative path (the one nvcc resolves from the including file, as
// kernels/gemm/cuda/gemm_warp.cuh includes kernels/common/cuda/gemm_epilogue.cuh) is found among
// the embedded files by its file name.
TEST(NvrtcCompile, RelativeIncludeResolvesToTheEmbeddedFileOfThatName) {
  ktune::test::ScopedCacheDir cache("relative_include");
  ktune::register_embedded_file("ktune_test_relative.cuh",
                                "__device__ float ktune_test_twice(float x) { return 2 * x; }\n");
  const NvrtcRequest request{
      "#include \"../../elsewhere/ktune_test_relative.cuh\"\n"
      "__global__ void ktune_test_kernel(float* c) {\n"
      "  c[0] = ktune_test_twice(c[0]);\n}\n",
      "relative.cu",
      "ktune_test_kernel",
      "sm_90",
      {"--std=c++17"}};
  EXPECT_TRUE(is_elf(compile_cubin(request).cubin));
}

}  // namespace
