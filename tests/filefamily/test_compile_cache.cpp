// The system compiler behind the disk cache: a unit compiles once per key, a changed included
// file is a new key, a compile error is one line, and the loaded object runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ktune/error.hpp"
#include "src/filefamily/compile_cache.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"

namespace ktune::filefamily {
namespace {

namespace fs = std::filesystem;

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(CompileCache, CompilesOnceThenLoadsFromDisk) {
  const std::string cache = testing::private_cache("compile");
  EXPECT_EQ(shared_object_cache_dir(), cache + "/cpu-so");
  const std::string header = ::testing::TempDir() + "compile_cache_value.hpp";
  std::ofstream(header) << "constexpr int kValue = 41;\n";
  CompileRequest r;
  r.flags = {"-DEXTRA=1"};
  r.unit = "#include \"" + header + "\"\nextern \"C\" int value() { return kValue + EXTRA; }\n";
  r.dependencies = {header};

  const std::string so = compile_shared_object(r);
  EXPECT_EQ(files_in(cache + "/cpu-so"), 1u);  // the object only: no unit, log or temporary
  const auto written = fs::last_write_time(so);
  EXPECT_EQ(compile_shared_object(r), so);
  EXPECT_EQ(fs::last_write_time(so), written);  // not compiled again

  const SharedObject object(so);
  auto value = reinterpret_cast<int (*)()>(object.symbol("value"));
  EXPECT_EQ(value(), 42);
  EXPECT_THROW(object.symbol("absent"), Error);

  std::ofstream(header) << "constexpr int kValue = 1;\n";  // the dependency changed: a new key
  EXPECT_NE(compile_shared_object(r), so);
  r.flags = {"-DEXTRA=2"};  // so do the flags
  EXPECT_EQ(files_in(cache + "/cpu-so"), 2u);
  compile_shared_object(r);
  EXPECT_EQ(files_in(cache + "/cpu-so"), 3u);
}

TEST(CompileCache, CompileErrorIsOneLine) {
  testing::private_cache("compile-error");
  CompileRequest r;
  r.unit = "static_assert(1 == 2, \"one is not two\");\n";
  const std::string what = testing::error_message([&] { compile_shared_object(r); });
  EXPECT_EQ(what.rfind("compile failed: ", 0), 0u) << what;
  EXPECT_NE(what.find("one is not two"), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  r.compiler = "ktune-no-such-compiler";
  EXPECT_THROW(compile_shared_object(r), Error);
}

}  // namespace
}  // namespace ktune::filefamily
