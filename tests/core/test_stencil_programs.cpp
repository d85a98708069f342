// The stencil family's definitions: the generator, instruction mixes, space, features, bad
// inputs and the built-in workloads.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "kernels/stencil/stencil_family.hpp"
#include "kernels/stencil/stencil_programs.hpp"
#include "ktune/error.hpp"
#include "ktune/workload.hpp"
#include "tests/core/stencil_test_util.hpp"

namespace ktune::stencil {
namespace {

const Family& family() {
  register_builtin();
  return find_family("stencil");
}

Scenario synthetic(int n, int s, int e, int w, ElemType type, bool heavy) {
  return test::synthetic(n, s, e, w, type, heavy, 128, 128);
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST(StencilGenerator, SubstitutesBordersIntoOneLoadPerCell) {
  const Scenario s = synthetic(3, 1, 30, 2, ElemType::f32, false);
  const std::string text = generate_synthetic(s);
  EXPECT_EQ(occurrences(text, "in("), size_t(1 + 3 + 1 + 30 + 2)) << text;
  // The furthest cell of each arm and nothing beyond it.
  EXPECT_NE(text.find("in(-3, 0)"), std::string::npos);
  EXPECT_EQ(text.find("in(-4, 0)"), std::string::npos);
  EXPECT_NE(text.find("in(1, 0)"), std::string::npos);
  EXPECT_EQ(text.find("in(2, 0)"), std::string::npos);
  EXPECT_NE(text.find("in(0, 30)"), std::string::npos);
  EXPECT_EQ(text.find("in(0, 31)"), std::string::npos);
  EXPECT_NE(text.find("in(0, -2)"), std::string::npos);
  // Weights follow (i + arm) % 3 + 1: north i=1 -> 2, east (arm 2) i=1 -> 1.
  EXPECT_NE(text.find("acc = acc + T(2) * in(-1, 0);"), std::string::npos) << text;
  EXPECT_NE(text.find("acc = acc + T(1) * in(0, 1);"), std::string::npos) << text;
  EXPECT_EQ(text.find("ktune_sqrt"), std::string::npos);
  EXPECT_EQ(text.find('{', 0) != std::string::npos, true);
  EXPECT_EQ(text.find("{north}"), std::string::npos) << "placeholder left unsubstituted";
}

TEST(StencilGenerator, HeavyBodyAddsSixteenRoundsPerType) {
  const std::string f = generate_synthetic(synthetic(1, 1, 1, 1, ElemType::f64, true));
  EXPECT_EQ(occurrences(f, "ktune_sqrt(acc * acc + T(1))"), 16u) << f;
  const std::string i = generate_synthetic(synthetic(1, 1, 1, 1, ElemType::i32, true));
  EXPECT_EQ(occurrences(i, "% T(1009)"), 16u) << i;
  EXPECT_EQ(i.find("ktune_sqrt"), std::string::npos);
  const std::string simple = generate_synthetic(synthetic(1, 1, 1, 1, ElemType::i32, false));
  EXPECT_EQ(simple.find("1009"), std::string::npos);
}

TEST(StencilGenerator, CppAndCudaSourcesCarryTypeBordersAndFrame) {
  const Scenario s = synthetic(4, 5, 6, 7, ElemType::i32, true);
  const std::string cpp = cpp_source(s);
  EXPECT_NE(cpp.find("#define KTUNE_HD inline"), std::string::npos);
  EXPECT_NE(cpp.find("typedef int ktune_elem;"), std::string::npos);
  EXPECT_NE(cpp.find("#define KTUNE_NORTH 4"), std::string::npos);
  EXPECT_NE(cpp.find("#define KTUNE_WEST 7"), std::string::npos);
  EXPECT_NE(cpp.find("KTUNE_HD T ktune_synthetic(const In& in)"), std::string::npos);
  EXPECT_EQ(cpp.find("__global__"), std::string::npos);
  Scenario d = s;
  d.type = ElemType::f64;
  const std::string cu = cuda_source(d);
  EXPECT_NE(cu.find("typedef double ktune_elem;"), std::string::npos);
  EXPECT_NE(cu.find("#define KTUNE_HD __device__"), std::string::npos);
  EXPECT_NE(cu.find("__global__ void ktune_stencil("), std::string::npos);
  EXPECT_NE(cu.find("#define KTUNE_USER ktune_synthetic"), std::string::npos);
  EXPECT_EQ(cu.find("#include"), std::string::npos) << "NVRTC sources take no headers";
  // The user function precedes the frame that calls it.
  EXPECT_LT(cu.find("ktune_synthetic(const In& in)"), cu.find("__global__"));
  Scenario g;
  g.program = Program::gaussian;
  g.north = g.south = g.east = g.west = 2;
  EXPECT_NE(cuda_source(g).find("KTUNE_HD T ktune_gaussian(const In& in)"), std::string::npos);
}

TEST(StencilInstructionMix, CountsSyntheticOpsByKind) {
  const int cells = 3 + 1 + 30 + 2;
  InstructionMix simple = instruction_mix(synthetic(3, 1, 30, 2, ElemType::f32, false));
  EXPECT_EQ(simple.load, cells + 1);  // the signed offsets in(-1, 0) are not subtractions
  EXPECT_EQ(simple.arith, 2 * cells);
  EXPECT_EQ(simple.compare, 0);
  EXPECT_EQ(simple.special, 0);
  InstructionMix heavy = instruction_mix(synthetic(3, 1, 30, 2, ElemType::f32, true));
  EXPECT_EQ(heavy.arith, 2 * cells + 16 * 4);
  EXPECT_EQ(heavy.special, 16);
  InstructionMix heavy_int = instruction_mix(synthetic(3, 1, 30, 2, ElemType::i32, true));
  EXPECT_EQ(heavy_int.arith, 2 * cells + 16 * 4);
  EXPECT_EQ(heavy_int.special, 0);
}

TEST(StencilInstructionMix, RealProgramsCountTheirWindowLoads) {
  auto mix = [](Program p) {
    Scenario s;
    s.program = p;
    return instruction_mix(s);
  };
  EXPECT_EQ(mix(Program::gaussian).load, 25);
  EXPECT_EQ(mix(Program::gaussian).arith, 24 * 2 + 1 + 1);  // 25 products, 24 sums, / 256
  EXPECT_EQ(mix(Program::life).load, 9);
  EXPECT_GE(mix(Program::life).compare, 9);
  EXPECT_EQ(mix(Program::heat).load, 5);
  EXPECT_EQ(mix(Program::heat).arith, 3 + 4);  // n+s+e+w; c + 0.25 * (sum - 4 * c)
  EXPECT_EQ(mix(Program::sobel).special, 1);
  EXPECT_EQ(mix(Program::sobel).load, 12);
  EXPECT_EQ(mix(Program::nms).load, 9);
  EXPECT_EQ(mix(Program::threshold).load, 1);
  EXPECT_EQ(mix(Program::threshold).arith, 0);
  // Comments (which mention operators) are not counted.
  EXPECT_EQ(count_instructions("// a + b * c\nT f(const In& in) { return in(0, 0); }").arith, 0);
}

TEST(StencilSpace, WorkGroupsArePowersOfTwoUpTo1024) {
  const Space& space = family().space();
  const auto configs = space.enumerate();
  EXPECT_EQ(configs.size(), 65u);
  std::set<std::string> seen;
  for (const auto& c : configs) {
    const WorkGroup wg = work_group_of(space, c);
    EXPECT_GE(wg.size(), 2);
    EXPECT_LE(wg.size(), 1024);
    EXPECT_EQ(wg.rows & (wg.rows - 1), 0);
    EXPECT_EQ(wg.cols & (wg.cols - 1), 0);
    seen.insert(space.to_string(c));
  }
  EXPECT_EQ(seen.size(), 65u);
  for (const char* text : {"wg=1x2", "wg=2x1", "wg=32x32", "wg=1x1024", "wg=1024x1"})
    EXPECT_EQ(space.to_string(space.parse(text)), text);
  EXPECT_THROW(space.parse("wg=1x1"), Error);
  EXPECT_THROW(space.parse("wg=64x32"), Error);
}

TEST(StencilFeatures, DerivedFeaturesMatchTheirNames) {
  const Family& f = family();
  EXPECT_EQ(f.feature_names(),
            (std::vector<std::string>{"program", "north", "south", "east", "west", "type", "heavy",
                                      "boundary", "rows", "cols"}));
  const Problem p = f.make_problem({0, 3, 1, 30, 2, 1, 1, 1, 512, 640});
  const auto names = f.derived_feature_names();
  const auto values = f.derived_features(p);
  ASSERT_EQ(names.size(), values.size());
  auto get = [&](const std::string& n) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == n) return values[i];
    ADD_FAILURE() << n;
    return 0.0;
  };
  EXPECT_EQ(get("elements"), 512.0 * 640);
  EXPECT_EQ(get("elem_bytes"), 4);
  EXPECT_EQ(get("window_cells"), (3 + 1 + 1) * (30 + 2 + 1));
  EXPECT_EQ(get("loads"), 37);
  EXPECT_NEAR(
      get("density_arith") + get("density_compare") + get("density_load") + get("density_special"),
      1.0, 1e-12);
  EXPECT_EQ(f.flops(p), 512.0 * 640 * (2 * 36 + 16 * 4 + 16));
}

void expect_error(const std::vector<double>& v, const std::string& fragment) {
  try {
    family().make_problem(v);
    ADD_FAILURE() << "accepted a bad problem; expected: " << fragment;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(StencilFeatures, BadInputsGiveClearErrors) {
  expect_error({7, 1, 1, 1, 1, 1, 0, 0, 64, 64}, "unknown program 7");
  expect_error({-1, 1, 1, 1, 1, 1, 0, 0, 64, 64}, "unknown program");
  expect_error({0, 20, 20, 1, 1, 1, 0, 0, 40, 64}, "larger than the matrix");
  expect_error({0, 1, 1, 30, 30, 1, 0, 1, 64, 60}, "larger than the matrix");
  expect_error({0, 1, 1, 1, 1, 1, 0, 0, 0, 64}, "zero-sized");
  expect_error({0, 1, 1, 1, 1, 1, 0, 0, 64, 0}, "zero-sized");
  expect_error({0, 1, 1, 1, 1, 3, 0, 0, 64, 64}, "type 3");
  expect_error({0, 31, 1, 1, 1, 1, 0, 0, 64, 64}, "1..30");
  expect_error({0, 0, 1, 1, 1, 1, 0, 0, 64, 64}, "1..30");
  expect_error({1, 1, 1, 1, 1, 1, 0, 0, 64, 64}, "fixed borders north=2");
  expect_error({2, 1, 1, 1, 1, 1, 0, 0, 64, 64}, "does not take type float");
  expect_error({4, 1, 1, 1, 1, 0, 0, 0, 64, 64}, "does not take type int");
  expect_error({3, 1, 1, 1, 1, 1, 1, 0, 64, 64}, "heavy applies to synthetic");
  expect_error({0, 1, 1, 1, 1, 1, 0, 2, 64, 64}, "boundary");
  expect_error({0, 1.5, 1, 1, 1, 1, 0, 0, 64, 64}, "north must be an integer");
}

TEST(StencilWorkloads, BuiltinsLoadAndValidate) {
  const Family& f = family();
  EXPECT_EQ(builtin_workload_names("stencil"),
            (std::vector<std::string>{"synthetic", "real", "stencil-small", "tiny"}));
  EXPECT_EQ(load_workload(f, "tiny").problems.size(), 6u);
  const Workload real = load_workload(f, "real");
  ASSERT_EQ(real.problems.size(), 24u);
  std::set<double> programs, sizes;
  for (const auto& p : real.problems) {
    programs.insert(p.get("program"));
    sizes.insert(p.get("rows"));
  }
  EXPECT_EQ(programs, (std::set<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(sizes, (std::set<double>{512, 1024, 2048, 4096}));
  const Workload syn = load_workload(f, "synthetic");
  EXPECT_EQ(syn.problems.size(), 48u);
  std::set<double> borders, types, heavy, boundary;
  for (const auto& p : syn.problems) {
    EXPECT_EQ(p.get("program"), 0);
    for (const char* d : {"north", "south", "east", "west"}) borders.insert(p.get(d));
    types.insert(p.get("type"));
    heavy.insert(p.get("heavy"));
    boundary.insert(p.get("boundary"));
  }
  EXPECT_EQ(borders.size(), 30u);  // every border size 1..30 appears
  EXPECT_EQ(types.size(), 3u);
  EXPECT_EQ(heavy.size(), 2u);
  EXPECT_EQ(boundary.size(), 2u);
  const Workload small = load_workload(f, "stencil-small");
  EXPECT_EQ(small.problems.size(), 24u);
  for (const auto& p : small.problems) EXPECT_LE(p.get("rows"), 1024);
}

}  // namespace
}  // namespace ktune::stencil
