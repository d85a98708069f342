// Reads a tuning-problem file (spec.hpp): the schema's fields, then ktune's "x-ktune" object.
#include "src/filefamily/spec.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ktune/enum_names.hpp"
#include "ktune/error.hpp"
#include "ktune/json_limits.hpp"
#include "src/filefamily/expression.hpp"
#include "src/filefamily/json_field.hpp"

namespace ktune::filefamily {
namespace {

namespace fs = std::filesystem;

// The JSON spellings of the scalar types; the C++ ones add "_t" to the integers'.
constexpr EnumName<ElementType> kScalarTypes[] = {
    {ElementType::int8, "int8"},   {ElementType::uint8, "uint8"},
    {ElementType::int16, "int16"}, {ElementType::uint16, "uint16"},
    {ElementType::int32, "int32"}, {ElementType::uint32, "uint32"},
    {ElementType::int64, "int64"}, {ElementType::uint64, "uint64"},
    {ElementType::f32, "float"},   {ElementType::f64, "double"}};
using nlohmann::json;

// Names become C++ macros, template arguments and muparser variables.
bool identifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string identifier_of(const JsonField& f) {
  const std::string s = f.str();
  if (!identifier(s)) f.fail(fmt::format("'{}' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)", s));
  return s;
}

// An expression over `names`, checked now; the text is kept.
std::string expression_of(const JsonField& f, const std::vector<std::string>& names) {
  std::string text;
  if (f.json().is_number_integer())
    text = std::to_string(f.json().get<long long>());
  else
    text = f.str();
  try {
    Expression check(text, names);
  } catch (const Error& e) {
    f.fail(e.what());
  }
  return text;
}

// One typed value of a parameter: its canonical spelling and its number.
void add_value(const json& v, size_t index, const JsonField& f, TuningParameter& p) {
  auto fail = [&](const std::string& why) { f.fail(fmt::format("value {}: {}", index, why)); };
  std::string text;
  double number = 0;
  switch (p.type) {
    case ParamType::int_:
    case ParamType::uint_:
      if (!v.is_number_integer()) fail(fmt::format("{} is not an integer", v.dump()));
      if (p.type == ParamType::uint_ && v.get<long long>() < 0)
        fail(fmt::format("{} is negative in a uint parameter", v.dump()));
      number = double(v.get<long long>());
      text = std::to_string(v.get<long long>());
      break;
    case ParamType::float_:
      if (!v.is_number() || !std::isfinite(v.get<double>()))
        fail(fmt::format("{} is not a finite number", v.dump()));
      number = v.get<double>();
      text = v.is_number_integer() ? std::to_string(v.get<long long>()) : fmt::format("{}", number);
      break;
    case ParamType::bool_:
      if (v.is_boolean())
        number = v.get<bool>() ? 1 : 0;
      else if (v.is_number_integer() && (v.get<long long>() == 0 || v.get<long long>() == 1))
        number = double(v.get<long long>());
      else
        fail(fmt::format("{} is not a bool (true, false, 0, 1)", v.dump()));
      text = number != 0 ? "true" : "false";
      break;
    case ParamType::string_:
      if (!v.is_string()) fail(fmt::format("{} is not a string", v.dump()));
      text = v.get<std::string>();
      // Config strings are "a=1;b=x" and lists of them are comma-separated.
      if (text.empty() || text.find_first_of(";=, \t\n\"\\") != std::string::npos)
        fail(fmt::format("'{}': string values are non-empty and hold no ; = , space, quote", text));
      break;
  }
  for (const auto& seen : p.values)
    if (seen == text) fail(fmt::format("value {} appears twice", text));
  p.values.push_back(text);
  if (p.type != ParamType::string_) p.numbers.push_back(number);
}

// "Values" is a string holding a list ("[1, 2, 4]", as KTT writes it); a JSON array is taken too.
void read_values(const JsonField& f, TuningParameter& p) {
  json list;
  if (f.json().is_array()) {
    list = f.json();
  } else {
    const std::string text = f.str();
    list = json::parse(text, nullptr, false);
    if (list.is_discarded() || !list.is_array())
      f.fail(fmt::format("'{}' is not a list of values such as \"[1, 2, 4]\"", text));
  }
  if (list.empty()) f.fail("has no values");
  if (list.size() > 100000) f.fail("has more than 100000 values");
  for (size_t i = 0; i < list.size(); ++i) add_value(list[i], i, f, p);
}

void read_space(const JsonField& space, FileSpec& s) {
  const JsonField params = space.at("TuningParameters");
  if (params.size() == 0) params.fail("has no parameters");
  double product = 1;
  for (size_t i = 0; i < params.size(); ++i) {
    TuningParameter p;
    p.name = identifier_of(params[i].at("Name"));
    for (const auto& q : s.params)
      if (q.name == p.name) params[i].at("Name").fail(fmt::format("'{}' appears twice", p.name));
    p.type = ParamType(params[i].at("Type").choice({"int", "uint", "float", "bool", "string"}));
    read_values(params[i].at("Values"), p);
    product *= double(p.values.size());
    s.params.push_back(std::move(p));
  }
  if (product > 1e8) params.fail(fmt::format("{:.0f} configs: more than 1e8", product));
  const auto conditions = space.get("Conditions");
  if (!conditions) return;
  for (size_t i = 0; i < conditions->size(); ++i) {
    const JsonField c = (*conditions)[i];
    Condition cond;
    const JsonField names = c.at("Parameters");
    for (size_t k = 0; k < names.size(); ++k) {
      const std::string name = names[k].str();
      const auto it = std::find_if(s.params.begin(), s.params.end(),
                                   [&](const TuningParameter& p) { return p.name == name; });
      if (it == s.params.end()) names[k].fail(fmt::format("'{}' is not a tuning parameter", name));
      if (it->type == ParamType::string_)
        names[k].fail(fmt::format("'{}' holds strings, which conditions cannot compare", name));
      cond.parameters.push_back(name);
    }
    cond.expression = expression_of(c.at("Expression"), cond.parameters);
    s.conditions.push_back(std::move(cond));
  }
}

ElementType element_type(const JsonField& f, int& lanes) {
  const std::string s = f.str();
  for (const auto& [type, name] : kScalarTypes) {
    if (s == name) return type;
    for (int n : {2, 4, 8, 16})
      if ((type == ElementType::f32 || type == ElementType::f64) && s == name + std::to_string(n)) {
        lanes = n;
        return type;
      }
  }
  f.fail(fmt::format("'{}' is not supported (int8..uint64, float[N], double[N])", s));
}

Fill fill_of(const JsonField& f) {
  const size_t i =
      f.choice({"Constant", "Random", "Generator", "Script", "BinaryRaw", "BinaryHDF"});
  if (i == 0) return Fill::constant;
  if (i == 1) return Fill::random;
  if (i == 2) return Fill::generator;
  if (i == 4) return Fill::binary_raw;
  f.fail(fmt::format("'{}' is not supported (Constant, Random, Generator, BinaryRaw)", f.str()));
}

uint64_t seed_of(const JsonField& parent) {
  const auto seed = parent.get("RandomSeed");
  return seed ? uint64_t(seed->integer()) : 1;
}

std::string data_source_of(const JsonField& parent, Fill fill) {
  if (fill == Fill::generator) return expression_of(parent.at("DataSource"), {"i"});
  if (fill != Fill::binary_raw) return "";
  const std::string file = parent.at("DataSource").str();
  if (file.empty()) parent.at("DataSource").fail("is empty");
  return file;
}

void read_arguments(const JsonField& kernel, FileSpec& s) {
  const JsonField args = kernel.at("Arguments");
  bool has_output = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const JsonField a = args[i];
    Argument arg;
    arg.name = a.get("Name") ? identifier_of(a.at("Name")) : fmt::format("arg{}", i);
    arg.type = element_type(a.at("Type"), arg.lanes);
    const size_t memory = a.at("MemoryType").choice({"Scalar", "Vector", "Local", "Symbol"});
    if (memory > 1) a.at("MemoryType").fail("only Scalar and Vector arguments are supported");
    arg.scalar = memory == 0;
    if (auto access = a.get("AccessType"))
      arg.access = Access(access->choice({"ReadOnly", "WriteOnly", "ReadWrite"}));
    arg.fill = a.get("FillType") ? fill_of(a.at("FillType")) : Fill::constant;
    if (auto value = a.get("FillValue")) arg.fill_value = value->number();
    arg.seed = seed_of(a);
    arg.data_source = data_source_of(a, arg.fill);
    const auto ext = a.get("x-ktune");
    if (arg.scalar) {
      if (arg.lanes != 1) a.at("Type").fail("a scalar argument has one lane");
      arg.access = Access::read_only;
      if (ext && ext->get("Value"))
        arg.value = expression_of(ext->at("Value"), s.features);
      else
        arg.value = fmt::format("{}", arg.fill_value);
    } else if (ext && ext->get("Size")) {
      arg.size = expression_of(ext->at("Size"), s.features);
    } else {
      const long long size = a.at("Size").integer();
      if (size < 1) a.at("Size").fail(fmt::format("{} is not a positive count", size));
      arg.size = std::to_string(size);
    }
    for (const auto& b : s.arguments)
      if (b.name == arg.name) a.at("Name").fail(fmt::format("'{}' appears twice", arg.name));
    has_output |= !arg.scalar && arg.access != Access::read_only;
    s.arguments.push_back(std::move(arg));
  }
  if (!has_output) args.fail("no WriteOnly or ReadWrite vector: nothing to verify");
}

void read_reference_arguments(const JsonField& list, FileSpec& s) {
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonField r = list[i];
    ReferenceArgument ref;
    ref.name = r.at("Name").str();
    ref.target = r.at("TargetName").str();
    const auto it = std::find_if(s.arguments.begin(), s.arguments.end(),
                                 [&](const Argument& a) { return a.name == ref.target; });
    if (it == s.arguments.end() || it->scalar || it->access == Access::read_only)
      r.at("TargetName").fail(fmt::format("'{}' is not an output vector argument", ref.target));
    ref.fill = fill_of(r.at("FillType"));
    if (ref.fill == Fill::random) r.at("FillType").fail("a random reference checks nothing");
    if (auto value = r.get("FillValue")) ref.fill_value = value->number();
    ref.seed = seed_of(r);
    ref.data_source = data_source_of(r, ref.fill);
    if (auto method = r.get("ValidationMethod"))
      ref.validation = Validation(method->choice(
          {"AbsoluteDifference", "SideBySideComparison", "SideBySideRelativeComparison"}));
    if (auto t = r.get("ValidationThreshold")) {
      ref.threshold = t->number();
      if (!(ref.threshold >= 0)) t->fail("is not a non-negative number");
    }
    s.reference_arguments.push_back(std::move(ref));
  }
}

void read_sizes(const JsonField& f, std::array<std::string, 3>& out,
                const std::vector<std::string>& names) {
  out[0] = expression_of(f.at("X"), names);
  if (auto y = f.get("Y")) out[1] = expression_of(*y, names);
  if (auto z = f.get("Z")) out[2] = expression_of(*z, names);
}

void read_kernel(const JsonField& kernel, FileSpec& s) {
  const JsonField language = kernel.at("Language");
  s.language = language.str();
  if (s.language != "C++" && s.language != "CUDA")
    language.fail(fmt::format("'{}' is not supported (C++ for the CPU, CUDA)", s.language));
  s.kernel_name = identifier_of(kernel.at("KernelName"));
  s.kernel_file = kernel.at("KernelFile").str();
  if (s.kernel_file.empty()) kernel.at("KernelFile").fail("is empty");
  if (auto options = kernel.get("CompilerOptions"))
    for (size_t i = 0; i < options->size(); ++i) s.compiler_options.push_back((*options)[i].str());
  std::vector<std::string> names = s.features;  // sizes may use features and numeric params
  for (const auto& p : s.params)
    if (p.type != ParamType::string_) names.push_back(p.name);
  read_sizes(kernel.at("GlobalSize"), s.global_size, names);
  if (auto type = kernel.get("GlobalSizeType")) {
    const size_t t = type->choice({"OpenCL", "CUDA", "Vulkan"});
    if (t == 2) type->fail("'Vulkan' is not supported (OpenCL, CUDA)");
    s.global_in_threads = t == 0;
  }
  read_sizes(kernel.at("LocalSize"), s.local_size, names);
  read_arguments(kernel, s);
  if (auto refs = kernel.get("ReferenceArguments")) read_reference_arguments(*refs, s);
}

void read_budget(const JsonField& list, FileSpec& s) {
  for (size_t i = 0; i < list.size(); ++i) {
    Budget b;
    b.type = BudgetType(list[i].at("Type").choice(
        {"TuningDuration", "ConfigurationCount", "ConfigurationFraction"}));
    const JsonField value = list[i].at("BudgetValue");
    b.value = value.number();
    if (!(b.value > 0) || !std::isfinite(b.value)) value.fail("is not a positive number");
    if (b.type == BudgetType::fraction && b.value > 1) value.fail("a fraction is at most 1");
    s.budget.push_back(b);
  }
}

// Features first: the kernel's size expressions use them.
void read_features(const std::optional<JsonField>& ext, FileSpec& s) {
  if (!ext || !ext->get("Features")) {
    s.features = {"problem"};  // a plain schema file: one problem of fixed sizes
    s.workload = {{1}};
    return;
  }
  const JsonField features = ext->at("Features");
  for (size_t i = 0; i < features.size(); ++i) {
    const std::string name = identifier_of(features[i]);
    if (std::find(s.features.begin(), s.features.end(), name) != s.features.end())
      features[i].fail(fmt::format("'{}' appears twice", name));
    for (const auto& p : s.params)
      if (p.name == name) features[i].fail(fmt::format("'{}' is also a tuning parameter", name));
    s.features.push_back(name);
  }
  if (s.features.empty()) features.fail("names no feature");
  const JsonField workload = ext->at("Workload");
  if (workload.json().is_string()) {
    s.workload_file = workload.str();
    if (s.workload_file.empty()) workload.fail("is empty");
    return;
  }
  if (workload.size() == 0) workload.fail("has no problem");
  for (size_t i = 0; i < workload.size(); ++i) {
    std::vector<double> values;
    for (const auto& name : s.features) {
      const double v = workload[i].at(name).number();
      if (!std::isfinite(v)) workload[i].at(name).fail("is not finite");
      values.push_back(v);
    }
    s.workload.push_back(std::move(values));
  }
}

void read_extension(const JsonField& ext, FileSpec& s) {
  if (auto name = ext.get("Name")) s.name = identifier_of(*name);
  if (auto passing = ext.get("Parameters"))
    s.passing = Passing(passing->choice({"defines", "template"}));
  if (auto ref = ext.get("Reference")) {
    s.reference = ReferenceFunction{ref->at("File").str(), identifier_of(ref->at("Function"))};
    if (s.reference->file.empty()) ref->at("File").fail("is empty");
    if (auto tol = ref->get("Tolerance")) {
      s.tolerance = tol->number();
      if (!(s.tolerance >= 0) || !std::isfinite(s.tolerance))
        tol->fail("is not a non-negative number");
    }
  }
  if (auto work = ext.get("Work")) s.work = expression_of(*work, s.features);
  if (auto dirs = ext.get("IncludeDirs"))
    for (size_t i = 0; i < dirs->size(); ++i) {
      s.include_dirs.push_back((*dirs)[i].str());
      if (s.include_dirs.back().empty()) (*dirs)[i].fail("is empty");
    }
  if (auto precision = ext.get("Precision"))
    s.precision = precision->choice({"float32", "float64"}) == 0 ? "float32" : "float64";
}

}  // namespace

FileSpec parse_spec(std::string_view text, const std::string& path) {
  check_json_depth(text, path);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  FileSpec s;
  s.path = path;
  s.dir = fs::path(path).parent_path().string();
  const JsonField top(root, path, "");
  if (!root.is_object()) top.fail("is not an object");
  const auto ext = top.get("x-ktune");
  if (ext && !ext->json().is_object()) ext->fail("is not an object");
  read_space(top.at("ConfigurationSpace"), s);
  read_features(ext, s);
  const JsonField kernel = top.at("KernelSpecification");
  read_kernel(kernel, s);
  if (auto budget = top.get("Budget")) read_budget(*budget, s);
  s.name = s.kernel_name;
  if (ext) read_extension(*ext, s);
  if (!s.reference && s.reference_arguments.empty())
    kernel.fail("neither ReferenceArguments nor x-ktune.Reference: configs cannot be verified");
  if (s.tolerance == 0) s.tolerance = s.precision == "float32" ? 1e-5 : 1e-12;
  return s;
}

FileSpec load_spec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot read the file", path));
  std::ostringstream text;
  text << in.rdbuf();
  FileSpec s = parse_spec(text.str(), path);
  auto must_exist = [&](const std::string& file, const std::string& field) {
    if (!fs::is_regular_file(fs::path(s.dir) / file))
      throw Error(fmt::format("{}: {}: '{}' is not a file", path, field, file));
  };
  must_exist(s.kernel_file, "KernelSpecification.KernelFile");
  if (s.reference) must_exist(s.reference->file, "x-ktune.Reference.File");
  if (!s.workload_file.empty()) must_exist(s.workload_file, "x-ktune.Workload");
  for (size_t i = 0; i < s.include_dirs.size(); ++i) {
    const fs::path dir = fs::path(s.dir) / s.include_dirs[i];
    if (!fs::is_directory(dir))
      throw Error(fmt::format("{}: x-ktune.IncludeDirs[{}]: '{}' is not a folder", path, i,
                              s.include_dirs[i]));
    // Absolute, so the compilers (run from anywhere) and a deployed package find it.
    s.compiler_options.push_back("-I" + fs::weakly_canonical(fs::absolute(dir)).string());
  }
  for (size_t i = 0; i < s.arguments.size(); ++i)
    if (s.arguments[i].fill == Fill::binary_raw)
      must_exist(s.arguments[i].data_source,
                 fmt::format("KernelSpecification.Arguments[{}].DataSource", i));
  for (size_t i = 0; i < s.reference_arguments.size(); ++i)
    if (s.reference_arguments[i].fill == Fill::binary_raw)
      must_exist(s.reference_arguments[i].data_source,
                 fmt::format("KernelSpecification.ReferenceArguments[{}].DataSource", i));
  return s;
}

std::string element_type_name(ElementType t) {
  const std::string name = enum_name(kScalarTypes, t);
  return t == ElementType::f32 || t == ElementType::f64 ? name : name + "_t";
}

size_t element_bytes(ElementType t) {
  switch (t) {
    case ElementType::int8:
    case ElementType::uint8:
      return 1;
    case ElementType::int16:
    case ElementType::uint16:
      return 2;
    case ElementType::int32:
    case ElementType::uint32:
    case ElementType::f32:
      return 4;
    default:
      return 8;
  }
}

}  // namespace ktune::filefamily
