// The stencil reference (checked by hand on small cases), the CPU backend against it for every
// program, type and boundary on odd sizes with work-groups that do not divide the matrix, the
// verification and the backend's sessions.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/stencil/cpu/stencil_cpu.hpp"
#include "kernels/stencil/stencil_family.hpp"
#include "kernels/stencil/stencil_programs.hpp"
#include "kernels/stencil/stencil_reference.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "tests/core/stencil_test_util.hpp"

namespace ktune::stencil {
namespace {

using test::real;

HostMatrix filled(const Scenario& s, const std::vector<double>& values) {
  HostMatrix m(s.type, s.rows, s.cols);
  for (size_t i = 0; i < values.size(); ++i) {
    if (s.type == ElemType::i32) m.data<int32_t>()[i] = int32_t(values[i]);
    if (s.type == ElemType::f32) m.data<float>()[i] = float(values[i]);
    if (s.type == ElemType::f64) m.data<double>()[i] = values[i];
  }
  return m;
}

TEST(StencilReference, HeatAtACornerUnderBothBoundaries) {
  Scenario s = real(Program::heat, ElemType::f64, Boundary::pad, 3, 4);
  const HostMatrix in = random_input(s, 7);
  const double c = in.at(0, 0), south = in.at(1, 0), east = in.at(0, 1);
  // NEAR: the library may contract c + 0.25 * x into an FMA where this file does not.
  EXPECT_NEAR(reference_stencil(s, in).at(0, 0), c + 0.25 * (south + east - 4 * c), 1e-15);
  s.boundary = Boundary::clamp;  // north and west repeat the corner itself
  EXPECT_NEAR(reference_stencil(s, in).at(0, 0), c + 0.25 * (c + south + east + c - 4 * c), 1e-15);
}

TEST(StencilReference, GaussianOfOnesIsOneWithClampAndLosesTheOutsideWithPadding) {
  Scenario s = real(Program::gaussian, ElemType::f32, Boundary::clamp, 6, 7);
  const HostMatrix ones = filled(s, std::vector<double>(42, 1.0));
  const HostMatrix clamped = reference_stencil(s, ones);
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t c = 0; c < 7; ++c) EXPECT_EQ(clamped.at(r, c), 1.0);
  s.boundary = Boundary::pad;
  const HostMatrix padded = reference_stencil(s, ones);
  EXPECT_EQ(padded.at(0, 0), 121.0 / 256);  // weights (6+4+1)^2 remain inside
  EXPECT_EQ(padded.at(1, 3), (4 + 6 + 4 + 1) * 16.0 / 256);
  EXPECT_EQ(padded.at(3, 3), 1.0);
}

TEST(StencilReference, LifeBlinkerOscillatesAndClampChangesTheEdge) {
  Scenario s = real(Program::life, ElemType::i32, Boundary::pad, 5, 5);
  std::vector<double> v(25, 0);
  v[1 * 5 + 2] = v[2 * 5 + 2] = v[3 * 5 + 2] = 1;  // vertical blinker
  const HostMatrix next = reference_stencil(s, filled(s, v));
  for (int64_t r = 0; r < 5; ++r)
    for (int64_t c = 0; c < 5; ++c)
      EXPECT_EQ(next.at(r, c), (r == 2 && c >= 1 && c <= 3) ? 1 : 0) << r << "," << c;
  // A blinker lying on the top edge: with clamp the row above repeats it, so its end cells
  // see 3 live neighbours instead of 1.
  std::vector<double> edge(25, 0);
  edge[0 * 5 + 1] = edge[0 * 5 + 2] = edge[0 * 5 + 3] = 1;
  const HostMatrix padded = reference_stencil(s, filled(s, edge));
  s.boundary = Boundary::clamp;
  const HostMatrix clamped = reference_stencil(s, filled(s, edge));
  EXPECT_EQ(padded.at(0, 2), 1);
  EXPECT_EQ(padded.at(0, 1), 0);   // 1 neighbour under padding
  EXPECT_EQ(clamped.at(0, 1), 1);  // mirrored row above: 3 neighbours, stays alive
}

TEST(StencilReference, NmsThresholdAndSyntheticByHand) {
  Scenario n = real(Program::nms, ElemType::i32, Boundary::pad, 2, 3);
  const HostMatrix in = filled(n, {5, -2, 7, 4, 9, -1});
  const HostMatrix nms = reference_stencil(n, in);
  EXPECT_EQ(nms.at(0, 0), 0);  // 9 is a neighbour
  EXPECT_EQ(nms.at(1, 1), 9);
  EXPECT_EQ(nms.at(1, 2), 0);  // 9 and the padding 0 exceed -1
  // Threshold: pointwise.
  Scenario t = real(Program::threshold, ElemType::f32, Boundary::pad, 2, 3);
  const HostMatrix th = reference_stencil(t, filled(t, {0.5, -0.25, 2, -3, 1e-3, -1e-3}));
  const double expect[] = {1, 0, 1, 0, 1, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(th.at(i / 3, i % 3), expect[i]);
  // Synthetic, borders 1, int, padding: weights north 2, south 3, east 1, west 2.
  Scenario syn;
  syn.program = Program::synthetic;
  syn.type = ElemType::i32;
  syn.rows = 2, syn.cols = 3;
  const HostMatrix x = filled(syn, {5, -2, 7, 4, 9, -1});
  const HostMatrix y = reference_stencil(syn, x);
  EXPECT_EQ(y.at(0, 0), 5 + 3 * 4 + 1 * -2);
  EXPECT_EQ(y.at(1, 1), 9 + 2 * -2 + 1 * -1 + 2 * 4);
  syn.boundary = Boundary::clamp;
  EXPECT_EQ(reference_stencil(syn, x).at(0, 0), 5 + 2 * 5 + 3 * 4 + 1 * -2 + 2 * 5);
}

const std::vector<WorkGroup> kWorkGroups = {{1, 2}, {4, 8}, {5, 7}, {32, 32}, {1, 1024}, {64, 1}};

void expect_cpu_matches(const Scenario& s, uint64_t seed) {
  const HostMatrix in = random_input(s, seed);
  const HostMatrix ref = reference_stencil(s, in);
  for (const WorkGroup& wg : kWorkGroups) {
    HostMatrix out(s.type, s.rows, s.cols);
    poison(out);
    run_cpu(s, wg, in, out);
    const Verdict v = verify(s, out, ref);
    EXPECT_TRUE(v.ok) << program_name(s.program) << " " << type_name(s.type) << " boundary "
                      << int(s.boundary) << " wg " << wg.rows << "x" << wg.cols << ": "
                      << v.message;
    if (s.type == ElemType::i32) {
      EXPECT_EQ(v.rel_error, 0);
    }
  }
}

TEST(StencilCpu, EveryRealProgramTypeAndBoundaryMatchesTheReference) {
  int cases = 0;
  for (const auto& info : programs()) {
    if (info.id == Program::synthetic) continue;
    for (ElemType type : info.types)
      for (Boundary b : {Boundary::pad, Boundary::clamp}) {
        expect_cpu_matches(real(info.id, type, b, 37, 53), 11 + uint64_t(cases));
        ++cases;
      }
  }
  EXPECT_EQ(cases, 2 * (3 + 1 + 2 + 2 + 3 + 3));
}

TEST(StencilCpu, SyntheticProgramsMatchTheReference) {
  const int borders[][4] = {{1, 1, 1, 1}, {3, 1, 7, 2}, {30, 2, 1, 30}, {5, 30, 30, 1}};
  int i = 0;
  for (const auto& b : borders)
    for (ElemType type : {ElemType::i32, ElemType::f32, ElemType::f64}) {
      Scenario s;
      s.program = Program::synthetic;
      s.north = b[0], s.south = b[1], s.east = b[2], s.west = b[3];
      s.type = type;
      s.heavy = i % 2 == 1;
      s.boundary = (i / 2) % 2 ? Boundary::clamp : Boundary::pad;
      s.rows = 67, s.cols = 71;
      expect_cpu_matches(s, 100 + uint64_t(i));
      ++i;
    }
}

TEST(StencilVerify, CatchesUnwrittenMisplacedAndChangedCells) {
  Scenario s = real(Program::nms, ElemType::i32, Boundary::pad, 37, 53);
  const HostMatrix in = random_input(s, 3);
  const HostMatrix ref = reference_stencil(s, in);
  HostMatrix out = ref;
  EXPECT_TRUE(verify(s, out, ref).ok);
  out.data<int32_t>()[5 * 53 + 7] += 1;
  const Verdict changed = verify(s, out, ref);
  EXPECT_FALSE(changed.ok);
  EXPECT_NE(changed.message.find("(5, 7)"), std::string::npos) << changed.message;
  poison(out);
  EXPECT_FALSE(verify(s, out, ref).ok);

  // Float: one unwritten cell (NaN) fails; so does a stencil reading the wrong neighbour.
  Scenario g = real(Program::gaussian, ElemType::f32, Boundary::clamp, 37, 53);
  const HostMatrix gin = random_input(g, 4);
  const HostMatrix gref = reference_stencil(g, gin);
  HostMatrix gout = gref;
  gout.data<float>()[100] = std::nanf("");
  EXPECT_FALSE(verify(g, gout, gref).ok);
  Scenario shifted = g;
  shifted.program = Program::synthetic;  // same window size, different function
  EXPECT_FALSE(verify(g, reference_stencil(shifted, gin), gref).ok);
  gout = gref;
  gout.data<float>()[100] *= 1.0f + 1e-7f;  // one rounding step: within the bound
  EXPECT_TRUE(verify(g, gout, gref).ok);
  EXPECT_GT(error_bound(g), 0);
  EXPECT_LT(error_bound(g), 1e-3);
}

TEST(StencilCpuBackend, SessionsVerifyAndTimeConfigs) {
  register_builtin();
  const Family& family = find_family("stencil");
  auto backend = open_backend(family, "cpu");
  EXPECT_EQ(backend->device().backend, "cpu");
  const Problem p = family.make_problem({0, 2, 1, 3, 1, 1, 1, 1, 37, 53});
  auto session = backend->open(p);
  EXPECT_TRUE(session->vendors().empty());
  TimingPolicy policy;
  policy.min_reps = 4, policy.max_reps = 6, policy.budget_ms = 0;
  for (const char* wg : {"wg=1x2", "wg=8x8", "wg=1x1024", "wg=1024x1"}) {
    const Outcome o = session->run(family.space().parse(wg), policy);
    EXPECT_EQ(o.status, Status::ok) << wg << ": " << o.message;
    EXPECT_GE(o.rel_error, 0);
    EXPECT_LE(o.rel_error, error_bound(scenario_of(p)));
    EXPECT_GE(o.timing.reps, 4);
    EXPECT_GT(o.timing.median_ms, 0);
  }
  EXPECT_THROW(backend->open(Problem::parse("program=9;north=1;south=1;east=1;west=1;type=1;"
                                            "heavy=0;boundary=0;rows=8;cols=8")),
               Error);
  EXPECT_THROW(open_backend(family, "cpu:1"), Error);
}

}  // namespace
}  // namespace ktune::stencil
