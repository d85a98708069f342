// Model JSON is input like any other: wrong types, out-of-range indices and class counts that
// disagree with the config list are one-line errors naming the field (never a silent
// conversion or a pick past the end of the list), and codegen walks trees of any depth.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ktune/error.hpp"
#include "ktune/ml/codegen.hpp"
#include "ktune/ml/selector.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

nlohmann::json trained(const std::string& kind) {
  const Dataset d = test::make_synthetic_dataset();
  auto s = make_selector(kind);
  s->fit(d, {0, 1, 2, 3}, Norm::scale);
  return nlohmann::json::parse(s->to_json().dump());
}

// The one-line error from_json gives for j, or "" when it loads.
std::string load_error(const nlohmann::json& j) {
  try {
    Selector::from_json(j);
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  return "";
}

TEST(ModelJson, AFloatWhereAnIntegerBelongsIsAnErrorNamingTheField) {
  auto j = trained("tree-c");
  j["model"]["tree"]["nodes"][0]["feature"] = 1e300;  // was read as INT_MIN: a collapsed tree
  EXPECT_NE(load_error(j).find("tree.nodes[0].feature"), std::string::npos) << load_error(j);
  j = trained("tree-c");
  j["model"]["tree"]["nodes"][0]["left"] = 1.5;
  EXPECT_NE(load_error(j).find("tree.nodes[0].left"), std::string::npos) << load_error(j);
  j = trained("tree-c");
  j["model"]["tree"]["n_features"] = "3";
  EXPECT_NE(load_error(j).find("tree.n_features"), std::string::npos) << load_error(j);
  j = trained("knn-3");
  j["model"]["knn"]["k"] = 3.0;
  EXPECT_NE(load_error(j).find("knn.k"), std::string::npos) << load_error(j);
  j = trained("svm-linear");
  j["model"]["svm"]["W"]["rows"] = 4.5;
  EXPECT_NE(load_error(j).find("matrix.rows"), std::string::npos) << load_error(j);
  j = trained("tree-c");
  j["safe_order"][0] = 0.5;
  EXPECT_NE(load_error(j).find("selector.safe_order[0]"), std::string::npos) << load_error(j);
  j = trained("tree-c");
  j["seed"] = -1;
  EXPECT_NE(load_error(j).find("selector.seed"), std::string::npos) << load_error(j);
}

TEST(ModelJson, SplitFeaturesAndChildrenOutOfRangeAreRefused) {
  auto j = trained("tree-c");
  auto& root = j["model"]["tree"]["nodes"][0];
  ASSERT_GE(root["feature"].get<int>(), 0) << "the synthetic tree splits at its root";
  root["feature"] = j["model"]["tree"]["n_features"];  // one past the last feature
  EXPECT_NE(load_error(j).find("tree.nodes[0].feature"), std::string::npos) << load_error(j);
  j = trained("tree-c");
  j["model"]["tree"]["nodes"][0]["right"] = 0;  // a cycle
  EXPECT_NE(load_error(j).find("tree.nodes[0].right"), std::string::npos) << load_error(j);
}

// A class count that disagrees with the config list: the tree scores 4 configs, the envelope
// ships 3. select() would have returned index 3 of a 3-config list.
TEST(ModelJson, ClassCountsMustMatchTheConfigList) {
  for (const std::string kind :
       {"tree-c", "knn-3", "forest", "logreg", "svm-linear", "mlp", "naive-bayes", "svm-rbf"}) {
    auto j = trained(kind);
    j["configs"].erase(j["configs"].size() - 1);
    nlohmann::json order = nlohmann::json::array();
    for (int k = 0; k < 3; ++k) order.push_back(k);
    j["safe_order"] = order;
    auto& cf = j["config_features"];
    cf["rows"] = 3;
    cf["data"].erase(cf["data"].size() - 1);
    EXPECT_NE(load_error(j).find("scores 4 configs"), std::string::npos)
        << kind << ": " << load_error(j);
  }
  // Features likewise: the model takes 3, the envelope names 2.
  auto j = trained("tree-c");
  j["feature_names"].erase(j["feature_names"].size() - 1);
  EXPECT_NE(load_error(j).find("takes 3 features"), std::string::npos) << load_error(j);
}

TEST(ModelJson, EveryKindStillRoundTrips) {
  for (const auto& kind : selector_names()) EXPECT_EQ(load_error(trained(kind)), "") << kind;
}

// A chain of `depth` splits: each split's `deep` child continues the chain, the other is a
// leaf. left == deep nests one if-level per split in the generated code; right does not.
nlohmann::json chain_tree(nlohmann::json model, int depth, bool deep_left) {
  const size_t K = model["configs"].size();
  auto& tree = model["model"]["tree"];
  nlohmann::json nodes = nlohmann::json::array();
  auto leaf = [&](size_t k) {
    std::vector<double> value(K, 0.0);
    value[k % K] = 1.0;
    return nlohmann::json{
        {"feature", -1}, {"threshold", 0.0}, {"left", -1}, {"right", -1}, {"value", value}};
  };
  for (int i = 0; i < depth; ++i) {
    const int at = 2 * i, chain = at + 2, side = at + 1;
    nlohmann::json split = leaf(0);
    split["feature"] = 0;
    split["threshold"] = 1000.0 - i;
    split["left"] = deep_left ? chain : side;
    split["right"] = deep_left ? side : chain;
    nodes.push_back(split);
    nodes.push_back(leaf(size_t(i)));
  }
  nodes.push_back(leaf(1));
  tree["nodes"] = nodes;
  model["model"].erase("leaf_configs");  // they describe the trained tree's nodes
  return model;
}

TEST(ModelJson, CodegenRefusesTooDeepNestingAndWalksLongChainsWithoutRecursion) {
  const auto base = trained("tree-a");
  CodegenOptions o;
  o.model_path = "deep.json";
  // 50,000 nested levels: recursion used to overflow the stack; now a one-line error.
  try {
    generate_selector_header(chain_tree(base, 50000, true), o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deep.json"), std::string::npos) << what;
    EXPECT_NE(what.find("more than 200 levels"), std::string::npos) << what;
  }
  // 50,000 splits that do not nest compile as a flat sequence of ifs.
  const std::string header = generate_selector_header(chain_tree(base, 50000, false), o);
  size_t ifs = 0;
  for (size_t at = header.find("if (f."); at != std::string::npos;
       at = header.find("if (f.", at + 1))
    ++ifs;
  EXPECT_EQ(ifs, 50000u);
  // 200 nested levels are still accepted.
  EXPECT_NO_THROW(generate_selector_header(chain_tree(base, 200, true), o));
}

TEST(ModelJson, CodegenErrorsNameTheModelFile) {
  auto j = trained("tree-c");
  j["model"]["tree"]["nodes"][0]["feature"] = 2.5;
  CodegenOptions o;
  o.model_path = "models/sel.json";
  try {
    generate_selector_header(j, o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("models/sel.json: ", 0), 0u) << what;
    EXPECT_NE(what.find("tree.nodes[0].feature"), std::string::npos) << what;
  }
}

// Through the CLI: a broken model is a one-line "error" naming the file (exit 1), never an
// "internal error" (exit 3).
TEST(ModelJson, CodegenCliNamesTheFileForEveryBrokenModel) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  test::TempDir dir("ktune-model-json");
  auto bad_tree = trained("tree-c");
  bad_tree["model"]["tree"]["nodes"][0]["threshold"] = "high";
  const std::string bodies[] = {
      "[]", R"({"format": 1})", R"({"format": "ktune-selector", "kind": 5})",
      R"({"format": "ktune-selector", "kind": "tree-a"})", bad_tree.dump()};
  for (const auto& body : bodies) {
    const std::string path = (dir.path() / "bad.json").string();
    std::ofstream(path) << body;
    const std::string cmd = std::string(KTUNE_BINARY) + " codegen --model " + path + " -o - 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buf[512];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = pclose(pipe);
    EXPECT_EQ(WEXITSTATUS(status), 1) << body << "\n" << out;
    EXPECT_EQ(out.find("internal error"), std::string::npos) << out;
    EXPECT_NE(out.find(path), std::string::npos) << out;
    EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
  }
}

}  // namespace
}  // namespace ktune::ml
