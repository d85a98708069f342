#include "kernels/stencil/stencil_family.hpp"

#include <fmt/format.h>

#include <cmath>

#include "kernels/stencil/stencil_programs.hpp"
#include "ktune/enum_names.hpp"
#include "ktune/error.hpp"

namespace ktune::stencil {

namespace {

const std::vector<std::string> kFeatureNames = {"program", "north", "south",    "east", "west",
                                                "type",    "heavy", "boundary", "rows", "cols"};

// Work-groups R x C, R and C powers of two, 2 <= R*C <= 1024; rows-major then cols.
std::vector<std::string> work_group_values() {
  std::vector<std::string> values;
  for (int r = 1; r <= 1024; r *= 2)
    for (int c = 1; r * c <= 1024; c *= 2)
      if (r * c >= 2) values.push_back(fmt::format("{}x{}", r, c));
  return values;
}

bool is_integer(double v) { return std::isfinite(v) && std::floor(v) == v; }

}  // namespace

std::string program_name(Program p) { return program_info(p).name; }

std::string type_name(ElemType t) {
  static constexpr EnumName<ElemType> kTypes[] = {
      {ElemType::i32, "int"}, {ElemType::f32, "float"}, {ElemType::f64, "double"}};
  return enum_name(kTypes, t);
}

size_t elem_bytes(ElemType t) { return t == ElemType::f64 ? 8 : 4; }

Scenario scenario_of(const Problem& p) {
  auto get = [&](const char* name) {
    const double v = p.get(name);
    if (!is_integer(v))
      throw Error(fmt::format("stencil problem '{}': {} must be an integer", p.key(), name));
    return v;
  };
  auto fail = [&](const std::string& what) {
    throw Error(fmt::format("stencil problem '{}': {}", p.key(), what));
  };
  Scenario s;
  const double program = get("program");
  if (program < 0 || program >= kProgramCount)
    fail(
        fmt::format("unknown program {} (0 synthetic, 1 gaussian, 2 life, 3 heat, 4 sobel, "
                    "5 nms, 6 threshold)",
                    program));
  s.program = Program(int(program));
  const double type = get("type");
  if (type < 0 || type > 2)
    fail(fmt::format("type {} is not 0 (int), 1 (float) or 2 (double)", type));
  s.type = ElemType(int(type));
  const double heavy = get("heavy"), boundary = get("boundary");
  if (heavy != 0 && heavy != 1) fail("heavy must be 0 or 1");
  if (boundary != 0 && boundary != 1) fail("boundary must be 0 (padding) or 1 (clamp)");
  s.heavy = heavy == 1;
  s.boundary = Boundary(int(boundary));
  const double rows = get("rows"), cols = get("cols");
  if (rows < 1 || cols < 1) fail("rows and cols must be at least 1 (zero-sized data)");
  if (rows * cols > 2147483647.0) fail("rows * cols exceeds 2^31 - 1 elements");
  s.rows = int64_t(rows);
  s.cols = int64_t(cols);
  const double borders[4] = {get("north"), get("south"), get("east"), get("west")};
  const ProgramInfo& info = program_info(s.program);
  if (s.program == Program::synthetic) {
    for (double b : borders)
      if (b < 1 || b > kMaxSyntheticBorder)
        fail(fmt::format("synthetic border sizes must be 1..{}", kMaxSyntheticBorder));
  } else {
    if (borders[0] != info.north || borders[1] != info.south || borders[2] != info.east ||
        borders[3] != info.west)
      fail(fmt::format("program {} has fixed borders north={} south={} east={} west={}", info.name,
                       info.north, info.south, info.east, info.west));
    if (s.heavy) fail(fmt::format("heavy applies to synthetic programs only, not {}", info.name));
  }
  s.north = int(borders[0]);
  s.south = int(borders[1]);
  s.east = int(borders[2]);
  s.west = int(borders[3]);
  bool type_ok = false;
  for (ElemType t : info.types) type_ok |= t == s.type;
  if (!type_ok) fail(fmt::format("program {} does not take type {}", info.name, type_name(s.type)));
  if (s.window_rows() > s.rows || s.window_cols() > s.cols)
    fail(fmt::format("the stencil window ({}x{}) is larger than the matrix ({}x{})",
                     s.window_rows(), s.window_cols(), s.rows, s.cols));
  return s;
}

Problem problem_of(const Scenario& s, std::vector<std::string> tags) {
  Problem p;
  p.names = kFeatureNames;
  p.values = {double(int(s.program)), double(s.north),         double(s.south),
              double(s.east),         double(s.west),          double(int(s.type)),
              s.heavy ? 1.0 : 0.0,    double(int(s.boundary)), double(s.rows),
              double(s.cols)};
  p.tags = std::move(tags);
  return p;
}

WorkGroup work_group_of(const Space& space, const Config& c) {
  const std::string& wg = space.value(c, "wg");
  const size_t x = wg.find('x');
  return {std::stoi(wg.substr(0, x)), std::stoi(wg.substr(x + 1))};
}

StencilFamily::StencilFamily() : space_("stencil", {{"wg", work_group_values()}}) {}

std::vector<std::string> StencilFamily::feature_names() const { return kFeatureNames; }

std::vector<std::string> StencilFamily::derived_feature_names() const {
  return {"elements",        "elem_bytes",   "window_cells",   "halo_cells", "ops",
          "loads",           "arith",        "compare",        "special",    "density_arith",
          "density_compare", "density_load", "density_special"};
}

std::vector<double> StencilFamily::derived_features(const Problem& p) const {
  const Scenario s = scenario_of(p);
  const InstructionMix mix = instruction_mix(s);
  const double window = double(s.window_rows()) * s.window_cols();
  const double total = std::max(1, mix.total());
  return {double(s.elements()), double(elem_bytes(s.type)), window,
          window - 1,           double(mix.ops()),          double(mix.load),
          double(mix.arith),    double(mix.compare),        double(mix.special),
          mix.arith / total,    mix.compare / total,        mix.load / total,
          mix.special / total};
}

double StencilFamily::flops(const Problem& p) const {
  const Scenario s = scenario_of(p);
  return double(s.elements()) * std::max(1, instruction_mix(s).ops());
}

}  // namespace ktune::stencil
