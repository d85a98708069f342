// ktune codegen: the generated header compiles alone with warnings as errors and picks, for every
// training problem (and unseen off-grid shapes), the config the trained tree selector picks.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/ml/codegen.hpp"
#include "ktune/ml/selector.hpp"
#include "ktune/problem.hpp"
#include "ktune/vendor_candidates.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

struct Shape {
  long long transa, transb, m, n, k, batch;
  std::string key() const {
    std::ostringstream s;
    s << "transa=" << transa << ";transb=" << transb << ";m=" << m << ";n=" << n << ";k=" << k
      << ";batch=" << batch;
    return s.str();
  }
};

const std::vector<std::string> kConfigs = {"r=4;a=8;c=4;wg=8x8",   "r=2;a=4;c=2;wg=16x16",
                                           "r=8;a=8;c=8;wg=32x8",  "r=1;a=2;c=1;wg=1x64",
                                           "r=4;a=4;c=4;wg=128x1", "r=2;a=8;c=1;wg=8x32"};

// A GEMM dataset whose best config depends on the shape through raw, product, ratio and mod
// features, with noise so the unlimited tree grows deep.
std::vector<Measurement> gemm_measurements(std::vector<Shape>& shapes) {
  std::mt19937_64 rng(7);
  const std::vector<long long> dims = {16,  32,  49,  64,  96,   128, 196,
                                       256, 384, 512, 784, 1024, 3136};
  std::uniform_int_distribution<size_t> dim(0, dims.size() - 1);
  std::uniform_int_distribution<int> bit(0, 1), batch(0, 2);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::set<std::string> seen;
  std::vector<Measurement> ms;
  while (shapes.size() < 160) {
    Shape s{bit(rng), bit(rng), dims[dim(rng)], dims[dim(rng)], dims[dim(rng)], 1LL << batch(rng)};
    if (!seen.insert(s.key()).second) continue;
    shapes.push_back(s);
    const double mn = double(s.m) * double(s.n), ratio = double(s.m) / double(s.k);
    for (size_t c = 0; c < kConfigs.size(); ++c) {
      double perf = 10.0 * (1.0 + 0.3 * unit(rng));
      if (c == 0 && mn < 20000) perf *= 1.8;
      if (c == 1 && ratio > 4) perf *= 1.7;
      if (c == 2 && s.k % 8 != 0) perf *= 1.9;
      if (c == 3 && s.transa == 1) perf *= 1.5;
      if (c == 4 && s.batch > 1) perf *= 1.6;
      Measurement x;
      x.device = "test-dev";
      x.family = "gemm";
      x.problem = s.key();
      x.config = kConfigs[c];
      x.config_id = static_cast<int64_t>(c);
      const bool refused = c == 5 && s.m < 64;  // a config that refuses small problems
      x.outcome.status = refused ? Status::refused : Status::ok;
      x.perf = refused ? 0.0 : perf;
      x.outcome.timing.median_ms = 1.0 / perf;
      ms.push_back(x);
    }
  }
  return ms;
}

// The model's feature row for a shape, built as the dataset builds it: raw, then derived.
Eigen::RowVectorXd feature_row(const Dataset& d, const Shape& s) {
  register_builtin();
  const Family& gemm = find_family("gemm");
  const Problem p = Problem::parse(s.key());
  const auto derived = gemm.derived_features(p);
  const size_t raw = d.feature_names.size() - derived.size();
  Eigen::RowVectorXd row(static_cast<Eigen::Index>(d.feature_names.size()));
  for (size_t j = 0; j < raw; ++j) row[Eigen::Index(j)] = p.get(d.feature_names[j]);
  for (size_t j = 0; j < derived.size(); ++j) row[Eigen::Index(raw + j)] = derived[j];
  return row;
}

int tree_leaves(const nlohmann::json& model) {
  int leaves = 0;
  for (const auto& n : model.at("model").at("tree").at("nodes")) leaves += n.at("feature") == -1;
  return leaves;
}

bool have_compiler() { return std::system("c++ --version > /dev/null 2>&1") == 0; }

// Compiles driver + header with warnings as errors, runs it, returns the ints it prints.
std::vector<int> compile_and_run(const test::TempDir& dir, const std::string& header,
                                 const std::string& driver) {
  test::write_text(dir.file("selector.hpp"), header);
  test::write_text(dir.file("driver.cpp"), driver);
  const std::string compile = "c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -O1 -o '" +
                              dir.file("driver") + "' '" + dir.file("driver.cpp") + "' 2> '" +
                              dir.file("compile.log") + "'";
  if (std::system(compile.c_str()) != 0) {
    ADD_FAILURE() << "generated header does not compile:\n"
                  << test::read_text(dir.file("compile.log")) << header;
    return {};
  }
  const std::string run = "'" + dir.file("driver") + "' > '" + dir.file("picks.txt") + "'";
  EXPECT_EQ(std::system(run.c_str()), 0);
  std::istringstream in(test::read_text(dir.file("picks.txt")));
  std::vector<int> picks;
  for (int i; in >> i;) picks.push_back(i);
  return picks;
}

std::string gemm_driver(const std::vector<Shape>& shapes) {
  std::ostringstream driver;
  driver << "#include <cstdio>\n#include \"selector.hpp\"\n"
         << "static const long long kShapes[][6] = {\n";
  for (const auto& s : shapes)
    driver << "  {" << s.transa << ", " << s.transb << ", " << s.m << ", " << s.n << ", " << s.k
           << ", " << s.batch << "},\n";
  driver << "};\nint main() {\n  for (const auto& s : kShapes) {\n"
         << "    const int i = ktune_selector::select(s[0], s[1], s[2], s[3], s[4], s[5]);\n"
         << "    if (ktune_selector::config_name(i) == nullptr) return 1;\n"
         << "    std::printf(\"%d\\n\", i);\n  }\n  return 0;\n}\n";
  return driver.str();
}

// A tree selector and its unsure rule: the header must agree with the model either way.
struct CodegenCase {
  std::string selector, name;
  UnsureRule unsure;
  bool vendors = false;  // configs 3 and 4 renamed vendor calls ("vendor=a", "vendor=b")
};

class CodegenTest : public ::testing::TestWithParam<CodegenCase> {};

TEST_P(CodegenTest, HeaderPicksWhatTheSelectorPicks) {
  if (!have_compiler()) GTEST_SKIP() << "no c++ compiler on PATH";
  std::vector<Shape> shapes;
  Dataset d = dataset_from_measurements(gemm_measurements(shapes), "", "gemm");
  ASSERT_EQ(d.rows(), static_cast<Eigen::Index>(shapes.size()));
  if (GetParam().vendors) {
    d.config_names.at(3) = "vendor=a";  // faster where transa = 1
    d.config_names.at(4) = "vendor=b";  // faster where batch > 1
  }
  std::vector<Eigen::Index> shipped(d.config_names.size());
  for (size_t c = 0; c < shipped.size(); ++c) shipped[c] = static_cast<Eigen::Index>(c);
  const UnsureRule& rule = GetParam().unsure;
  auto trained = make_selector(GetParam().selector, {Fallback::baseline, 0, rule});
  trained->fit(d, shipped, Norm::scale);
  nlohmann::json model = trained->to_json();
  model["family"] = d.family;
  model["dataset"] = "synthetic-gemm.csv";
  ASSERT_GE(tree_leaves(model), 3) << "the tree is too small for the check to mean anything";
  const auto loaded = Selector::from_json(model);

  // Training problems in dataset order, then unseen shapes between and beyond the grid values.
  std::vector<Shape> all;
  for (const auto& key : d.problem_keys) {
    const Problem p = Problem::parse(key);
    all.push_back({(long long)p.get("transa"), (long long)p.get("transb"), (long long)p.get("m"),
                   (long long)p.get("n"), (long long)p.get("k"), (long long)p.get("batch")});
  }
  const size_t n_train = all.size();
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<long long> any_dim(1, 4000);
  std::uniform_int_distribution<int> bit(0, 1);
  for (int i = 0; i < 200; ++i)
    all.push_back({bit(rng), bit(rng), any_dim(rng), any_dim(rng), any_dim(rng), 1 + bit(rng)});

  CodegenOptions o;
  o.command = "ktune codegen --model model.json -o selector.hpp";
  o.model_path = "model.json";
  const std::string header = generate_selector_header(model, o);
  EXPECT_EQ(header.rfind("// Generated by ktune", 0), 0u);
  EXPECT_NE(header.find("ktune codegen --model model.json -o selector.hpp"), std::string::npos);
  EXPECT_NE(header.find("dataset synthetic-gemm.csv"), std::string::npos);
  EXPECT_NE(header.find("inline int select(long long transa, long long transb, long long m, "
                        "long long n, long long k, long long batch)"),
            std::string::npos)
      << "a GEMM model should get the BLAS-like signature:\n"
      << header;
  for (const auto& c : d.config_names) EXPECT_NE(header.find("\"" + c + "\""), std::string::npos);
  EXPECT_EQ(header.find("#include"), std::string::npos);

  test::TempDir dir("ktune-codegen");
  const std::vector<int> picks = compile_and_run(dir, header, gemm_driver(all));
  ASSERT_EQ(picks.size(), all.size());
  std::set<int> distinct, unsure_vendors;
  size_t unsure = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const Eigen::RowVectorXd row =
        i < n_train ? Eigen::RowVectorXd(d.features.row(Eigen::Index(i))) : feature_row(d, all[i]);
    const int expected = trained->select(row);
    ASSERT_EQ(loaded->select(row), expected);
    EXPECT_EQ(picks[i], expected) << (i < n_train ? "training" : "unseen") << " problem "
                                  << all[i].key();
    distinct.insert(expected);
    const bool is_unsure = trained->unsure(row, trained->scores(row));
    unsure += is_unsure;
    if (is_unsure && is_vendor_config(d.config_names.at(size_t(expected))))
      unsure_vendors.insert(expected);
  }
  // The leaf's vendor call: unsure problems of different leaves served different vendor calls.
  if (rule.leaf_vendor) {
    EXPECT_EQ(unsure_vendors.size(), 2u);
  }
  EXPECT_EQ(header.find("the leaf's vendor call") != std::string::npos, rule.leaf_vendor);
  EXPECT_GE(distinct.size(), 3u) << "the selector should pick several configs";
  if (rule.on()) {
    // The rule must fire on some problems and not on all, or agreement proves nothing.
    EXPECT_GT(unsure, 0u);
    EXPECT_LT(unsure, all.size());
    EXPECT_NE(header.find("kUnsure"), std::string::npos);
    // The leaf margin is stated beside kUnsure (and is off otherwise).
    EXPECT_EQ(header.find("by more than") != std::string::npos, rule.leaf_margin > 0);
  } else {
    EXPECT_EQ(header.find("kUnsure"), std::string::npos);
  }
  // The range guard writes no check of a skipped feature.
  for (const auto& name : rule.range_guard_skip)
    EXPECT_EQ(header.find("if (" + name + " < "), std::string::npos) << name;
  // The leaf floor is stated, and replaces some leaf's answer, so the agreement covers its leaves.
  EXPECT_EQ(header.find("Leaf floor") != std::string::npos, rule.leaf_floor > 0);
  EXPECT_EQ(header.find("// floor:") != std::string::npos, rule.leaf_floor > 0);
  // The leaf box writes its test at the leaves (the agreement above covers problems outside it).
  EXPECT_EQ(header.find("outside this leaf's training problems") != std::string::npos,
            rule.leaf_box && !rule.leaf_vendor);
}

INSTANTIATE_TEST_SUITE_P(
    Trees, CodegenTest,
    ::testing::Values(
        CodegenCase{"tree-a", "A", {}}, CodegenCase{"tree-b", "B", {}},
        CodegenCase{"tree-b", "BLeafShare", {0.7, false}},
        CodegenCase{"tree-b", "BLeafMargin", {0.7, false, 0.1}},
        CodegenCase{"tree-b", "BLeafFloor", {0, false, 0, false, 0.95}},
        CodegenCase{"tree-b", "BRangeGuard", {0, true}},
        CodegenCase{"tree-b", "BLeafBox", {0, false, 0, false, 0, {}, true}},
        CodegenCase{"tree-b", "BLeafBoxAll", {0, false, 0, false, 0, {}, true, true}},
        CodegenCase{"tree-b", "BRangeGuardSkip", {0, true, 0, false, 0, {"n_mod8", "m"}}},
        CodegenCase{"tree-c", "CShareAndRange", {0.6, true}},
        CodegenCase{
            "tree-b", "BLeafVendor", {0.7, true, 0.1, true, 0, {}, true, true, {}, true}, true}),
    [](const auto& info) { return info.param.name; });

// A dataset of one GEMM variant carries its optional features, each constant (`suffix` appended
// to every key: ";precision=2" bf16, ";precision=2;c16=1" bf16 with 16-bit C): the header keeps
// the BLAS-like signature with them as further arguments after batch (`params`; the deployed
// library passes them, here `values`), and picks what the selector picks.
void expect_optional_arguments(const std::string& suffix, const std::string& params,
                               const std::string& values, const std::string& dir_name) {
  std::vector<Shape> shapes;
  std::vector<Measurement> ms = gemm_measurements(shapes);
  for (auto& x : ms) x.problem += suffix;
  const Dataset d = dataset_from_measurements(ms, "", "gemm");
  std::vector<Eigen::Index> shipped(d.config_names.size());
  for (size_t c = 0; c < shipped.size(); ++c) shipped[c] = static_cast<Eigen::Index>(c);
  auto trained = make_selector("tree-b", {Fallback::baseline, 0, UnsureRule{}});
  trained->fit(d, shipped, Norm::scale);
  nlohmann::json model = trained->to_json();
  model["family"] = d.family;
  CodegenOptions o;
  const std::string header = generate_selector_header(model, o);
  ASSERT_NE(header.find("inline int select(long long transa, long long transb, long long m, "
                        "long long n, long long k, long long batch, " +
                        params + ")"),
            std::string::npos)
      << header;
  std::string driver = gemm_driver(shapes);
  const std::string call = "select(s[0], s[1], s[2], s[3], s[4], s[5])";
  ASSERT_NE(driver.find(call), std::string::npos);
  driver.replace(driver.find(call), call.size(),
                 "select(s[0], s[1], s[2], s[3], s[4], s[5], " + values + ")");
  test::TempDir dir(dir_name);
  const std::vector<int> picks = compile_and_run(dir, header, driver);
  ASSERT_EQ(picks.size(), shapes.size());
  for (Eigen::Index i = 0; i < d.rows(); ++i) {
    const Problem p = Problem::parse(d.problem_keys[size_t(i)]);
    size_t at = 0;
    while (at < shapes.size() && shapes[at].key() + suffix != p.key()) ++at;
    ASSERT_LT(at, shapes.size()) << p.key();
    EXPECT_EQ(picks[at], trained->select(Eigen::RowVectorXd(d.features.row(i)))) << p.key();
  }
}

TEST(Codegen, GemmPrecisionFeatureBecomesASeventhArgument) {
  if (!have_compiler()) GTEST_SKIP() << "no c++ compiler on PATH";
  expect_optional_arguments(";precision=2", "long long precision", "2", "ktune-codegen-precision");
}

// 16-bit C (`c16`): one selector per precision and C type, c16 an eighth argument.
TEST(Codegen, GemmSixteenBitCFeatureBecomesAnEighthArgument) {
  if (!have_compiler()) GTEST_SKIP() << "no c++ compiler on PATH";
  expect_optional_arguments(";precision=2;c16=1", "long long precision, long long c16", "2, 1",
                            "ktune-codegen-c16");
}

// A dataset mixes no C types: its rows' features must agree (one selector per C type); the
// error names the features that differ.
TEST(Codegen, DatasetOfMixedCTypesIsAOneLineError) {
  std::vector<Shape> shapes;
  std::vector<Measurement> ms = gemm_measurements(shapes);
  for (auto& x : ms) x.problem += ";precision=2";
  ms.back().problem += ";c16=1";
  try {
    dataset_from_measurements(ms, "", "gemm");
    FAIL() << "a dataset of FP32 and 16-bit C was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find("c16"), std::string::npos) << what;  // the features that differ
  }
}

TEST(Codegen, NonTreeModelIsAOneLineError) {
  const Dataset d = test::make_synthetic_dataset();
  auto knn = make_selector("knn-3");
  knn->fit(d, {0, 1, 2}, Norm::scale);
  CodegenOptions o;
  o.model_path = "knn.json";
  try {
    generate_selector_header(knn->to_json(), o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_NE(what.find("knn.json"), std::string::npos) << what;
    EXPECT_NE(what.find("knn-3"), std::string::npos) << what;
    EXPECT_NE(what.find("tree"), std::string::npos) << what;
  }
  EXPECT_THROW(generate_selector_header(nlohmann::json{{"kind", "tree-a"}}, o), Error);
}

// The generic Features struct with both unsure rules: rows inside and outside the training
// range (features scaled by 1/8 and 8) pick in the header what they pick in the model.
TEST(Codegen, GenericFeaturesKeepTheUnsureRules) {
  if (!have_compiler()) GTEST_SKIP() << "no c++ compiler on PATH";
  const Dataset d = test::make_synthetic_dataset();
  auto tree = make_selector("tree-c", {Fallback::baseline, 0, {0.95, true}});
  tree->fit(d, {0, 1, 2, 3, 4, 5}, Norm::scale);
  const std::string header = generate_selector_header(tree->to_json());
  std::vector<Eigen::RowVectorXd> rows;
  for (double scale : {1.0, 0.125, 8.0}) {
    for (Eigen::Index r = 0; r < d.rows(); ++r) rows.push_back(d.features.row(r) * scale);
  }
  std::ostringstream driver;
  driver << "#include <cstdio>\n#include \"selector.hpp\"\nint main() {\n";
  for (const auto& row : rows) {
    driver << "  std::printf(\"%d\\n\", ktune_selector::select({";
    for (Eigen::Index f = 0; f < row.size(); ++f)
      driver << (f ? ", " : "") << fmt::format("{:.17g}", row[f]);
    driver << "}));\n";
  }
  driver << "  return 0;\n}\n";
  test::TempDir dir("ktune-codegen");
  const std::vector<int> picks = compile_and_run(dir, header, driver.str());
  ASSERT_EQ(picks.size(), rows.size());
  size_t outside = 0, low_share = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(picks[i], tree->select(rows[i])) << i;
    const Eigen::VectorXd s = tree->scores(rows[i]);
    const bool out = (rows[i].transpose().array() < tree->feature_min().array()).any() ||
                     (rows[i].transpose().array() > tree->feature_max().array()).any();
    outside += out;
    low_share += !out && s.maxCoeff() / s.sum() < 0.95;  // the leaf rule decides these
  }
  EXPECT_GT(outside, 0u);
  EXPECT_GT(low_share, 0u);
  EXPECT_LT(outside, rows.size());
}

TEST(Codegen, RejectsBadNamesAndEmitsGenericFeaturesStruct) {
  const Dataset d = test::make_synthetic_dataset();  // features m, n, k: not a GEMM model
  auto tree = make_selector("tree-c");
  tree->fit(d, {0, 1, 2, 3}, Norm::scale);
  CodegenOptions o;
  o.namespace_name = "my::sel";
  const std::string header = generate_selector_header(tree->to_json(), o);
  EXPECT_EQ(header.rfind("// Generated by ktune", 0), 0u);
  EXPECT_NE(header.find("struct Features"), std::string::npos);
  EXPECT_NE(header.find("namespace my::sel {"), std::string::npos);
  if (have_compiler()) {
    std::ostringstream driver;
    driver << "#include <cstdio>\n#include \"selector.hpp\"\nint main() {\n";
    for (Eigen::Index r = 0; r < d.rows(); ++r) {
      driver << "  std::printf(\"%d\\n\", my::sel::select({";
      for (Eigen::Index f = 0; f < d.features.cols(); ++f)
        driver << (f ? ", " : "") << fmt::format("{:.17g}", d.features(r, f));
      driver << "}));\n";
    }
    driver << "  return 0;\n}\n";
    test::TempDir dir("ktune-codegen");
    const std::vector<int> picks = compile_and_run(dir, header, driver.str());
    ASSERT_EQ(picks.size(), static_cast<size_t>(d.rows()));
    for (Eigen::Index r = 0; r < d.rows(); ++r)
      EXPECT_EQ(picks[size_t(r)], tree->select(d.features.row(r)));
  }
  o.namespace_name = "my sel";
  EXPECT_THROW(generate_selector_header(tree->to_json(), o), Error);
  o.namespace_name = "ok";
  o.function_name = "int";
  EXPECT_THROW(generate_selector_header(tree->to_json(), o), Error);
}

}  // namespace
}  // namespace ktune::ml
