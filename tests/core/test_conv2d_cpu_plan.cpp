// The CPU convolution plan (kernels/common/cpu/conv_cpu_plan.hpp) against the float64
// reference with its epilogue applied in float64, on NaN-poisoned output: the tiny workload's odd
// shapes and every stride / padding / filter size of the ResNet-50 and VGG16 layers (at small
// sizes), one and two threads, default blocks and blocks small enough that K is accumulated over
// several blocks and C is cut into many tasks with channel and pixel edges; the Winograd path
// (F(2×2) and F(4×4), 3×3 stride-1 layers, its phases shared by the threads or fused per block)
// against its own bound, with a planted error that the bound must catch.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/common/cpu/conv_cpu_plan.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"

namespace ktune::kernels::conv2d {
namespace {

using cpu_conv::Epilogue;
using cpu_conv::PlanBlocking;

// The plan over the family's Shape (the same fields in the same order).
struct ConvPlan : cpu_conv::ConvPlan {
  ConvPlan(const Shape& s, const float* filter, int threads, PlanBlocking bl = {})
      : cpu_conv::ConvPlan({s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad}, filter, threads,
                           bl) {}
};

struct Case {
  Shape shape;
  std::vector<float> input, filter, bias, residual, output;
  std::vector<double> conv;  // float64 convolution, no epilogue
  explicit Case(const Shape& s)
      : shape(s),
        input(gemm::random_matrix(size_t(s.input_elements()), 7)),
        filter(gemm::random_matrix(size_t(s.filter_elements()), 8)),
        bias(gemm::random_matrix(size_t(s.k), 9)),
        residual(gemm::random_matrix(size_t(s.output_elements()), 10)),
        output(size_t(s.output_elements())),
        conv(reference_conv2d(s, input.data(), filter.data())) {}

  // relative error of plan.run with the given epilogue parts against the float64 result.
  double run(ConvPlan& plan, bool bias_on, bool residual_on, bool relu) {
    std::fill(output.begin(), output.end(), std::numeric_limits<float>::quiet_NaN());
    Epilogue e;
    e.bias = bias_on ? bias.data() : nullptr;
    e.residual = residual_on ? residual.data() : nullptr;
    e.relu = relu;
    plan.run(input.data(), output.data(), e);
    std::vector<double> want = conv;
    for (size_t i = 0; i < want.size(); ++i) {
      if (bias_on) want[i] += bias[i % size_t(shape.k)];
      if (residual_on) want[i] += residual[i];
      if (relu) want[i] = std::max(want[i], 0.0);
    }
    return relative_error(shape, output.data(), want);
  }
};

Shape shape(int64_t n, int64_t h, int64_t c, int64_t k, int64_t r, int64_t stride, int64_t pad) {
  Shape s;
  s.n = n;
  s.h = s.w = h;
  s.c = c;
  s.k = k;
  s.r = s.s = r;
  s.stride = stride;
  s.pad = pad;
  return s;
}

// The tiny workload plus each filter / stride / padding of ResNet-50 and VGG16 (7×7/2 pad 3 on
// 3 channels, 3×3/1 and /2 pad 1, 1×1/1 and /2, 3×3 on 3 channels) with odd channel counts, a
// fully connected layer as a 1×1 convolution over 1×1 images, and maps wide enough (30 and 31
// output columns) for 12-pixel panels inside the image (packed a K step at a time), and an 11×11
// filter (more filter rows than one tile call joins); strided and 3×3 layers with more output
// channels than pixels per task (run channel panel by channel panel, PlanBlocking::rows_outer,
// the last panel partial).
std::vector<Shape> shapes() {
  std::vector<Shape> out;
  for (const Layer& l : workload_layers("tiny")) out.push_back(l.shape);
  for (const Shape& s :
       {shape(1, 23, 3, 37, 7, 2, 3), shape(2, 9, 19, 70, 3, 1, 1), shape(1, 11, 33, 64, 3, 2, 1),
        shape(2, 7, 45, 100, 1, 1, 0), shape(1, 13, 40, 33, 1, 2, 0), shape(1, 15, 3, 64, 3, 1, 1),
        shape(3, 1, 300, 1000, 1, 1, 0), shape(1, 1, 129, 17, 1, 1, 0),
        shape(1, 30, 5, 40, 3, 1, 1), shape(1, 61, 3, 20, 7, 2, 3), shape(1, 15, 2, 20, 11, 1, 5),
        shape(1, 7, 40, 200, 3, 2, 1), shape(1, 6, 5, 100, 3, 1, 1)})
    out.push_back(s);
  return out;
}

std::string name(const Shape& s) { return problem_of(s).key(); }

TEST(Conv2dCpuPlan, EveryShapeThreadsAndBlockingMatchFloat64) {
  // Default blocks (these small layers run K in one block; 3×3 stride-1 ones over >= 16 channels
  // Winograd F(4×4)); the direct path with K in blocks of 16 (whole_k_floats 0), tasks of <= 24
  // pixels × 32 channels; without the padded input copy, the panels at the image's border are
  // packed; join_rows off: a tile call per filter row.
  const PlanBlocking small{16, 24, 32, true, true, 0, 0, 1 << 20, 48, 12},
      small_packing{16, 24, 32, false, true, 0, 0, 1 << 20, 48, 12},
      row_calls{256, 384, 256, true, false, 0, 0, 1 << 20, 48, 12};
  // Pieces outermost (PlanBlocking::rows_outer off, no panel prefetch), with and without the
  // padded copy and K blocks.
  PlanBlocking pieces_outer, small_pieces_outer = small_packing;
  pieces_outer.rows_outer = small_pieces_outer.rows_outer = false;
  pieces_outer.prefetch_panels = small_pieces_outer.prefetch_panels = false;
  // Each thread's own padded copy (PlanBlocking::pad_per_thread), default and small blocks, the
  // direct path; with 3 threads on 2 cores too (more slots than cores, a slot held by turns).
  PlanBlocking own, small_own = small;
  own.winograd_m = 0;
  own.pad_per_thread = small_own.pad_per_thread = true;
  // The shared padded copy written by the tasks as they need its rows
  // (PlanBlocking::pad_on_demand, the `ktune` backend's), default and small blocks.
  PlanBlocking on_demand, small_on_demand = small;
  on_demand.winograd_m = 0;
  on_demand.pad_on_demand = small_on_demand.pad_on_demand = true;
  // The balanced split (PlanBlocking::balanced_split, cpu_plan_1x1), default and small tasks.
  PlanBlocking balanced, small_balanced = small;
  balanced.winograd_m = 0;
  balanced.balanced_split = small_balanced.balanced_split = true;
  for (const Shape& s : shapes()) {
    Case c(s);
    for (int threads : {1, 2, 3})
      for (const PlanBlocking& bl :
           {PlanBlocking{}, small, small_packing, row_calls, pieces_outer, small_pieces_outer, own,
            small_own, on_demand, small_on_demand, balanced, small_balanced}) {
        ConvPlan plan(s, c.filter.data(), threads, bl);
        EXPECT_LE(c.run(plan, false, false, false), error_bound(s, plan.winograd_m()))
            << name(s) << " threads=" << threads << " kc=" << bl.kc << " pad=" << bl.pad_input
            << " join_rows=" << bl.join_rows << " pad_per_thread=" << bl.pad_per_thread
            << " pad_on_demand=" << bl.pad_on_demand << " balanced=" << bl.balanced_split;
      }
  }
}

TEST(Conv2dCpuPlan, EpilogueBiasResidualReluMatchesFloat64) {
  for (const Shape& s : shapes()) {
    Case c(s);
    // Default blocks; small blocks (K in blocks of 16) with and without the padded copy; a tile
    // call per filter row.
    for (const PlanBlocking& bl :
         {PlanBlocking{}, PlanBlocking{16, 24, 32, true, true, 0, 0, 1 << 20, 48, 12},
          PlanBlocking{16, 24, 32, false, true, 0, 0, 1 << 20, 48, 12},
          PlanBlocking{256, 384, 256, true, false, 0, 0, 1 << 20, 48, 12}}) {
      ConvPlan plan(s, c.filter.data(), 2, bl);
      for (int mask = 1; mask < 8; ++mask)
        EXPECT_LE(c.run(plan, mask & 1, mask & 2, mask & 4), error_bound(s, plan.winograd_m()))
            << name(s) << " bias=" << (mask & 1) << " residual=" << (mask & 2)
            << " relu=" << (mask & 4) << " pad=" << bl.pad_input << " join_rows=" << bl.join_rows;
    }
  }
}

// The `ktune` backend runs the plans on OpenMP's team (cpu_task_workers.hpp): the same results
// as on the helper pool, direct and Winograd paths, small blocks (many tasks), every epilogue.
TEST(Conv2dCpuPlan, OnOpenMPsTeamMatchesFloat64) {
  const cpu_conv::ScopedTaskWorkers on(cpu_conv::TaskWorkers::openmp);
  PlanBlocking own{16, 24, 32, true, true, 0, 0, 1 << 20, 48, 12};  // and own padded copies
  own.pad_per_thread = true;
  PlanBlocking on_demand{16, 24, 32, true, true, 0, 0, 1 << 20, 48, 12};  // copied by the tasks
  on_demand.pad_on_demand = true;
  for (const Shape& s : shapes()) {
    Case c(s);
    for (const PlanBlocking& bl :
         {PlanBlocking{}, PlanBlocking{16, 24, 32, true, true, 0, 0, 1 << 20, 48, 12}, own,
          on_demand}) {
      ConvPlan plan(s, c.filter.data(), 2, bl);
      for (int mask : {0, 7})
        EXPECT_LE(c.run(plan, mask & 1, mask & 2, mask & 4), error_bound(s, plan.winograd_m()))
            << name(s) << " epilogue=" << mask << " kc=" << bl.kc;
    }
  }
}

// A plan's padded copy holds the input of the call that wrote it: a second call on another input
// (the engine's next inference) must copy again, whoever copies (a region before the tasks, each
// thread's own copy, the tasks on demand), with each call's bias and ReLU.
TEST(Conv2dCpuPlan, PaddedCopyFollowsEachCallsInput) {
  PlanBlocking shared, own, on_demand,
      small_on_demand{16, 24, 32, true, true, 0, 0, 1 << 20, 48, 12};
  shared.winograd_m = own.winograd_m = on_demand.winograd_m = 0;
  own.pad_per_thread = true;
  on_demand.pad_on_demand = small_on_demand.pad_on_demand = true;
  for (const Shape& s : {shape(2, 11, 33, 64, 3, 2, 1), shape(1, 23, 3, 37, 7, 2, 3),
                         shape(3, 9, 19, 70, 3, 1, 1)}) {
    Case a(s), b(s);
    b.input = gemm::random_matrix(size_t(s.input_elements()), 17);
    b.conv = reference_conv2d(s, b.input.data(), b.filter.data());
    for (int threads : {1, 2, 3})
      for (const PlanBlocking& bl : {shared, own, on_demand, small_on_demand}) {
        ConvPlan plan(s, a.filter.data(), threads, bl);
        for (int call = 0; call < 3; ++call) {
          Case& c = call % 2 ? b : a;
          EXPECT_LE(c.run(plan, call == 1, false, call == 2), error_bound(s))
              << name(s) << " threads=" << threads << " call=" << call
              << " pad_per_thread=" << bl.pad_per_thread << " pad_on_demand=" << bl.pad_on_demand;
        }
      }
  }
}

TEST(Conv2dCpuPlan, FilterIsPackedOnceAtConstruction) {
  const Shape s = shape(2, 9, 19, 70, 3, 1, 1);
  Case c(s);
  ConvPlan plan(s, c.filter.data(), 2);  // Winograd F(4×4): the filter transformed once
  PlanBlocking direct;
  direct.winograd_m = 0;
  ConvPlan packed(s, c.filter.data(), 2, direct);
  // A plan that read the filter again per call would now give NaN.
  std::fill(c.filter.begin(), c.filter.end(), std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(plan.winograd_m(), 4);
  EXPECT_LE(c.run(plan, true, false, true), error_bound(s, 4));
  EXPECT_LE(c.run(packed, true, false, true), error_bound(s));
}

// 3×3 stride-1 shapes with odd channel counts, maps that are no multiple of m (clipped output
// tiles), padding 0, 1 and 2, batches of 2 and 3, and more tiles than a block of 12.
std::vector<Shape> winograd_shapes() {
  return {shape(2, 9, 19, 70, 3, 1, 1),  shape(1, 7, 33, 17, 3, 1, 0),
          shape(1, 10, 17, 33, 3, 1, 2), shape(2, 13, 40, 100, 3, 1, 1),
          shape(1, 30, 64, 64, 3, 1, 1), shape(3, 5, 16, 31, 3, 1, 1),
          shape(1, 3, 16, 16, 3, 1, 0)};
}

TEST(Conv2dCpuPlan, WinogradMatchesFloat64WithEpilogue) {
  for (const Shape& s : winograd_shapes()) {
    Case c(s);
    for (int m : {2, 4})
      for (int threads : {1, 2})
        for (int64_t min_tiles : {int64_t(48), int64_t(1)}) {  // 1: blocks of 12 tiles
          PlanBlocking bl;
          bl.winograd_m = m;
          bl.winograd_floats = 1;
          bl.winograd_min_tiles = min_tiles;
          bl.winograd_min_call_tiles = bl.winograd4_min_call_tiles = 1;  // the small maps too
          ConvPlan plan(s, c.filter.data(), threads, bl);
          ASSERT_EQ(plan.winograd_m(), m) << name(s);
          for (int mask = 0; mask < 8; ++mask)
            EXPECT_LE(c.run(plan, mask & 1, mask & 2, mask & 4), error_bound(s, m))
                << name(s) << " m=" << m << " threads=" << threads << " min_tiles=" << min_tiles
                << " bias=" << (mask & 1) << " residual=" << (mask & 2) << " relu=" << (mask & 4);
        }
  }
}

// Fused Winograd blocks (winograd_fused_tiles): each block's phases on one thread in its own V
// and M. Blocks of 12 and 24 tiles (a last block shorter than the others where the tiles do not
// divide), one and two threads, on the helper pool and on OpenMP's team, every epilogue, each
// plan run twice (the V, M sets are claimed and given back per block).
TEST(Conv2dCpuPlan, FusedWinogradMatchesFloat64WithEpilogue) {
  int fused_runs = 0;
  for (const Shape& s : winograd_shapes()) {
    Case c(s);
    for (int m : {2, 4})
      for (int threads : {1, 2})
        for (int64_t tiles : {int64_t(12), int64_t(24)})
          for (auto workers : {cpu_conv::TaskWorkers::pool, cpu_conv::TaskWorkers::openmp}) {
            const cpu_conv::ScopedTaskWorkers on(workers);
            PlanBlocking bl;
            bl.winograd_m = m;
            bl.winograd_min_call_tiles = bl.winograd4_min_call_tiles = 1;
            bl.winograd_fused_tiles = tiles;
            ConvPlan plan(s, c.filter.data(), threads, bl);
            ASSERT_EQ(plan.winograd_m(), m) << name(s);
            ASSERT_TRUE(plan.winograd_fused()) << name(s);
            for (int mask = 0; mask < 8; ++mask)
              for (int call = 0; call < (mask == 7 ? 2 : 1); ++call, ++fused_runs)
                EXPECT_LE(c.run(plan, mask & 1, mask & 2, mask & 4), error_bound(s, m))
                    << name(s) << " m=" << m << " threads=" << threads << " tiles=" << tiles
                    << " openmp=" << (workers == cpu_conv::TaskWorkers::openmp)
                    << " epilogue=" << mask << " call=" << call;
          }
  }
  EXPECT_GT(fused_runs, 0);
}

TEST(Conv2dCpuPlan, FusedWinogradBlocksAreWholeRegisterTilesTwoPerThreadAtLeast) {
  const auto block = [](const Shape& s, int64_t tiles, int threads) {
    PlanBlocking bl;
    bl.winograd_fused_tiles = tiles;
    return ConvPlan(s, std::vector<float>(size_t(s.k * s.c * s.r * s.s)).data(), threads, bl)
        .winograd_block();
  };
  // VGG16's 224×224 × 64 layer at batch 1: 3136 F(4×4) tiles in blocks of 24 (20 -> 24).
  EXPECT_EQ(block(shape(1, 224, 64, 64, 3, 1, 1), 24, 2), 24);
  EXPECT_EQ(block(shape(1, 224, 64, 64, 3, 1, 1), 20, 2), 24);
  // 14×14 at batch 1: 16 tiles, blocks of 4 so that each of 2 threads gets two; one thread: 8.
  EXPECT_EQ(block(shape(1, 14, 64, 64, 3, 1, 1), 48, 2), 4);
  EXPECT_EQ(block(shape(1, 14, 64, 64, 3, 1, 1), 48, 1), 8);
}

TEST(Conv2dCpuPlan, WinogradBoundCatchesAPlantedError) {
  // One weight of 11970 off by 1 (the weights are about N(0, 1)): the result is that of another
  // filter, and the bound (64× the direct one for F(4×4)) must still reject it; phases shared
  // (fused_tiles 0) and fused, with every epilogue part on.
  const Shape s = shape(2, 9, 19, 70, 3, 1, 1);
  Case c(s);
  for (int m : {2, 4})
    for (int64_t fused_tiles : {int64_t(0), int64_t(12)}) {
      PlanBlocking bl;
      bl.winograd_m = m;
      bl.winograd_min_call_tiles = bl.winograd4_min_call_tiles = 1;
      bl.winograd_fused_tiles = fused_tiles;
      std::vector<float> planted = c.filter;
      planted[planted.size() / 2] += 1.f;
      ConvPlan good(s, c.filter.data(), 2, bl), bad(s, planted.data(), 2, bl);
      ASSERT_EQ(good.winograd_fused(), fused_tiles > 0);
      for (bool epilogue : {false, true}) {
        EXPECT_LE(c.run(good, epilogue, epilogue, epilogue), error_bound(s, m))
            << "m=" << m << " fused_tiles=" << fused_tiles;
        EXPECT_GT(c.run(bad, epilogue, epilogue, epilogue), error_bound(s, m))
            << "m=" << m << " fused_tiles=" << fused_tiles;
      }
    }
}

TEST(Conv2dCpuPlan, WinogradRunsThe3x3Stride1LayersOverEnoughChannels) {
  const auto m = [](const Shape& s, PlanBlocking bl = {}) {
    return ConvPlan(s, std::vector<float>(size_t(s.k * s.c * s.r * s.s)).data(), 2, bl)
        .winograd_m();
  };
  EXPECT_EQ(m(shape(1, 56, 64, 64, 3, 1, 1)), 4);   // ResNet-50's layer1 3×3
  EXPECT_EQ(m(shape(1, 224, 3, 64, 3, 1, 1)), 0);   // VGG16's stem: c = 3
  EXPECT_EQ(m(shape(1, 7, 512, 512, 3, 1, 1)), 2);  // layer4 at batch 1: 4 F(4×4) tiles, 16 F(2×2)
  EXPECT_EQ(m(shape(1, 5, 512, 512, 3, 1, 1)), 0);   // 4 F(4×4) tiles, 9 F(2×2): direct
  EXPECT_EQ(m(shape(3, 7, 512, 512, 3, 1, 1)), 4);   // at batch 3: 12 tiles
  EXPECT_EQ(m(shape(1, 56, 128, 128, 3, 2, 1)), 0);  // stride 2
  EXPECT_EQ(m(shape(1, 56, 64, 64, 1, 1, 0)), 0);    // 1×1
  PlanBlocking off;
  off.winograd_m = 0;
  EXPECT_EQ(m(shape(1, 56, 64, 64, 3, 1, 1), off), 0);
}

TEST(Conv2dCpuPlan, AllOfKInOneBlockByDefault) {
  // By default every layer runs K in one block: VGG16's first fc at batch 1 (one pixel,
  // K = 25088), ResNet-50's layer4 3×3 at batch 1 (49 pixels, K = 4608) and its layer3 3×3 at
  // batch 16 (3136 pixels in tasks of up to 384, K = 2304). The former threshold (patch matrix
  // of the widest task <= 256K floats) keeps blocks of kc on the last; whole_k_floats 0: always
  // blocks of kc.
  const auto block = [](const Shape& s, PlanBlocking bl = {}) {
    bl.winograd_m = 0;  // the direct path's blocks
    return ConvPlan(s, std::vector<float>(size_t(s.k * s.c * s.r * s.s)).data(), 2, bl).k_block();
  };
  EXPECT_EQ(block(shape(1, 1, 25088, 64, 1, 1, 0)), 25088);
  EXPECT_EQ(block(shape(1, 7, 512, 64, 3, 1, 1)), 4608);
  EXPECT_EQ(block(shape(16, 14, 256, 64, 3, 1, 1)), 2304);
  EXPECT_EQ(block(shape(16, 14, 256, 64, 3, 1, 1),
                  PlanBlocking{256, 384, 256, true, true, 256 * 1024, 0, 1 << 20, 48, 12}),
            256);
  EXPECT_EQ(block(shape(1, 1, 25088, 64, 1, 1, 0),
                  PlanBlocking{256, 384, 256, true, true, 0, 0, 1 << 20, 48, 12}),
            256);
}

TEST(Conv2dCpuPlan, WinogradBlocksHoldAtLeastTheMinimumTiles) {
  // Each block streams the whole transformed filter: VGG16's 28×28 × 512 layer at batch 1 (49
  // tiles, at least 48 per block) is one block, not 36 + 13; its 56×56 × 256 one (196 tiles, V and
  // M for 56 in 1M floats) three of 72, 72 and 52 (evened, whole register tiles).
  const auto block = [](const Shape& s) {
    return ConvPlan(s, std::vector<float>(size_t(s.k * s.c * s.r * s.s)).data(), 2)
        .winograd_block();
  };
  EXPECT_EQ(block(shape(1, 28, 512, 512, 3, 1, 1)), 49);
  EXPECT_EQ(block(shape(1, 56, 256, 256, 3, 1, 1)), 72);
}

TEST(Conv2dCpuPlan, PatchWorkspaceOnlyWhereWindowsLeaveTheImage) {
  // ResNet-50's layer2 3×3 stride 2 over 128 channels: with the padded copy (default) no window
  // leaves the image, so nothing is packed; without it the border panels are; unpadded 7×7
  // stride 2 reads in place too.
  const auto floats = [](const Shape& s, bool pad_input) {
    PlanBlocking bl;
    bl.pad_input = pad_input;
    return ConvPlan(s, std::vector<float>(size_t(s.k * s.c * s.r * s.s)).data(), 2, bl)
        .workspace_floats();
  };
  EXPECT_EQ(floats(shape(1, 56, 128, 128, 3, 2, 1), true), 0);
  EXPECT_GT(floats(shape(1, 56, 128, 128, 3, 2, 1), false), 0);
  EXPECT_EQ(floats(shape(1, 23, 3, 37, 7, 2, 0), false), 0);
}

TEST(Conv2dCpuPlan, AliasedOneByOneRowsCopiedMatchFloat64) {
  // 1×1 stride-1 layers whose pixel rows are a multiple of 4 KB apart (1024 and 2048 channels)
  // copy each piece's rows apart first (PlanBlocking::pack_aliased): channel panels outermost
  // (more channels than pixels per task, all pieces copied first) and pieces outermost (one
  // copied at a time), channel and pixel edges, K in one block and in blocks of 256, one and two
  // threads; the same with the copy off, and 1008 channels never copy.
  PlanBlocking blocked, off;
  blocked.whole_k_floats = 0;  // K in blocks of kc = 256: a copy per K block
  blocked.max_cols = 24;
  off.pack_aliased = false;
  for (const Shape& s : {shape(1, 5, 1024, 70, 1, 1, 0), shape(2, 7, 1024, 20, 1, 1, 0),
                         shape(2, 3, 2048, 45, 1, 1, 0)}) {
    Case c(s);
    for (int threads : {1, 2})
      for (const PlanBlocking& bl : {PlanBlocking{}, blocked, off}) {
        ConvPlan plan(s, c.filter.data(), threads, bl);
        EXPECT_EQ(plan.packs_pixels(), bl.pack_aliased) << name(s);
        for (int mask = 0; mask < 8; mask += 7)
          EXPECT_LE(c.run(plan, mask & 1, mask & 2, mask & 4), error_bound(s))
              << name(s) << " threads=" << threads << " kc=" << plan.k_block()
              << " copy=" << plan.packs_pixels() << " epilogue=" << mask;
      }
  }
  const Shape unaliased = shape(1, 5, 1008, 70, 1, 1, 0);
  EXPECT_FALSE(ConvPlan(unaliased, std::vector<float>(1008 * 70).data(), 2).packs_pixels());
}

TEST(Conv2dCpuPlan, TasksKeepBothThreadsBusy) {
  // Batch 1, 7×7 × 2048 channels (ResNet-50's last 1×1 layers): few pixels, so the channels are
  // cut; 112×112 × 64 channels: the pixels are.
  EXPECT_GE(ConvPlan(shape(1, 7, 8, 2048, 1, 1, 0), std::vector<float>(8 * 2048).data(), 2).tasks(),
            4u);
  EXPECT_GE(ConvPlan(shape(1, 112, 8, 64, 1, 1, 0), std::vector<float>(8 * 64).data(), 2).tasks(),
            4u);
  EXPECT_EQ(ConvPlan(shape(1, 2, 2, 4, 1, 1, 0), std::vector<float>(8).data(), 2).tasks(), 1u);
  // 56×56 × 64 channels: 3136 pixels are 9 tasks of <= 384, evened to 10 for two threads.
  EXPECT_EQ(
      ConvPlan(shape(1, 56, 8, 64, 1, 1, 0), std::vector<float>(8 * 64).data(), 2).tasks() % 2, 0u);
}

TEST(Conv2dCpuPlan, BalancedSplitGivesEveryThreadAsManyTasks) {
  // ResNet-50's 56×56 × 64 -> 256 at batch 1 in tasks of <= 192 pixels × 512 channels: 17 tasks
  // (the split stops at 8 per thread), a multiple of the threads when balanced.
  Shape s = shape(1, 56, 64, 256, 1, 1, 0);
  const std::vector<float> filter(size_t(s.filter_elements()), 1.f);
  PlanBlocking bl;
  bl.max_cols = 192;
  bl.max_rows = 512;
  EXPECT_EQ(ConvPlan(s, filter.data(), 2, bl).tasks(), 17u);
  bl.balanced_split = true;
  for (int threads : {2, 3}) {
    const size_t tasks = ConvPlan(s, filter.data(), threads, bl).tasks();
    EXPECT_EQ(tasks % size_t(threads), 0u) << threads;
    EXPECT_GE(tasks, 17u) << threads;
  }
  // One channel panel and 3 pixel tiles (36 pixels): no multiple of 2 exists; the split stops
  // at one task per tile.
  s = shape(1, 1, 128, 32, 1, 1, 0);
  s.w = 36;
  EXPECT_EQ(ConvPlan(s, std::vector<float>(size_t(s.filter_elements()), 1.f).data(), 2, bl).tasks(),
            3u);
}

}  // namespace
}  // namespace ktune::kernels::conv2d
