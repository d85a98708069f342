// The CPU path of file families: per-config compiles (defines and template arguments), the
// verdicts (ok, wrong against ReferenceArguments or the reference function, refused by a launch
// size, failed to compile), and registration.
#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/file_family.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"

namespace ktune {
namespace {

TimingPolicy quick() {
  TimingPolicy p;
  p.min_reps = 1;
  p.max_reps = 2;
  p.budget_ms = 0.1;
  return p;
}

Outcome run(const Family& family, ProblemSession& session, const std::string& config) {
  return session.run(family.space().parse(config), quick());
}

TEST(FileFamilyHost, TemplateArgumentsAndReferenceArguments) {
  testing::private_cache("host-fill");
  const std::string path = testing::filefamily_data("fill.json");
  const std::string name = register_file_family(path);
  EXPECT_EQ(name, "fill_test");
  EXPECT_EQ(register_file_family(path), name);  // the same file again: the same family
  const Family& family = find_family(name);
  EXPECT_EQ(family.space().enumerate().size(), 6u);
  const Workload w = family.builtin_workload("file");
  ASSERT_EQ(w.problems.size(), 1u);
  auto backend = open_backend(family, "cpu");
  auto session = backend->open(w.problems[0]);

  for (const char* config : {"VALUE=3;REVERSE=false", "VALUE=3;REVERSE=true"}) {
    const Outcome ok = run(family, *session, config);
    EXPECT_EQ(ok.status, Status::ok) << config << ": " << ok.message;
    EXPECT_EQ(ok.rel_error, 0.0);
    EXPECT_GT(ok.timing.median_ms, 0.0);
  }
  const Outcome wrong = run(family, *session, "VALUE=4;REVERSE=true");
  EXPECT_EQ(wrong.status, Status::wrong);
  EXPECT_NE(wrong.message.find("out:"), std::string::npos) << wrong.message;
  const Outcome refused = run(family, *session, "VALUE=5;REVERSE=false");
  EXPECT_EQ(refused.status, Status::refused);
  EXPECT_EQ(refused.message, "LocalSize.X = 0 is not a whole positive count");
}

// KTT's "Generator" fills: inputs and the expected output as expressions over the element index.
TEST(FileFamilyHost, GeneratorFillsInputsAndReference) {
  testing::private_cache("host-generated");
  const Family& family =
      find_family(register_file_family(testing::filefamily_data("generated.json")));
  auto session = open_backend(family, "cpu")->open(family.builtin_workload("file").problems[0]);
  const Outcome ok = run(family, *session, "SCALE=2");
  EXPECT_EQ(ok.status, Status::ok) << ok.message;
  EXPECT_EQ(ok.rel_error, 0.0);
  const Outcome wrong = run(family, *session, "SCALE=3");
  EXPECT_EQ(wrong.status, Status::wrong);
  EXPECT_NE(wrong.message.find("out:"), std::string::npos) << wrong.message;
}

TEST(FileFamilyHost, DefinesReferenceFunctionAndCompileFailures) {
  testing::private_cache("host-stencil");
  const std::string name = register_file_family(testing::filefamily_data("stencil1d.json"));
  const Family& family = find_family(name);
  // TILE * UNROLL <= 128 hides TILE=64;UNROLL=4.
  EXPECT_EQ(family.space().enumerate().size(), 5u);
  const Workload w = family.builtin_workload("file");
  ASSERT_EQ(w.problems.size(), 12u);
  EXPECT_EQ(family.flops(w.problems[1]), 4.0 * 17);
  auto backend = open_backend(family, "cpu");
  auto session = backend->open(w.problems[3]);  // n = 257: tails after the unrolled steps

  for (const char* config : {"TILE=8;UNROLL=1", "TILE=8;UNROLL=4", "TILE=64;UNROLL=1"}) {
    const Outcome ok = run(family, *session, config);
    EXPECT_EQ(ok.status, Status::ok) << config << ": " << ok.message;
    EXPECT_LE(ok.rel_error, 1e-6);
  }
  const Outcome failed = run(family, *session, "TILE=24;UNROLL=4");
  EXPECT_EQ(failed.status, Status::failed);
  EXPECT_EQ(failed.message.rfind("compile failed: ", 0), 0u) << failed.message;
  EXPECT_NE(failed.message.find("power of two"), std::string::npos) << failed.message;
}

TEST(FileFamilyHost, NameTakenByAnotherFamilyIsRefused) {
  const std::string dir = ::testing::TempDir() + "filefamily-taken/";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(testing::filefamily_data("fill.cpp"), dir + "fill.cpp",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(testing::filefamily_data("fill.json"), dir + "fill.json",
                             std::filesystem::copy_options::overwrite_existing);
  register_file_family(testing::filefamily_data("fill.json"));
  EXPECT_EQ(testing::error_message([&] { register_file_family(dir + "fill.json"); }),
            dir + "fill.json: x-ktune.Name: a family 'fill_test' is already registered");
}

}  // namespace
}  // namespace ktune
