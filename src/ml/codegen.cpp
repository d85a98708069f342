// Turns a tree selector's JSON model into a standalone C++ header (see codegen.hpp).
#include "ktune/ml/codegen.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/ml/cart.hpp"
#include "ktune/ml/selector.hpp"
#include "ktune/vendor_candidates.hpp"
#include "src/ml/argmax.hpp"
#include "src/ml/leaf_box.hpp"

namespace ktune::ml {
namespace {

using Holder = FeatureCode::Holder;

std::string cast(const std::string& arg) { return "static_cast<double>(" + arg + ")"; }

void check_namespace(const std::string& ns) {
  size_t start = 0;
  while (true) {
    const size_t end = ns.find("::", start);
    if (!is_cpp_identifier(ns.substr(start, end == std::string::npos ? end : end - start))) {
      throw Error("codegen: namespace '" + ns + "' is not a C++ namespace name");
    }
    if (end == std::string::npos) return;
    start = end + 2;
  }
}

// Model feature names as struct members: identifiers, distinct.
std::vector<std::string> member_names(const std::vector<std::string>& features) {
  std::vector<std::string> out;
  std::set<std::string> taken;
  for (size_t i = 0; i < features.size(); ++i) {
    std::string s;
    for (char c : features[i]) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (!is_cpp_identifier(s)) {  // built in two steps: GCC 12 warns falsely on "f_" + s
      std::string prefixed = "f_";
      prefixed += s;
      s = std::move(prefixed);
    }
    while (!taken.insert(s).second) {
      s += '_';
      s += std::to_string(i);
    }
    out.push_back(s);
  }
  return out;
}

std::string string_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\{:03o}", u);  // octal: at most 3 digits, so it cannot run on
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Text safe inside a // comment: one line, no backslash that could splice the next line.
std::string comment_text(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\\') c = c == '\\' ? '/' : ' ';
  }
  return s;
}

// x <= t written so the generated code takes the same branch for every value x can hold.
std::string condition(const FeatureCode& f, double t) {
  if (!std::isfinite(t)) throw Error("codegen: the tree has a non-finite threshold");
  const double whole = std::floor(t);  // for integer x: x <= t exactly when x <= floor(t)
  switch (f.holder) {
    case Holder::integer:
      if (whole > -9.2e18 && whole < 9.2e18) {
        return fmt::format("{} <= {}", f.name, static_cast<long long>(whole));
      }
      return fmt::format("{} <= {:.17g}", cast(f.name), t);
    case Holder::integer_double:
      return fmt::format("{} <= {:.1f}", f.name, whole);
    case Holder::real:
      break;
  }
  std::string literal = fmt::format("{:.17g}", t);
  if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
  return f.name + " <= " + literal;
}

// A training bound of feature f as a literal of its type: bounds are values of training
// problems, so integer features get exact integers and doubles round-trip in 17 digits.
std::string bound_literal(const FeatureCode& f, double v) {
  switch (f.holder) {
    case Holder::integer:
      return fmt::format("{}", static_cast<long long>(v));
    case Holder::integer_double:
      return fmt::format("{:.1f}", v);
    case Holder::real:
      break;
  }
  std::string literal = fmt::format("{:.17g}", v);
  if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
  return literal;
}

// The range guard: kUnsure when any feature is outside its training range; under leaf_vendor a
// flag the leaves read (each serves its own vendor call).
std::string range_guard_code(const std::vector<FeatureCode>& features, const Selector& s) {
  const bool per_leaf = s.options().unsure.leaf_vendor;
  std::string code = per_leaf
                         ? "  // Outside the training range of a feature: unsure, served "
                           "by the leaf's vendor call.\n  bool out_of_range = false;\n"
                         : "  // Outside the training range of a feature: the unsure config.\n";
  for (size_t i = 0; i < features.size(); ++i) {
    if (s.guard_skips(i)) continue;  // left out by the recipe (range_guard_skip)
    const auto& f = features[i];
    const auto at = static_cast<Eigen::Index>(i);
    code += fmt::format(
        "  if ({0} < {1} || {0} > {2}) {3};\n", f.name, bound_literal(f, s.feature_min()[at]),
        bound_literal(f, s.feature_max()[at]), per_leaf ? "out_of_range = true" : "return kUnsure");
  }
  return code;
}

int leaf_class(const DecisionTree::Node& n) {
  return first_argmax(n.value);  // as Selector::select: the first of equal scores
}

class TreeWriter {
 public:
  static constexpr int kMaxNesting = 200;

  // min_vote_share > 0: leaves whose majority share is below it (the same test on the same
  // doubles as Selector::unsure) return their leaf_configs entry, or kUnsure without one.
  TreeWriter(const DecisionTree& tree, const std::vector<FeatureCode>& features,
             const std::vector<std::string>& configs, const UnsureRule& unsure,
             std::vector<int> leaf_configs, std::vector<int> floor_configs, LeafBoxes leaf_boxes,
             std::vector<int> leaf_vendors)
      : nodes_(tree.nodes()),
        features_(features),
        configs_(configs),
        min_vote_share_(unsure.min_vote_share),
        leaf_margin_(unsure.leaf_margin),
        leaf_floor_(unsure.leaf_floor),
        floor_reference_(std::any_of(configs.begin(), configs.end(), is_vendor_config)
                             ? "the vendor"
                             : "the best shipped config"),
        leaf_configs_(std::move(leaf_configs)),
        floor_configs_(std::move(floor_configs)),
        leaf_boxes_(std::move(leaf_boxes)),
        leaf_vendors_(std::move(leaf_vendors)),
        range_guard_(unsure.range_guard) {}

  // Every path ends in a return: a split is `if (x <= t) { left } right`, so only left
  // children nest. Written with an explicit stack (a degenerate tree may be 50,000 levels deep),
  // and refused past kMaxNesting levels of `if`: compilers reject deeper nesting (clang's
  // default bracket depth is 256), so such a header would not build anywhere.
  void write(int indent, std::string& out) const {
    struct Step {
      int node;   // node to write, or -1: close the brace opened at `depth`
      int depth;  // nesting level of its code
    };
    std::vector<Step> todo = {{0, indent}};
    while (!todo.empty()) {
      const Step step = todo.back();
      todo.pop_back();
      const std::string pad(static_cast<size_t>(2 * step.depth), ' ');
      if (step.node < 0) {
        out += pad + "}\n";
        continue;
      }
      const DecisionTree::Node& n = nodes_.at(static_cast<size_t>(step.node));
      if (n.feature < 0) {
        write_box(step.node, pad, out);
        const int k = leaf_class(n);
        const double share = n.value.maxCoeff() / n.value.sum();
        if (min_vote_share_ > 0 && share < min_vote_share_) {
          const int safe = leaf_configs_.empty() ? -1 : leaf_configs_.at(size_t(step.node));
          out +=
              fmt::format("{}return {};  // unsure: leaf share {:.2f} < {:.2f}, {} (not {})\n", pad,
                          safe >= 0 ? std::to_string(safe) : "kUnsure", share, min_vote_share_,
                          safe >= 0 ? (leaf_margin_ > 0 ? "its pick " : "its best geomean ") +
                                          comment_text(configs_.at(safe))
                                    : "the unsure config",
                          comment_text(configs_.at(k)));
        } else if (const int f = floor_config(step.node); f >= 0) {
          out += fmt::format("{}return {};  // floor: {} runs below {:g}x {} here, {}\n", pad, f,
                             comment_text(configs_.at(k)), leaf_floor_, floor_reference_,
                             comment_text(configs_.at(f)));
        } else {
          out += fmt::format("{}return {};  // {}\n", pad, k, comment_text(configs_.at(k)));
        }
        continue;
      }
      if (step.depth - indent >= kMaxNesting) {
        throw Error(fmt::format(
            "codegen: the tree nests more than {} levels of if (compilers reject deeper nesting in "
            "a header): train a depth-limited selector (tree-b, tree-c) or serve this model "
            "through the JSON runtime",
            kMaxNesting));
      }
      out += fmt::format("{}if ({}) {{\n", pad, condition(features_.at(n.feature), n.threshold));
      todo.push_back({n.right, step.depth});
      todo.push_back({-1, step.depth});
      todo.push_back({n.left, step.depth + 1});
    }
  }

  // The splits' features and the leaf boxes' (leaf_box_all bounds features no split reads).
  std::set<int> used_features() const {
    std::set<int> used;
    for (const auto& n : nodes_) {
      if (n.feature >= 0) used.insert(n.feature);
    }
    for (const auto& box : leaf_boxes_)
      for (const auto& b : box) used.insert(b.feature);
    return used;
  }

 private:
  const std::vector<DecisionTree::Node>& nodes_;
  const std::vector<FeatureCode>& features_;
  const std::vector<std::string>& configs_;
  // The leaf box's test (Selector::outside_leaf): kUnsure in the gap between a path threshold
  // and the leaf's nearest training problem. Under leaf_vendor the leaf's own vendor call, there
  // and outside the range guard (Selector::unsure_fallback).
  void write_box(int node, const std::string& pad, std::string& out) const {
    const int vendor = leaf_vendors_.empty() ? -1 : leaf_vendors_.at(size_t(node));
    std::string test = !leaf_vendors_.empty() && range_guard_ ? "out_of_range" : "";
    if (!leaf_boxes_.empty())
      for (const auto& b : leaf_boxes_[size_t(node)]) {
        const auto& f = features_.at(size_t(b.feature));
        const char* sep = test.empty() ? "" : " || ";
        if (b.lo) test += fmt::format("{}{} < {}", sep, f.name, bound_literal(f, *b.lo));
        if (b.lo && b.hi) sep = " || ";
        if (b.hi) test += fmt::format("{}{} > {}", sep, f.name, bound_literal(f, *b.hi));
      }
    if (test.empty()) return;
    if (!leaf_vendors_.empty())  // -1: a leaf no training problem reached
      out += fmt::format("{}if ({}) return {};  // unsure here: the leaf's vendor call {}\n", pad,
                         test, vendor >= 0 ? std::to_string(vendor) : "kUnsure",
                         vendor >= 0 ? comment_text(configs_.at(size_t(vendor))) : "");
    else
      out += fmt::format("{}if ({}) return kUnsure;  // outside this leaf's training problems\n",
                         pad, test);
  }
  // A sure leaf's answer under the leaf floor, or -1 where the floor keeps its class.
  int floor_config(int node) const {
    return floor_configs_.empty() ? -1 : floor_configs_.at(size_t(node));
  }

  double min_vote_share_, leaf_margin_, leaf_floor_;
  const char* floor_reference_;     // what the leaf floor held a leaf's answer to
  std::vector<int> leaf_configs_;   // per node; empty for models saved without them
  std::vector<int> floor_configs_;  // per node; empty without the leaf floor
  LeafBoxes leaf_boxes_;            // per node; empty without the leaf box
  std::vector<int> leaf_vendors_;   // per node; empty without leaf_vendor
  bool range_guard_;
};

// The family's integer-argument signature when the model's features are exactly the family's
// problem and derived features (any order); nullopt otherwise (a struct of doubles).
std::optional<CodegenSignature> family_signature(const nlohmann::json& model,
                                                 const std::vector<std::string>& names) {
  if (!model.contains("family") || !model["family"].is_string()) return std::nullopt;
  const Family* family = find_registered_family(model["family"].get<std::string>());
  if (!family) return std::nullopt;
  auto sig = family->codegen_signature();
  if (!sig) return std::nullopt;
  const std::set<std::string> got(names.begin(), names.end());
  for (const auto& optional : sig->optional_args)
    if (got.count(optional)) sig->args.push_back(optional);
  std::set<std::string> expected(sig->args.begin(), sig->args.end());
  for (const auto& d : sig->derived) expected.insert(d.name);
  if (got.size() != names.size() || got != expected) return std::nullopt;
  return sig;
}

// The tree of a selector model that Selector::from_json has checked (features, classes).
DecisionTree load_tree(const nlohmann::json& model) {
  return DecisionTree::from_json(model.at("model").at("tree"));
}

// The per-node unsure picks (field "leaf_configs") or leaf floor answers ("floor_configs") of a
// checked tree model (empty when it was saved without them).
std::vector<int> node_configs(const nlohmann::json& model, const char* field) {
  const auto& m = model.at("model");
  return m.contains(field) ? m[field].get<std::vector<int>>() : std::vector<int>{};
}

}  // namespace

// The check of selector and feature names, shared with deploy (codegen.hpp).
bool is_cpp_identifier(const std::string& s) {
  static const std::set<std::string> keywords = {
      "and",    "auto",   "bool",   "break",    "case",   "char",     "class",  "const",
      "double", "else",   "enum",   "float",    "for",    "if",       "int",    "long",
      "new",    "not",    "or",     "return",   "short",  "signed",   "sizeof", "static",
      "struct", "switch", "this",   "unsigned", "using",  "void",     "while",  "namespace",
      "delete", "do",     "friend", "goto",     "inline", "operator", "union",  "template"};
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return !keywords.count(s);
}

std::vector<std::string> selector_arguments(const nlohmann::json& model) {
  try {
    const auto signature = family_signature(model, Selector::from_json(model)->feature_names());
    return signature ? signature->args : std::vector<std::string>{};
  } catch (const Error&) {
    return {};  // generate_selector_header names what is wrong with the model
  }
}

std::string generate_selector_header(const nlohmann::json& model, const CodegenOptions& options) {
  const std::string label = options.model_path.empty() ? "model" : options.model_path;
  if (!model.is_object() || !model.contains("format") || model["format"] != "ktune-selector") {
    throw Error(label + ": not a ktune selector model (format field missing)");
  }
  const bool named = model.contains("kind") && model["kind"].is_string();
  const std::string kind = named ? model["kind"].get<std::string>() : "";
  if (kind != "tree-a" && kind != "tree-b" && kind != "tree-c") {
    throw Error(fmt::format(
        "codegen supports tree selectors (tree-a, tree-b, tree-c); model '{}' is a {} selector: "
        "load it with the JSON runtime instead",
        label, kind.empty() ? "kind-less" : kind));
  }
  check_namespace(options.namespace_name);
  if (!is_cpp_identifier(options.function_name)) {
    throw Error("codegen: function name '" + options.function_name + "' is not a C++ identifier");
  }
  std::unique_ptr<Selector> selector;
  DecisionTree tree;
  try {
    selector = Selector::from_json(model);  // type-, range- and shape-checked
    tree = load_tree(model);
  } catch (const Error& e) {
    throw Error(label + ": " + e.what());
  }
  const auto& names = selector->feature_names();
  const auto& configs = selector->config_names();
  const auto signature = family_signature(model, names);

  std::vector<FeatureCode> features;
  const auto members = member_names(names);
  for (size_t i = 0; i < names.size(); ++i) {
    if (!signature) {
      features.push_back({"f." + members[i], "", {}, Holder::real});
      continue;
    }
    FeatureCode code{names[i], "", {names[i]}, Holder::integer};
    for (const auto& d : signature->derived) {
      if (d.name == names[i]) code = d;
    }
    features.push_back(code);
  }
  const UnsureRule& unsure = selector->options().unsure;
  const auto& m = model.at("model");
  const TreeWriter writer(tree, features, configs, unsure, node_configs(model, "leaf_configs"),
                          node_configs(model, "floor_configs"),
                          m.contains("leaf_boxes")
                              ? leaf_boxes_from_json(m.at("leaf_boxes"), tree.nodes().size(),
                                                     static_cast<int>(names.size()))
                              : LeafBoxes{},
                          node_configs(model, "leaf_vendors"));
  std::set<int> used = writer.used_features();
  if (unsure.range_guard) {  // the guard reads every feature it does not skip
    for (int f = 0; f < static_cast<int>(features.size()); ++f)
      if (!selector->guard_skips(size_t(f))) used.insert(f);
  }

  std::string out;
  const std::string command = options.command.empty() ? "ktune codegen" : options.command;
  out += "// Generated by ktune: " + comment_text(command) + "\n";
  std::string from = fmt::format("{} selector", kind);
  if (!options.model_path.empty()) from += " " + options.model_path;
  from += fmt::format(", {} shipped configs, {} leaves", configs.size(), tree.n_leaves());
  if (model.contains("family") && model["family"].is_string())
    from += ", family " + model["family"].get<std::string>();
  if (model.contains("device") && model["device"].is_string())
    from += ", device " + model["device"].get<std::string>();
  std::string dataset = options.dataset;
  if (dataset.empty() && model.contains("dataset") && model["dataset"].is_string())
    dataset = model["dataset"].get<std::string>();
  if (!dataset.empty()) from += ", dataset " + dataset;
  out += "// From: " + comment_text(from) + ".\n";
  out += "// Self-contained C++17; regenerate with ktune codegen rather than editing by hand.\n";
  out += "#pragma once\n\n";
  out += "namespace " + options.namespace_name + " {\n\n";
  out += fmt::format("inline constexpr int kNumConfigs = {};\n\n", configs.size());
  out += "// The shipped configs; the selector returns an index into this list.\n";
  out += "inline constexpr const char* kConfigs[kNumConfigs] = {\n";
  for (const auto& c : configs) out += "    " + string_literal(c) + ",\n";
  out += "};\n\n";
  out +=
      "// Best safe single config: what the selector serves when the problem's features are not\n"
      "// finite, and the first config to try when the pick refuses a problem.\n";
  out += fmt::format("inline constexpr int kBaseline = {};\n\n", selector->baseline());
  if (unsure.on()) {
    out += "// When the selector is unsure (";
    out += unsure.min_vote_share > 0
               ? fmt::format("a leaf's majority share below {}", unsure.min_vote_share)
               : "";
    out += unsure.min_vote_share > 0 && unsure.range_guard ? ", or " : "";
    out += unsure.range_guard ? "a feature outside its training range" : "";
    out += unsure.leaf_box && (unsure.min_vote_share > 0 || unsure.range_guard) ? ", or " : "";
    out += !unsure.leaf_box ? ""
           : unsure.leaf_box_all
               ? "a feature outside the range of the leaf's training problems"
               : "a path feature outside the range of the leaf's training problems";
    out += unsure.vendor ? "): the shipped vendor call\n// (or, with none shipped, config) "
                         : "): the shipped config\n// ";
    out += "with the best geometric mean over the training problems ";
    out += unsure.min_vote_share > 0 ? "(an unsure leaf: over those reaching it).\n" : ".\n";
    if (unsure.min_vote_share > 0 && unsure.leaf_margin > 0)
      out += fmt::format(
          "// An unsure leaf's pick is kUnsure unless its own best config beats kUnsure's\n"
          "// geometric mean over the leaf's training problems by more than {:g} %.\n",
          100 * unsure.leaf_margin);
    if (unsure.range_guard && !unsure.range_guard_skip.empty())
      out += "// The range guard leaves out " +
             comment_text(fmt::format("{}", fmt::join(unsure.range_guard_skip, ", "))) + ".\n";
    if (unsure.leaf_vendor)
      out +=
          "// Except where a leaf names its own: the shipped vendor call with the best geometric\n"
          "// mean over the training problems reaching that leaf (\"the leaf's vendor call\").\n";
    out += fmt::format("inline constexpr int kUnsure = {};\n\n", selector->unsure_config());
  }
  const bool vendor_shipped = std::any_of(selector->config_names().begin(),
                                          selector->config_names().end(), is_vendor_config);
  if (unsure.leaf_floor > 0 && vendor_shipped && !unsure.floor_vendors.empty())
    out += fmt::format(
        "// Leaf floor: every leaf's answer runs at >= {:g}x the fastest shipped vendor call of\n"
        "// {}\n"
        "// (none of them shipped: of every shipped vendor call) on each training problem "
        "reaching\n"
        "// the leaf; a leaf whose own answer did not serves the best geometric mean among the\n"
        "// configs that did, else the best worst case (the leaves marked \"floor\").\n\n",
        unsure.leaf_floor, comment_text(fmt::format("{}", fmt::join(unsure.floor_vendors, ", "))));
  else if (unsure.leaf_floor > 0 && vendor_shipped)
    out += fmt::format(
        "// Leaf floor: every leaf's answer runs at >= {:g}x the fastest shipped vendor call "
        "(with\n"
        "// none, the config with the best geometric mean) on each training problem reaching the\n"
        "// leaf; a leaf whose own answer did not serves the best geometric mean among the "
        "configs\n"
        "// that did, else the best worst case (the leaves marked \"floor\").\n\n",
        unsure.leaf_floor);
  else if (unsure.leaf_floor > 0)
    out += fmt::format(
        "// Leaf floor: every leaf's answer runs at >= {:g}x the best shipped config on each\n"
        "// training problem reaching the leaf (a config the problem refuses counted as the "
        "first of\n"
        "// kSafeOrder that accepts it); a leaf whose own answer did not serves the best "
        "geometric\n"
        "// mean among the configs that did, else the best worst case (the leaves marked "
        "\"floor\").\n\n",
        unsure.leaf_floor);
  out += "// Fallback order when a pick refuses a problem: most widely valid configs first.\n";
  out += "inline constexpr int kSafeOrder[kNumConfigs] = {";
  for (size_t i = 0; i < selector->safe_order().size(); ++i)
    out += (i ? ", " : "") + std::to_string(selector->safe_order()[i]);
  out += "};\n\n";
  out += "// The config string of an index, or nullptr when it is out of range.\n";
  out +=
      "inline const char* config_name(int index) {\n"
      "  return index >= 0 && index < kNumConfigs ? kConfigs[index] : nullptr;\n}\n\n";

  std::string body;
  if (signature) {
    std::set<std::string> args_used(signature->guard_uses.begin(), signature->guard_uses.end());
    for (int f : used) {
      for (const auto& a : features[f].uses) args_used.insert(a);
    }
    size_t line_start = 0;
    while (line_start < signature->doc.size()) {
      const size_t end = std::min(signature->doc.find('\n', line_start), signature->doc.size());
      out += "// " + comment_text(signature->doc.substr(line_start, end - line_start)) + "\n";
      line_start = end + 1;
    }
    std::string params;
    for (const auto& a : signature->args)
      params += (params.empty() ? "" : ", ") + ("long long " + a);
    out += fmt::format("inline int {}({}) {{\n", options.function_name, params);
    for (const auto& a : signature->args) {
      if (!args_used.count(a)) body += "  (void)" + a + ";\n";
    }
    if (!signature->guard.empty()) {
      body += "  if (" + signature->guard + ") return kBaseline;";
      body +=
          signature->guard_why.empty() ? "\n" : "  // " + comment_text(signature->guard_why) + "\n";
    }
    for (int f : used) {
      if (!features[f].declaration.empty()) body += "  " + features[f].declaration + "\n";
    }
    if (unsure.range_guard) body += range_guard_code(features, *selector);
  } else {
    if (!options.features_type.empty()) {
      out += "using Features = " + options.features_type + ";\n\n";
    } else {
      out += "// The model's problem features, in the order it was trained on.\n";
      out += "struct Features {\n";
      for (size_t i = 0; i < names.size(); ++i) {
        out += "  double " + members[i] + ";";
        out += members[i] == names[i] ? "\n" : "  // " + comment_text(names[i]) + "\n";
      }
      out += "};\n\n";
    }
    out +=
        "namespace detail {\ninline bool finite(double x) {\n"
        "  return x >= -1.7976931348623157e308 && x <= 1.7976931348623157e308;\n}\n"
        "}  // namespace detail\n\n";
    out += "// Index into kConfigs of the config to run for the problem f.\n";
    out += fmt::format("inline int {}(const Features& f) {{\n", options.function_name);
    std::string all;
    for (const auto& m : members)
      all += (all.empty() ? "" : " ||\n      ") + ("!detail::finite(f." + m + ")");
    body += members.empty() ? "  (void)f;\n" : "  if (" + all + ") {\n    return kBaseline;\n  }\n";
    if (unsure.range_guard) body += range_guard_code(features, *selector);
  }
  try {
    writer.write(1, body);
  } catch (const Error& e) {
    throw Error(label + ": " + e.what());
  }
  out += body + "}\n\n";
  out += "}  // namespace " + options.namespace_name + "\n";
  return out;
}

}  // namespace ktune::ml
