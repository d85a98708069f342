// The CPU conv2d kernels against the float64 reference on random data with NaN-poisoned
// output: every kind, several configs each, on the tiny workload's odd shapes (strides 1-2,
// pads 0-3, 1x1 to 7x7, c and k off the vector widths); refusals; the backend's statuses and
// the oneDNN baseline.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/host_measure.hpp"

namespace ktune::kernels::conv2d {
namespace {

struct Data {
  Shape shape;
  std::vector<float> input, filter, output;
  std::vector<double> reference;
  explicit Data(const Shape& s)
      : shape(s),
        input(gemm::random_matrix(size_t(s.input_elements()), 7)),
        filter(gemm::random_matrix(size_t(s.filter_elements()), 8)),
        output(size_t(s.output_elements())),
        reference(reference_conv2d(s, input.data(), filter.data())) {}
  cpu::Args args() {
    std::fill(output.begin(), output.end(), std::numeric_limits<float>::quiet_NaN());
    return {shape, input.data(), filter.data(), output.data()};
  }
  double error() const { return relative_error(shape, output.data(), reference); }
};

std::vector<Shape> tiny_shapes() {
  std::vector<Shape> out;
  for (const Layer& l : workload_layers("tiny")) out.push_back(l.shape);
  return out;
}

std::string name(const Shape& s) { return problem_of(s).key(); }

TEST(Conv2dCpu, DirectEveryTileOnEveryTinyShape) {
  for (const Shape& s : tiny_shapes()) {
    Data d(s);
    for (int cols : {2, 3, 4})
      for (int vk : {2, 3, 4})
        for (int vc : {8, 16})
          for (int rows : {1, 4}) {
            cpu::run_direct(d.args(), {rows, cols, vk, vc});
            EXPECT_LE(d.error(), error_bound(s))
                << name(s) << " rows=" << rows << " cols=" << cols << " vk=" << vk << " vc=" << vc;
          }
  }
}

TEST(Conv2dCpu, Im2colAndGemm1x1EveryMicroTile) {
  for (const Shape& s : tiny_shapes()) {
    Data d(s);
    for (auto [mr, nr] : {std::pair{8, 8}, {16, 6}, {24, 4}})
      for (int kc : {128, 256}) {
        for (int rows : {7, 1024}) {  // 7: many patch blocks with a tail block
          cpu::run_im2col(d.args(), {mr, nr, kc}, rows);
          EXPECT_LE(d.error(), error_bound(s)) << name(s) << " im2col " << mr << "x" << nr;
        }
        if (cpu::gemm1x1_refusal(s)) {
          EXPECT_THROW(cpu::run_gemm1x1(d.args(), {mr, nr, kc}), Error);
          continue;
        }
        cpu::run_gemm1x1(d.args(), {mr, nr, kc});
        EXPECT_LE(d.error(), error_bound(s)) << name(s) << " gemm1x1 " << mr << "x" << nr;
      }
  }
}

TEST(Conv2dCpu, WinogradBothTileSizesWithinTheirBounds) {
  int ran = 0;
  for (const Shape& s : tiny_shapes()) {
    Data d(s);
    for (int m : {2, 4})
      for (int tiles : {3, 256}) {  // 3: many blocks and a tail block
        if (cpu::winograd_refusal(s)) {
          EXPECT_THROW(cpu::run_winograd(d.args(), m, {16, 6, 128}, tiles), Error);
          continue;
        }
        cpu::run_winograd(d.args(), m, {16, 6, 128}, tiles);
        EXPECT_LE(d.error(), error_bound(s, m)) << name(s) << " m=" << m << " tiles=" << tiles;
        const auto u = cpu::winograd_transform_filter(s, m, d.filter.data());
        cpu::run_winograd_pretransformed(d.args(), m, {8, 8, 256}, tiles, u.data());
        EXPECT_LE(d.error(), error_bound(s, m)) << name(s) << " pretransformed m=" << m;
        ++ran;
      }
  }
  EXPECT_GE(ran, 8);
}

TEST(Conv2dCpu, WinogradErrorOnADeepLayerStaysFarBelowItsBound) {
  // A ResNet-50 conv4_4-like layer, smaller: the transforms' error grows with c and the tile.
  const Shape s{1, 10, 10, 256, 16, 3, 3, 1, 1};
  Data d(s);
  cpu::run_direct(d.args(), {1, 2, 2, 8});
  const double direct = d.error();
  for (int m : {2, 4}) {
    cpu::run_winograd(d.args(), m, {16, 6, 256}, 64);
    EXPECT_LE(d.error(), error_bound(s, m) / 4) << "m=" << m;
    EXPECT_GT(d.error(), 0.0);
  }
  EXPECT_LE(direct, error_bound(s) / 4);
}

TEST(Conv2dCpu, BadKernelParamsThrowNamingThem) {
  Data d(Shape{1, 5, 5, 3, 4, 3, 3, 1, 1});
  EXPECT_THROW(cpu::run_direct(d.args(), {1, 5, 2, 8}), Error);
  EXPECT_THROW(cpu::run_direct(d.args(), {0, 2, 2, 8}), Error);
  EXPECT_THROW(cpu::run_winograd(d.args(), 3, {16, 6, 128}, 8), Error);
  EXPECT_THROW(cpu::run_im2col(d.args(), {16, 6, 128}, 0), Error);
  EXPECT_THROW(cpu::run_im2col(d.args(), {16, 5, 128}, 8), Error);
}

TEST(Conv2dCpu, BackendVerifiesTimesAndRefusesWhatDoesNotApply) {
  register_builtin();
  const Family& family = find_family("conv2d");
  auto backend = open_backend(family, "cpu");
  const TimingPolicy policy{0, 1, 1, 0, 2000};
  const Space& space = family.space();
  // 1x1 stride 2: direct and im2col run; 1x1 GEMM (stride 2) and Winograd refuse.
  auto session = backend->open(problem_of(Shape{2, 7, 5, 8, 16, 1, 1, 2, 0}));
  for (const char* config :
       {"rows=4;cols=3;vk=2;vc=8", "kind=cpu_im2col;mt=24x4;kc=128;rows=1024"}) {
    const Outcome out = session->run(space.parse(config), policy);
    EXPECT_EQ(out.status, Status::ok) << config << ": " << out.message;
    EXPECT_GE(out.rel_error, 0);
  }
  for (const char* config :
       {"kind=cpu_gemm1x1;mt=8x8;kc=512", "kind=cpu_winograd;m=4;mt=8x8;tiles=64"}) {
    const Outcome out = session->run(space.parse(config), policy);
    EXPECT_EQ(out.status, Status::refused) << config;
    EXPECT_FALSE(out.message.empty());
  }
  for (const Config& c : space.enumerate())
    EXPECT_EQ(backend->implements(c), space.kind_name(c).rfind("cpu_", 0) == 0);
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN";
  ASSERT_EQ(session->vendors(), (std::vector<std::string>{"onednn", "onednn_winograd"}));
  const Outcome vendor = session->run_vendor("onednn", policy);
  EXPECT_EQ(vendor.status, Status::ok) << vendor.message;
}

// The sweep's measurement and a ktune retime turn (both ProblemSession::run) and the oneDNN row
// go through the host protocol's cache rule: 2x LLC read after the verification, and before each
// run the eviction host_rotation asks for a layer whose copies do not cover 2x LLC.
TEST(Conv2dCpu, SessionRunsStartFromCacheStateOfTheHostProtocol) {
  register_builtin();
  const Family& family = find_family("conv2d");
  auto backend = open_backend(family, "cpu");
  const Shape s{1, 28, 28, 64, 64,
                3, 3,  2,  1};  // 0.4 MB, a batch-1 layer's size: 8 copies, evicted
  const double llc = last_level_cache_bytes(backend->device());
  const HostRotation rotation = host_rotation(
      4.0 * double(s.input_elements() + s.filter_elements() + s.output_elements()), llc);
  ASSERT_GT(rotation.evict_bytes, 0);
  auto session = backend->open(problem_of(s));
  const TimingPolicy turn{.warmups = 0, .min_reps = 3, .max_reps = 3, .budget_ms = 0};
  auto evicted_by = [&](auto&& measure) {
    const double before = host_cache_bytes_evicted();
    const Outcome o = measure();
    EXPECT_EQ(o.status, Status::ok) << o.message;
    return host_cache_bytes_evicted() - before;
  };
  const double expected = rotation.cold_bytes + 3 * double(size_t(rotation.evict_bytes) / 64 * 64);
  EXPECT_DOUBLE_EQ(evicted_by([&] {
                     return session->run(family.space().parse("rows=4;cols=3;vk=2;vc=8"), turn);
                   }),
                   expected);
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN";
  EXPECT_DOUBLE_EQ(evicted_by([&] { return session->run_vendor("onednn", turn); }), expected);
}

TEST(Conv2dCpu, OnednnMatchesTheReferenceOnTinyShapes) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN";
  for (const Shape& s : tiny_shapes()) {
    Data d(s);
    cpu::OnednnConv conv(s);
    const int w = conv.add_weights(d.filter.data());
    conv.run(d.args().input, w, d.output.data());
    EXPECT_LE(d.error(), error_bound(s)) << name(s) << " " << conv.implementation();
  }
}

}  // namespace
}  // namespace ktune::kernels::conv2d
