#pragma once
// A tuning-problem file in the autotuning community's JSON schema (TuningSchema.json of
// github:odgaard/TuningSchema, read by KTT) plus ktune's documented extensions under "x-ktune"
// (docs/own-kernels.md): problem features and a workload, how parameters reach the kernel, a
// C++ reference function with its tolerance, the work per run and the precision.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::filefamily {

enum class ParamType { int_, uint_, float_, bool_, string_ };

struct TuningParameter {
  std::string name;
  ParamType type = ParamType::int_;
  std::vector<std::string> values;  // canonical spellings (config strings, -D values)
  std::vector<double> numbers;      // the same values as numbers (bool: 0/1); empty for strings
};

struct Condition {
  std::vector<std::string> parameters;
  std::string expression;
};

enum class ElementType { int8, uint8, int16, uint16, int32, uint32, int64, uint64, f32, f64 };
// generator: DataSource is an expression over the element index i (KTT's "Generator").
enum class Fill { constant, random, binary_raw, generator };
enum class Access { read_only, write_only, read_write };
enum class Validation { absolute_difference, side_by_side, side_by_side_relative };

struct Argument {
  std::string name;
  ElementType type = ElementType::f32;
  int lanes = 1;        // float4: 4 elements of float per Size
  bool scalar = false;  // MemoryType Scalar (else Vector)
  std::string size;     // elements (times lanes), an expression over the features
  std::string value;    // a scalar's value, an expression over the features
  Fill fill = Fill::random;
  double fill_value = 0;
  uint64_t seed = 1;
  std::string data_source;  // BinaryRaw: a file, relative to the problem file; Generator: over i
  Access access = Access::read_write;
};

// Expected output given as data (the schema's ReferenceArguments).
struct ReferenceArgument {
  std::string name, target;
  Fill fill = Fill::constant;
  double fill_value = 0;
  uint64_t seed = 1;
  std::string data_source;
  Validation validation = Validation::side_by_side;
  double threshold = 1e-6;
};

enum class BudgetType { duration_s, count, fraction };
struct Budget {
  BudgetType type = BudgetType::count;
  double value = 0;
};

enum class Passing { defines, template_args };

struct ReferenceFunction {
  std::string file, function;  // file relative to the problem file
};

struct FileSpec {
  std::string path;  // the problem file as given (error messages name it)
  std::string dir;   // its folder: relative file names resolve here
  std::string name;  // the family name (x-ktune.Name, else KernelName)

  std::vector<TuningParameter> params;
  std::vector<Condition> conditions;

  std::string language;  // "C++" (host) or "CUDA"
  std::string kernel_file, kernel_name;
  std::vector<std::string> compiler_options;
  std::array<std::string, 3> global_size{"1", "1", "1"}, local_size{"1", "1", "1"};
  bool global_in_threads = false;  // GlobalSizeType OpenCL: threads; CUDA (default): blocks
  std::vector<Argument> arguments;
  std::vector<ReferenceArgument> reference_arguments;
  std::vector<Budget> budget;

  // x-ktune
  std::vector<std::string> features;
  std::vector<std::vector<double>> workload;  // inline problems, feature values in order
  std::string workload_file;                  // or a workload CSV
  Passing passing = Passing::defines;
  std::optional<ReferenceFunction> reference;
  double tolerance = 0;  // relative Frobenius error allowed against the reference function
  std::string work;      // work per run (FLOPs) over the features; "" = none
  std::string precision = "float32";
  // Folders the kernel's includes are searched in, relative to the problem file; load_spec
  // appends them to compiler_options as -I<absolute folder>.
  std::vector<std::string> include_dirs;
};

// Parses the text of a problem file named `path`; checks every field, the expressions (with
// muparser) and the names they use, but reads no other file. Throws Error
// "<path>: <field>: <why>" naming the first bad field.
FileSpec parse_spec(std::string_view text, const std::string& path);
// Reads and parses `path`, then checks that the files it names exist.
FileSpec load_spec(const std::string& path);

std::string element_type_name(ElementType t);  // "float", "int32_t", ...
size_t element_bytes(ElementType t);

}  // namespace ktune::filefamily
