// The tuning-problem file parser: a good file's fields, and one line naming the file and the
// field for each kind of malformed field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ktune/error.hpp"
#include "src/filefamily/spec.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"

namespace ktune::filefamily {
namespace {

using nlohmann::json;

std::string example_text() {
  std::ifstream in(std::string(KTUNE_SOURCE_DIR) + "/examples/own-kernels/dot/dot.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FileSpec, ReadsTheExample) {
  const FileSpec s = parse_spec(example_text(), "dir/dot.json");
  EXPECT_EQ(s.name, "dot");
  EXPECT_EQ(s.dir, "dir");
  ASSERT_EQ(s.params.size(), 3u);
  EXPECT_EQ(s.params[0].values, (std::vector<std::string>{"1", "4", "8", "16"}));
  EXPECT_EQ(s.params[0].numbers, (std::vector<double>{1, 4, 8, 16}));
  EXPECT_EQ(s.params[2].type, ParamType::string_);
  EXPECT_EQ(s.params[2].values, (std::vector<std::string>{"float", "double"}));
  EXPECT_TRUE(s.params[2].numbers.empty());
  ASSERT_EQ(s.conditions.size(), 1u);
  EXPECT_EQ(s.conditions[0].expression, "VEC * ACC <= 32");
  EXPECT_EQ(s.language, "C++");
  EXPECT_EQ(s.kernel_file, "dot.cpp");
  EXPECT_EQ(s.compiler_options, (std::vector<std::string>{"-march=native"}));
  EXPECT_EQ(s.global_size[0], "n");
  EXPECT_EQ(s.local_size[1], "1");
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_EQ(s.arguments[0].size, "n");
  EXPECT_EQ(s.arguments[0].fill, Fill::random);
  EXPECT_EQ(s.arguments[1].seed, 2u);
  EXPECT_EQ(s.arguments[2].access, Access::write_only);
  EXPECT_EQ(s.arguments[2].size, "1");
  EXPECT_TRUE(s.arguments[3].scalar);
  EXPECT_EQ(s.arguments[3].type, ElementType::int32);
  EXPECT_EQ(s.arguments[3].value, "n");
  ASSERT_EQ(s.budget.size(), 1u);
  EXPECT_EQ(s.budget[0].type, BudgetType::fraction);
  EXPECT_EQ(s.features, (std::vector<std::string>{"n"}));
  ASSERT_EQ(s.workload.size(), 3u);
  EXPECT_EQ(s.workload[2], (std::vector<double>{1000003}));
  EXPECT_EQ(s.passing, Passing::defines);
  ASSERT_TRUE(s.reference);
  EXPECT_EQ(s.reference->function, "dot_reference");
  EXPECT_DOUBLE_EQ(s.tolerance, 1e-3);
  EXPECT_EQ(s.work, "2 * n");
}

TEST(FileSpec, PlainSchemaFileIsOneProblem) {
  const FileSpec s = load_spec(testing::filefamily_data("fill.json"));
  EXPECT_EQ(s.features, (std::vector<std::string>{"problem"}));
  EXPECT_EQ(s.workload, (std::vector<std::vector<double>>{{1}}));
  EXPECT_EQ(s.passing, Passing::template_args);
  EXPECT_EQ(s.params[1].values, (std::vector<std::string>{"false", "true"}));
  ASSERT_EQ(s.reference_arguments.size(), 1u);
  EXPECT_EQ(s.reference_arguments[0].target, "out");
  EXPECT_EQ(s.arguments[1].value, "100");  // a scalar's FillValue
}

struct Malformed {
  const char* pointer;  // JSON pointer of the field changed
  json value;           // its new value; null: removed
  const char* message;  // what the one-line error says (after the file name)
};

class FileSpecMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(FileSpecMalformed, NamesFileAndField) {
  const Malformed& m = GetParam();
  json j = json::parse(example_text());
  const json::json_pointer ptr(m.pointer);
  if (m.value.is_null())
    j[ptr.parent_pointer()].erase(ptr.back());
  else
    j[ptr] = m.value;
  try {
    parse_spec(j.dump(), "bad.json");
    FAIL() << "accepted " << m.pointer;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(std::string("bad.json: ") + m.message, 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fields, FileSpecMalformed,
    ::testing::Values(
        Malformed{"/ConfigurationSpace", nullptr, "(top level): 'ConfigurationSpace' is missing"},
        Malformed{"/ConfigurationSpace/TuningParameters", json::array(),
                  "ConfigurationSpace.TuningParameters: has no parameters"},
        Malformed{"/ConfigurationSpace/TuningParameters/0/Name", "2x",
                  "ConfigurationSpace.TuningParameters[0].Name: '2x' is not an identifier"},
        Malformed{"/ConfigurationSpace/TuningParameters/1/Name", "VEC",
                  "ConfigurationSpace.TuningParameters[1].Name: 'VEC' appears twice"},
        Malformed{"/ConfigurationSpace/TuningParameters/0/Type", "complex",
                  "ConfigurationSpace.TuningParameters[0].Type: 'complex' is not one of"},
        Malformed{"/ConfigurationSpace/TuningParameters/0/Values", "[1, 2.5]",
                  "ConfigurationSpace.TuningParameters[0].Values: value 1: 2.5 is not an integer"},
        Malformed{"/ConfigurationSpace/TuningParameters/0/Values", "1, 2",
                  "ConfigurationSpace.TuningParameters[0].Values: '1, 2' is not a list"},
        Malformed{"/ConfigurationSpace/TuningParameters/0/Values", "[4, 4]",
                  "ConfigurationSpace.TuningParameters[0].Values: value 1: value 4 appears twice"},
        Malformed{"/ConfigurationSpace/TuningParameters/2/Values", "[\"a;b\"]",
                  "ConfigurationSpace.TuningParameters[2].Values: value 0: 'a;b'"},
        Malformed{"/ConfigurationSpace/Conditions/0/Expression", "VEC *",
                  "ConfigurationSpace.Conditions[0].Expression: 'VEC *'"},
        Malformed{"/ConfigurationSpace/Conditions/0/Expression", "VEC > LANES",
                  "ConfigurationSpace.Conditions[0].Expression: 'VEC > LANES'"},
        Malformed{"/ConfigurationSpace/Conditions/0/Parameters/0", "NOPE",
                  "ConfigurationSpace.Conditions[0].Parameters[0]: 'NOPE' is not a tuning"},
        Malformed{"/ConfigurationSpace/Conditions/0/Parameters/0", "ACC_T",
                  "ConfigurationSpace.Conditions[0].Parameters[0]: 'ACC_T' holds strings"},
        Malformed{"/KernelSpecification", nullptr, "(top level): 'KernelSpecification' is missing"},
        Malformed{"/KernelSpecification/Language", "OpenCL",
                  "KernelSpecification.Language: 'OpenCL' is not supported"},
        Malformed{"/KernelSpecification/KernelName", nullptr,
                  "KernelSpecification: 'KernelName' is missing"},
        Malformed{"/KernelSpecification/KernelFile", 3,
                  "KernelSpecification.KernelFile: is not a string"},
        Malformed{"/KernelSpecification/CompilerOptions/0", false,
                  "KernelSpecification.CompilerOptions[0]: is not a string"},
        Malformed{"/KernelSpecification/GlobalSize/X", "n +",
                  "KernelSpecification.GlobalSize.X: 'n +'"},
        Malformed{"/KernelSpecification/LocalSize/Y", "ACC_T",
                  "KernelSpecification.LocalSize.Y: 'ACC_T'"},
        Malformed{"/KernelSpecification/GlobalSizeType", "Vulkan",
                  "KernelSpecification.GlobalSizeType: 'Vulkan' is not supported"},
        Malformed{"/KernelSpecification/Arguments/0/Type", "half",
                  "KernelSpecification.Arguments[0].Type: 'half' is not supported"},
        Malformed{"/KernelSpecification/Arguments/0/MemoryType", "Local",
                  "KernelSpecification.Arguments[0].MemoryType: only Scalar and Vector"},
        Malformed{"/KernelSpecification/Arguments/0/AccessType", "Sometimes",
                  "KernelSpecification.Arguments[0].AccessType: 'Sometimes' is not one of"},
        Malformed{"/KernelSpecification/Arguments/0/FillType", "Script",
                  "KernelSpecification.Arguments[0].FillType: 'Script' is not supported"},
        Malformed{"/KernelSpecification/Arguments/0/FillType", "BinaryRaw",
                  "KernelSpecification.Arguments[0]: 'DataSource' is missing"},
        Malformed{"/KernelSpecification/Arguments/0/FillType", "Generator",
                  "KernelSpecification.Arguments[0]: 'DataSource' is missing"},
        Malformed{"/KernelSpecification/Arguments/0/RandomSeed", "one",
                  "KernelSpecification.Arguments[0].RandomSeed: is not an integer"},
        Malformed{"/KernelSpecification/Arguments/2/Size", -1,
                  "KernelSpecification.Arguments[2].Size: -1 is not a positive count"},
        Malformed{"/KernelSpecification/Arguments/0/x-ktune/Size", "m",
                  "KernelSpecification.Arguments[0].x-ktune.Size: 'm'"},
        Malformed{"/KernelSpecification/Arguments/2/AccessType", "ReadOnly",
                  "KernelSpecification.Arguments: no WriteOnly or ReadWrite vector"},
        Malformed{"/KernelSpecification/ReferenceArguments",
                  json::parse(R"([{"Name": "r", "TargetName": "x", "FillType": "Constant"}])"),
                  "KernelSpecification.ReferenceArguments[0].TargetName: 'x' is not an output"},
        Malformed{"/Budget/0/Type", "Forever", "Budget[0].Type: 'Forever' is not one of"},
        Malformed{"/Budget/0/BudgetValue", 2, "Budget[0].BudgetValue: a fraction is at most 1"},
        Malformed{"/x-ktune", 7, "x-ktune: is not an object"},
        Malformed{"/x-ktune/Features/0", "VEC", "x-ktune.Features[0]: 'VEC' is also a tuning"},
        Malformed{"/x-ktune/Workload", json::array(), "x-ktune.Workload: has no problem"},
        Malformed{"/x-ktune/Workload/1/n", "big", "x-ktune.Workload[1].n: is not a number"},
        Malformed{"/x-ktune/Workload/1/n", nullptr, "x-ktune.Workload[1]: 'n' is missing"},
        Malformed{"/x-ktune/Parameters", "macros", "x-ktune.Parameters: 'macros' is not one of"},
        Malformed{"/x-ktune/Reference", nullptr,
                  "KernelSpecification: neither ReferenceArguments nor x-ktune.Reference"},
        Malformed{"/x-ktune/Reference/Function", "dot-ref",
                  "x-ktune.Reference.Function: 'dot-ref' is not an identifier"},
        Malformed{"/x-ktune/Reference/Tolerance", -1,
                  "x-ktune.Reference.Tolerance: is not a non-negative number"},
        Malformed{"/x-ktune/Work", "2 * m", "x-ktune.Work: '2 * m'"},
        Malformed{"/x-ktune/Precision", "half", "x-ktune.Precision: 'half' is not one of"},
        Malformed{"/x-ktune/IncludeDirs", "include", "x-ktune.IncludeDirs: is not an array"},
        Malformed{"/x-ktune/IncludeDirs", json::array({""}), "x-ktune.IncludeDirs[0]: is empty"}));

TEST(FileSpec, NotJsonIsOneLine) {
  const std::string what =
      testing::error_message([] { parse_spec("{\"ConfigurationSpace\": [1,", "bad.json"); });
  EXPECT_EQ(what.rfind("bad.json: not JSON:", 0), 0u) << what;
  EXPECT_THROW(parse_spec("[1, 2]", "bad.json"), Error);
  EXPECT_THROW(parse_spec(std::string(1000, '['), "bad.json"), Error);  // depth limit
}

TEST(FileSpec, LoadNamesMissingFiles) {
  const std::string dir = ::testing::TempDir() + "filefamily-missing/";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "dot.json") << example_text();  // without dot.cpp beside it
  EXPECT_EQ(testing::error_message([&] { load_spec(dir + "dot.json"); }),
            dir + "dot.json: KernelSpecification.KernelFile: 'dot.cpp' is not a file");
  EXPECT_THROW(load_spec(dir + "absent.json"), Error);
}

// IncludeDirs resolve against the problem file's folder into absolute -I flags (the compilers
// run from anywhere); a folder that is not there is named.
TEST(FileSpec, IncludeDirsBecomeAbsoluteIncludeFlags) {
  const std::string dir = ::testing::TempDir() + "filefamily-include/";
  std::filesystem::create_directories(dir + "ex/headers");
  const std::string ex = std::string(KTUNE_SOURCE_DIR) + "/examples/own-kernels/dot/";
  for (const char* f : {"dot.cpp", "dot_reference.cpp"})
    std::filesystem::copy_file(ex + f, dir + "ex/" + f,
                               std::filesystem::copy_options::overwrite_existing);
  json j = json::parse(example_text());
  j["x-ktune"]["IncludeDirs"] = {"headers", "../ex"};
  std::ofstream(dir + "ex/dot.json") << j.dump();
  const FileSpec s = load_spec(dir + "ex/dot.json");
  const auto canonical = [](const std::string& p) {
    return "-I" + std::filesystem::canonical(p).string();
  };
  ASSERT_GE(s.compiler_options.size(), 2u);
  EXPECT_EQ(s.compiler_options[s.compiler_options.size() - 2], canonical(dir + "ex/headers"));
  EXPECT_EQ(s.compiler_options.back(), canonical(dir + "ex"));
  j["x-ktune"]["IncludeDirs"] = {"nowhere"};
  std::ofstream(dir + "ex/dot.json") << j.dump();
  EXPECT_EQ(testing::error_message([&] { load_spec(dir + "ex/dot.json"); }),
            dir + "ex/dot.json: x-ktune.IncludeDirs[0]: 'nowhere' is not a folder");
}

}  // namespace
}  // namespace ktune::filefamily
