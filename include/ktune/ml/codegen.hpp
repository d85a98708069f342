#pragma once
// Code generation for deployment: a trained tree selector (tree-a, tree-b, tree-c) as a
// self-contained C++17 header that depends on nothing in ktune and compiles alone under
// -Wall -Wextra -Werror. The header lists the K shipped configs (kNumConfigs, kConfigs[],
// config_name()) and a function that walks the decision tree as nested ifs and returns an index
// into kConfigs, exactly what Selector::select returns for the same problem.
//
// A model whose features are exactly its family's problem and derived features gets the
// family's integer-argument signature (Family::codegen_signature; GEMM: select(transa, transb,
// m, n, k, batch) over long long); the derived features the tree uses are computed once at the
// top with the C++ the family gives next to their values. The family must be registered
// (register_builtin) and named by the model's "family" field. Integer-valued features are
// compared with integer thresholds (x <= floor(t), the same test for integers); others with the
// double threshold printed to 17 significant digits. Any other model gets
// select(const Features&) over a struct of doubles named after the model's features.
// Where Selector::select serves the baseline (a non-finite feature: the family's guard, NaN or
// infinity otherwise), the generated function returns kBaseline too.
//
// Only a split's left branch nests (`if (x <= t) { left } right`), so the header's nesting is
// the largest number of left turns on a path. Trees nesting more than 200 levels are refused
// with an error: compilers reject deeper nesting (clang: 256 brackets by default), so such a
// header would build nowhere; train a depth-limited tree or serve it through the JSON runtime.
// The tree is walked with an explicit stack, so any depth is safe to refuse.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ktune::ml {

struct CodegenOptions {
  std::string namespace_name = "ktune_selector";  // may be nested: "mylib::tuning"
  std::string function_name = "select";
  std::string command;     // recorded in the first line; empty: "ktune codegen"
  std::string model_path;  // names the model in error messages and the header comment
  std::string dataset;     // recorded in the comment; empty: the model's "dataset" field, if any
  // select(const Features&) headers: the Features type is this one (declared elsewhere) rather
  // than a struct of the header's own (multi-device headers share one).
  std::string features_type;
};

// The names of the long long arguments of the select() generated for the model, in order;
// empty when it takes a Features struct.
std::vector<std::string> selector_arguments(const nlohmann::json& model);

// Whether s can name a C++ variable, function or namespace (not a keyword).
bool is_cpp_identifier(const std::string& s);

// The header text. Throws Error (one line, naming options.model_path and the bad field) for a
// model that is not a tree selector, a malformed model, a tree nesting too deep, or a
// namespace/function name that is not a C++ identifier.
std::string generate_selector_header(const nlohmann::json& model,
                                     const CodegenOptions& options = {});

}  // namespace ktune::ml
