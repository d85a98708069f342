// Sources of a deployed file family (deploy_units.hpp).
#include "src/filefamily/deploy_units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/codegen.hpp"

namespace ktune::filefamily {
namespace {

namespace fs = std::filesystem;

// A name the library spells in C++: not a keyword, nor the CUDA launch's `stream`.
bool deployable_name(const std::string& s) { return ml::is_cpp_identifier(s) && s != "stream"; }

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::vector<std::string> quoted_all(const std::vector<std::string>& list) {
  std::vector<std::string> out;
  for (const auto& s : list) out.push_back(quoted(s));
  return out;
}

// The kernel file's <...> includes, read before the per-config namespace opens, so that system
// headers are never declared inside it (the kernel's own #include then finds them included).
std::string hoisted_includes(const FileSpec& s) {
  const std::string text = read_text_file((fs::path(s.dir) / s.kernel_file).string());
  static const std::regex include(R"([ \t]*#[ \t]*include[ \t]*<[^>]+>.*)");
  std::string out, line;
  std::istringstream lines(text);
  while (std::getline(lines, line))
    if (std::regex_match(line, include)) out += line + "\n";
  return out;
}

std::vector<std::string> param_values(const DeployedFamily& d, size_t i) {
  const FileFamily& f = *d.family;
  const Config c = f.space().parse(d.configs[i]);
  std::vector<std::string> values;
  for (size_t p = 0; p < f.spec().params.size(); ++p)
    values.push_back(f.spec().params[p].values[size_t(c.index[p])]);
  return values;
}

std::string callee(const DeployedFamily& d, size_t i) {
  const FileSpec& s = d.family->spec();
  std::string name = fmt::format("{}_{}_kernel::{}", d.prefix(), i, s.kernel_name);
  if (s.passing == Passing::template_args)
    name += fmt::format("<{}>", fmt::join(param_values(d, i), ", "));
  return name;
}

std::string pointer_type(const Argument& a) {
  return fmt::format("{}{}*", a.access == Access::read_only ? "const " : "",
                     element_type_name(a.type));
}

std::string features_list(const FileSpec& s, const char* type) {
  std::vector<std::string> out;
  for (const auto& f : s.features) out.push_back(type + f);
  return fmt::format("{}", fmt::join(out, ", "));
}

// The launch function's parameters: the vectors, then the features (then the stream).
std::string parameters(const DeployedFamily& d, bool defaults) {
  const FileSpec& s = d.family->spec();
  std::vector<std::string> out;
  for (const auto& a : s.arguments)
    if (!a.scalar) out.push_back(pointer_type(a) + " " + a.name);
  for (const auto& f : s.features) out.push_back("double " + f);
  if (d.cuda()) out.push_back(defaults ? "cudaStream_t stream = nullptr" : "cudaStream_t stream");
  return fmt::format("{}", fmt::join(out, ", "));
}

std::string entry_declaration(const DeployedFamily& d, size_t i) {
  return d.cuda() ? fmt::format(
                        "cudaError_t {}_{}(void** params, const unsigned* sizes, "
                        "cudaStream_t stream)",
                        d.prefix(), i)
                  : fmt::format("void {}_{}(void* const* a)", d.prefix(), i);
}

}  // namespace

std::string DeployedFamily::prefix() const {
  return "ktune_tuned_" + library + "_" + family->name();
}

void check_deployable(const DeployedFamily& d) {
  const FileSpec& s = d.family->spec();
  if (!deployable_name(s.name))
    throw Error(
        fmt::format("{}: x-ktune.Name: '{}' is not a C++ identifier (the deployed "
                    "library's function is named after the family)",
                    s.path, s.name));
  for (const auto& f : s.features)
    if (!deployable_name(f))
      throw Error(
          fmt::format("{}: x-ktune.Features: '{}' is not a C++ identifier (the deployed "
                      "function takes each feature as a parameter)",
                      s.path, f));
  for (const auto& a : s.arguments)
    if (!a.scalar && !deployable_name(a.name))
      throw Error(fmt::format("{}: KernelSpecification.Arguments: '{}' is not a C++ identifier",
                              s.path, a.name));
  std::vector<std::string> mine = s.features, theirs = d.model_features;
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
  if (mine != theirs)
    throw Error(fmt::format("{}: the selector's features ({}) are not the file's ({})", s.path,
                            fmt::join(d.model_features, ", "), fmt::join(s.features, ", ")));
  for (size_t i = 0; i < d.configs.size(); ++i) param_values(d, i);  // each config parses
}

std::string config_unit_path(const DeployedFamily& d, size_t i) {
  return fmt::format("src/{}_config_{}.{}", d.family->name(), i, d.cuda() ? "cu" : "cpp");
}

std::string config_unit(const DeployedFamily& d, size_t i) {
  const FileSpec& s = d.family->spec();
  std::string out = fmt::format(
      "// Generated by ktune deploy: {}\n"
      "// {}, shipped config {}: {}. The kernel file is read inside a namespace of this\n"
      "// config's own, so that the shipped instantiations of one kernel share no symbol.\n",
      d.command, s.name, i, d.configs[i]);
  if (s.passing == Passing::defines) {
    const auto values = param_values(d, i);
    for (size_t p = 0; p < s.params.size(); ++p)
      out += fmt::format("#define {} {}\n", s.params[p].name, values[p]);
  }
  out += "#include <cstdint>\n" + hoisted_includes(s);
  if (d.cuda()) out += "#include <cuda_runtime.h>\n";
  out += fmt::format("\nnamespace {}_{}_kernel {{\n#include \"../{}\"\n}}\n\n", d.prefix(), i,
                     d.kernel_copy);
  if (d.cuda()) {
    return out + fmt::format(
                     "{} {{\n"
                     "  return cudaLaunchKernel(reinterpret_cast<const void*>(&{}),\n"
                     "                          dim3(sizes[0], sizes[1], sizes[2]),\n"
                     "                          dim3(sizes[3], sizes[4], sizes[5]), params, 0, "
                     "stream);\n"
                     "}}\n",
                     entry_declaration(d, i), callee(d, i));
  }
  std::vector<std::string> args;
  for (size_t a = 0; a < s.arguments.size(); ++a)
    args.push_back(call_argument(s.arguments[a], a, false));
  return out + fmt::format("{} {{ {}({}); }}\n", entry_declaration(d, i), callee(d, i),
                           fmt::join(args, ", "));
}

std::string launch_declarations(const DeployedFamily& d) {
  const FileSpec& s = d.family->spec();
  std::vector<std::string> args;
  for (const auto& a : s.arguments)
    if (!a.scalar)
      args.push_back(fmt::format("{}[{}{}]", a.name,
                                 a.lanes > 1 ? fmt::format("{} * ", a.lanes) : "", a.size));
  std::string out = fmt::format(
      "// {} (problem file {}): runs the config the selector picks for the problem features\n"
      "// on {}{} (sizes in elements).\n"
      "// Throws std::invalid_argument when no shipped config can launch on the problem.\n",
      s.name, fs::path(s.path).filename().string(), fmt::join(args, ", "),
      d.cuda() ? ", in device memory, on `stream`; returns the launch's error" : "");
  out +=
      fmt::format("{} {}({});\n", d.cuda() ? "cudaError_t" : "void", s.name, parameters(d, true));
  out += fmt::format(
      "// The config {} runs for the problem (one of the shipped configs' strings).\n"
      "const char* {}_config({});\n",
      s.name, s.name, features_list(s, "double "));
  return out;
}

std::string launch_unit(const DeployedFamily& d) {
  const FileSpec& s = d.family->spec();
  const FileFamily& f = *d.family;
  std::vector<std::string> launch_vars = s.features, scalar_values, params, entries, checks;
  for (const auto& p : s.params)
    if (p.type != ParamType::string_) launch_vars.push_back(p.name);
  for (const auto& a : s.arguments)
    if (a.scalar) scalar_values.push_back(a.value);
  for (size_t i = 0; i < d.configs.size(); ++i) {
    const Config c = f.space().parse(d.configs[i]);
    std::vector<std::string> numbers;
    for (size_t p = 0; p < s.params.size(); ++p)
      if (s.params[p].type != ParamType::string_)
        numbers.push_back(fmt::format("{}", s.params[p].numbers[size_t(c.index[p])]));
    params.push_back(fmt::format("{{{}}}", fmt::join(numbers, ", ")));
    entries.push_back(fmt::format("{}_{}", d.prefix(), i));
    checks.push_back(fmt::format("static_assert(std::string_view(sel::kConfigs[{}]) == {});", i,
                                 quoted(d.configs[i])));
  }
  std::vector<std::string> sizes;
  for (const auto* list : {&s.global_size, &s.local_size})
    for (const auto& e : *list) sizes.push_back(e);

  std::string out = fmt::format(
      "// Generated by ktune deploy: {0}\n"
      "// {1}: the selector's pick ({2}), its launch sizes and the scalar arguments from the\n"
      "// problem file's expressions (runtime.hpp), then the pick's instantiation\n"
      "// ({1}_config_<i>).\n"
      "#include <string>\n#include <string_view>\n#include <vector>\n\n"
      "#include \"../{2}\"\n#include \"ktune_tuned/{3}.hpp\"\n#include \"runtime.hpp\"\n\n",
      d.command, s.name, d.selector, d.library);
  for (size_t i = 0; i < d.configs.size(); ++i) out += entry_declaration(d, i) + ";\n";
  std::vector<std::string> model_order;
  for (const auto& m : d.model_features) model_order.push_back(m);
  out += fmt::format(
      "\nnamespace {{\n\n"
      "namespace sel = {0}_selector;\n"
      "static_assert(sel::kNumConfigs == {1});\n{2}\n\n"
      "using Entry = {3};\n"
      "constexpr Entry kEntries[{1}] = {{{4}}};\n\n"
      "ktune_tuned_runtime::Family& family() {{\n"
      "  // One per thread: muparser reads its variables from the object's own slots.\n"
      "  static thread_local ktune_tuned_runtime::Family f(\n"
      "      \"ktune_tuned::{5}::{6}\", {{{7}}},\n"
      "      {{{8}}},\n"
      "      {{{9}}},\n"
      "      {{{10}}},\n"
      "      {{{11}}}, {12});\n"
      "  return f;\n"
      "}}\n\n"
      "int pick({13}) {{\n"
      "  return family().pick(sel::select(sel::Features{{{14}}}), sel::kSafeOrder, {{{15}}});\n"
      "}}\n\n"
      "}}  // namespace\n\n"
      "namespace ktune_tuned::{5} {{\n\n"
      "const char* {6}_config({13}) {{ return sel::kConfigs[pick({15})]; }}\n\n",
      d.prefix(), d.configs.size(), fmt::join(checks, "\n"),
      d.cuda() ? "cudaError_t (*)(void**, const unsigned*, cudaStream_t)"
               : "void (*)(void* const*)",
      fmt::join(entries, ", "), d.library, s.name, fmt::join(quoted_all(s.features), ", "),
      fmt::join(quoted_all(launch_vars), ", "), fmt::join(quoted_all(sizes), ", "),
      fmt::join(quoted_all(scalar_values), ", "), fmt::join(params, ", "),
      s.global_in_threads ? "true" : "false", features_list(s, "double "),
      fmt::join(model_order, ", "), features_list(s, ""));

  // The arguments as the config's entry takes them: a pointer per vector (CPU) or the address
  // of one (CUDA, cudaLaunchKernel's convention), the address of a value per scalar.
  std::string body = fmt::format("  const int c = pick({});\n", features_list(s, ""));
  std::vector<std::string> slots;
  size_t scalar = 0;
  if (!scalar_values.empty())
    body += fmt::format("  const std::vector<double>& values = family().scalars({{{}}});\n",
                        features_list(s, ""));
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    const Argument& a = s.arguments[i];
    if (a.scalar) {
      body += fmt::format("  {0} a{1} = static_cast<{0}>(values[{2}]);\n",
                          element_type_name(a.type), i, scalar++);
      slots.push_back(fmt::format("&a{}", i));
    } else {
      const std::string pointer =
          fmt::format("const_cast<{}*>({})", element_type_name(a.type), a.name);
      if (d.cuda()) {
        body += fmt::format("  void* a{} = {};\n", i, pointer);
        slots.push_back(fmt::format("&a{}", i));
      } else {
        slots.push_back(pointer);
      }
    }
  }
  if (d.cuda())
    body += fmt::format(
        "  void* params[] = {{{}}};\n  return kEntries[c](params, family().sizes(), stream);\n",
        fmt::join(slots, ", "));
  else
    body += fmt::format("  void* const args[] = {{{}}};\n  kEntries[c](args);\n",
                        fmt::join(slots, ", "));
  out +=
      fmt::format("{} {}({}) {{\n{}}}\n\n}}  // namespace ktune_tuned::{}\n",
                  d.cuda() ? "cudaError_t" : "void", s.name, parameters(d, false), body, d.library);
  return out;
}

}  // namespace ktune::filefamily
