// Expressions through muparser with Python's spellings, and conditions as the space's constraint.
#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "src/filefamily/expression.hpp"
#include "src/filefamily/file_family.hpp"
#include "src/filefamily/spec.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"

namespace ktune::filefamily {
namespace {

double eval(const std::string& text, double a, double b) {
  return Expression(text, {"a", "b"}).eval({a, b});
}

TEST(FileExpression, PythonAndCSpellings) {
  EXPECT_EQ(eval("a % b == 1", 7, 3), 1);
  EXPECT_EQ(eval("a // b", 7, 2), 3);
  EXPECT_EQ(eval("a ** b", 2, 10), 1024);
  EXPECT_EQ(eval("a > 2 and b < 2", 3, 1), 1);
  EXPECT_EQ(eval("a > 2 and b < 2", 3, 2), 0);
  EXPECT_EQ(eval("a == 1 or b == 1", 0, 1), 1);
  EXPECT_EQ(eval("not (a == b)", 1, 1), 0);
  EXPECT_EQ(eval("a && b || False", 1, 0), 0);
  EXPECT_EQ(eval("(a > b) ? a : b", 2, 5), 5);
  EXPECT_EQ(eval("True + a", 1, 0), 2);
  EXPECT_EQ(eval("ceil(a / b) + floor(a / b)", 7, 2), 7);
  // Names made of the operators' letters stay names.
  EXPECT_EQ(Expression("andy + order", {"andy", "order"}).eval({2, 3}), 5);
}

TEST(FileExpression, BadTextAndUnknownNamesThrow) {
  EXPECT_THROW(Expression("a +", {"a"}), Error);
  EXPECT_THROW(Expression("a + c", {"a"}), Error);
  EXPECT_THROW(Expression("", {"a"}), Error);
  const Expression e("a", {"a"});
  EXPECT_THROW(e.eval({1, 2}), Error);  // one value per variable
}

TEST(FileConditions, HideConfigsFromTheSpace) {
  const FileSpec spec = parse_spec(R"({
    "ConfigurationSpace": {
      "TuningParameters": [{"Name": "A", "Type": "int", "Values": "[1, 2, 4, 8]"},
                           {"Name": "B", "Type": "float", "Values": "[0.5, 2]"},
                           {"Name": "C", "Type": "bool", "Values": "[0, 1]"}],
      "Conditions": [{"Parameters": ["A", "B"], "Expression": "A * B <= 4"},
                     {"Parameters": ["A", "C"], "Expression": "C or A % 2 == 0"}]},
    "KernelSpecification": {"Language": "C++", "KernelName": "k", "KernelFile": "k.cpp",
      "GlobalSize": {"X": "1"}, "LocalSize": {"X": "1"},
      "Arguments": [{"Type": "float", "MemoryType": "Vector", "Size": 4, "AccessType": "WriteOnly"}],
      "ReferenceArguments": [{"Name": "r", "TargetName": "arg0", "FillType": "Constant"}]}})",
                                   "cond.json");
  const FileFamily family(spec);
  const Space& space = family.space();
  EXPECT_EQ(space.product_size(), 16);
  std::vector<std::string> configs;
  for (const Config& c : space.enumerate()) configs.push_back(space.to_string(c));
  // A * B <= 4 drops (8, 2); C or even A drops (1, *, false).
  EXPECT_EQ(configs,
            (std::vector<std::string>{"A=1;B=0.5;C=true", "A=1;B=2;C=true", "A=2;B=0.5;C=false",
                                      "A=2;B=0.5;C=true", "A=2;B=2;C=false", "A=2;B=2;C=true",
                                      "A=4;B=0.5;C=false", "A=4;B=0.5;C=true", "A=8;B=0.5;C=false",
                                      "A=8;B=0.5;C=true"}));
  EXPECT_EQ(space.violates(space.parse("A=8;B=2;C=true")), "condition 'A * B <= 4' is false");
}

}  // namespace
}  // namespace ktune::filefamily
