#include "kernels/stencil/stencil_programs.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "ktune/error.hpp"

namespace ktune::stencil {

namespace {

using T = ElemType;

// What stencil_user.hpp defines for the CPU, as text, so the generated C++ is self-contained.
constexpr const char* kCppPrelude =
    "#include <cmath>\n"
    "#define KTUNE_HD inline\n"
    "inline float ktune_sqrt(float x) { return std::sqrt(x); }\n"
    "inline double ktune_sqrt(double x) { return std::sqrt(x); }\n";

std::string definitions(const Scenario& s) {
  return fmt::format(
      "typedef {} ktune_elem;\n#define KTUNE_NORTH {}\n#define KTUNE_SOUTH {}\n"
      "#define KTUNE_EAST {}\n#define KTUNE_WEST {}\n#define KTUNE_USER {}\n",
      type_name(s.type), s.north, s.south, s.east, s.west, user_function_name(s));
}

// The synthetic template: each {placeholder} is substituted by generate_synthetic.
constexpr const char* kSyntheticTemplate =
    "// Synthetic stencil: borders north={north} south={south} east={east} west={west}, "
    "{body} body.\n"
    "template <typename T, typename In>\n"
    "KTUNE_HD T ktune_synthetic(const In& in) {{\n"
    "  T acc = in(0, 0);\n"
    "{arms}"
    "{rounds}"
    "  return acc;\n"
    "}}\n";

}  // namespace

const std::vector<ProgramInfo>& programs() {
  static const std::vector<ProgramInfo> table = {
      {Program::synthetic, "synthetic", -1, -1, -1, -1, {T::i32, T::f32, T::f64}},
      {Program::gaussian, "gaussian", 2, 2, 2, 2, {T::i32, T::f32, T::f64}},
      {Program::life, "life", 1, 1, 1, 1, {T::i32}},
      {Program::heat, "heat", 1, 1, 1, 1, {T::f32, T::f64}},
      {Program::sobel, "sobel", 1, 1, 1, 1, {T::f32, T::f64}},
      {Program::nms, "nms", 1, 1, 1, 1, {T::i32, T::f32, T::f64}},
      {Program::threshold, "threshold", 0, 0, 0, 0, {T::i32, T::f32, T::f64}},
  };
  return table;
}

const ProgramInfo& program_info(Program p) {
  const int index = int(p);
  if (index < 0 || index >= kProgramCount)
    throw Error(fmt::format("unknown stencil program {}", index));
  return programs()[size_t(index)];
}

std::string user_function_name(const Scenario& s) { return "ktune_" + program_name(s.program); }

std::string generate_synthetic(const Scenario& s) {
  if (s.program != Program::synthetic)
    throw Error("generate_synthetic: program " + program_name(s.program) + " is not synthetic");
  // Arms in order north, south, east, west: offsets (-i,0), (i,0), (0,i), (0,-i).
  const int lengths[4] = {s.north, s.south, s.east, s.west};
  const int dy[4] = {-1, 1, 0, 0}, dx[4] = {0, 0, 1, -1};
  std::string arms;
  for (int arm = 0; arm < 4; ++arm)
    for (int i = 1; i <= lengths[arm]; ++i)
      arms += fmt::format("  acc = acc + T({}) * in({}, {});\n", (i + arm) % 3 + 1, dy[arm] * i,
                          dx[arm] * i);
  std::string rounds;
  if (s.heavy) {
    const std::string round = s.type == ElemType::i32
                                  ? "  acc = (acc * T(7) + T(3)) % T(1009) - T(504);\n"
                                  : "  acc = acc * T(0.5) + ktune_sqrt(acc * acc + T(1));\n";
    for (int r = 0; r < 16; ++r) rounds += round;
  }
  return fmt::format(fmt::runtime(kSyntheticTemplate), fmt::arg("north", s.north),
                     fmt::arg("south", s.south), fmt::arg("east", s.east), fmt::arg("west", s.west),
                     fmt::arg("body", s.heavy ? "heavy" : "simple"), fmt::arg("arms", arms),
                     fmt::arg("rounds", rounds));
}

std::string user_function_source(const Scenario& s) {
  if (s.program == Program::synthetic) return generate_synthetic(s);
  return embedded_file("stencil_" + program_name(s.program) + ".cuh");
}

std::string cpp_source(const Scenario& s) {
  return std::string(kCppPrelude) + definitions(s) + user_function_source(s);
}

std::string cuda_source(const Scenario& s) {
  return embedded_file("stencil_prelude.cuh") + definitions(s) + user_function_source(s) +
         embedded_file("stencil_frame.cuh");
}

InstructionMix count_instructions(const std::string& source) {
  // Strip comments and preprocessor lines, keep the body of the first function.
  std::string code;
  for (size_t i = 0; i < source.size();) {
    if (source.compare(i, 2, "//") == 0 ||
        (source[i] == '#' && (i == 0 || source[i - 1] == '\n'))) {
      while (i < source.size() && source[i] != '\n') ++i;
    } else if (source.compare(i, 2, "/*") == 0) {
      const size_t end = source.find("*/", i + 2);
      i = end == std::string::npos ? source.size() : end + 2;
    } else {
      code += source[i++];
    }
  }
  const size_t open = code.find('{');
  if (open == std::string::npos) return {};
  size_t close = open;
  for (int depth = 0; close < code.size(); ++close) {
    if (code[close] == '{') ++depth;
    if (code[close] == '}' && --depth == 0) break;
  }
  const std::string body = code.substr(open + 1, close - open - 1);

  InstructionMix mix;
  char previous = '(';  // last non-space character: decides unary vs binary minus
  for (size_t i = 0; i < body.size();) {
    const char ch = body[i];
    if (std::isspace(static_cast<unsigned char>(ch))) {
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      size_t end = i;
      while (end < body.size() &&
             (std::isalnum(static_cast<unsigned char>(body[end])) || body[end] == '_'))
        ++end;
      const std::string word = body.substr(i, end - i);
      size_t next = end;
      while (next < body.size() && body[next] == ' ') ++next;
      const bool call = next < body.size() && body[next] == '(';
      if (call && word == "in") ++mix.load;
      if (call && word == "ktune_sqrt") ++mix.special;
      i = end;
      previous = 'a';
      continue;
    }
    const std::string two = body.substr(i, 2);
    if (two == "==" || two == "!=" || two == "<=" || two == ">=" || two == "&&" || two == "||") {
      ++mix.compare;
      i += 2;
      previous = '=';
      continue;
    }
    if (two == "+=" || two == "-=" || two == "*=" || two == "/=" || two == "%=") {
      ++mix.arith;
      i += 2;
      previous = '=';
      continue;
    }
    const bool operand_before = std::isalnum(static_cast<unsigned char>(previous)) ||
                                previous == ')' || previous == '_' || previous == ']';
    if (ch == '<' || ch == '>' || ch == '?' || ch == '!') ++mix.compare;
    if (ch == '*' || ch == '/' || ch == '%') ++mix.arith;
    if ((ch == '+' || ch == '-') && operand_before) ++mix.arith;  // not a sign
    previous = ch;
    ++i;
  }
  return mix;
}

InstructionMix instruction_mix(const Scenario& s) {
  // Real programs' texts never change: count once.
  static const std::map<int, InstructionMix> real = [] {
    std::map<int, InstructionMix> out;
    for (const auto& info : programs()) {
      if (info.id == Program::synthetic) continue;
      out[int(info.id)] = count_instructions(embedded_file("stencil_" + info.name + ".cuh"));
    }
    return out;
  }();
  if (s.program != Program::synthetic) return real.at(int(s.program));
  return count_instructions(generate_synthetic(s));
}

}  // namespace ktune::stencil
