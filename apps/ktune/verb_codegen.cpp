// ktune codegen: a trained tree selector (ktune train -o MODEL.json) as a standalone C++ header.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/ktune/shell_word.hpp"
#include "apps/ktune/verb.hpp"
#include "apps/ktune/verb_output.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/codegen.hpp"

namespace ktune::cli {
namespace {

struct CodegenArgs {
  std::string model, output, namespace_name = "ktune_selector", function_name = "select", dataset;
};

int run_codegen(const CodegenArgs& a) {
  nlohmann::json model;
  try {
    model = nlohmann::json::parse(read_text_file(a.model));
  } catch (const nlohmann::json::exception& e) {
    throw Error(a.model + ": not valid JSON: " + e.what());
  }
  ml::CodegenOptions o;
  o.namespace_name = a.namespace_name;
  o.function_name = a.function_name;
  o.model_path = a.model;
  o.dataset = a.dataset;
  o.command = "ktune codegen --model " + shell_word(a.model) + " -o " + shell_word(a.output);
  if (a.namespace_name != "ktune_selector")
    o.command += " --namespace " + shell_word(a.namespace_name);
  if (a.function_name != "select") o.command += " --function " + shell_word(a.function_name);
  if (!a.dataset.empty()) o.command += " --dataset " + shell_word(a.dataset);
  const std::string header = ml::generate_selector_header(model, o);
  write_output_or_print(a.output, header);
  return 0;
}

void codegen_options(CLI::App& sub, CodegenArgs& a) {
  sub.add_option("--model", a.model, "Tree selector model JSON (ktune train --selector tree-*)")
      ->required();
  sub.add_option("-o,--output", a.output, "Header to write (- for stdout)")->required();
  sub.add_option("--namespace", a.namespace_name, "Namespace of the generated code")
      ->capture_default_str();
  sub.add_option("--function", a.function_name, "Name of the selection function")
      ->capture_default_str();
  sub.add_option("--dataset", a.dataset,
                 "Dataset to name in the header comment (default: the model's, if recorded)");
}

const bool verb_codegen_registered =
    add_verb("codegen", "Emit a trained tree selector as a self-contained C++ header",
             codegen_options, run_codegen);

}  // namespace
}  // namespace ktune::cli
