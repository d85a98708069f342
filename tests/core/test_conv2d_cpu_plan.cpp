// The CPU convolution plan (kernels/common/cpu/conv_cpu_plan.hpp) against the float64
// reference with its epilogue applied in float64, on NaN-poisoned output: the tiny workload's odd
// shapes and every stride / padding / filter size of the ResNet-50 and VGG16 layers (at small
// sizes), one and two threads, default blocks and blocks small enough that K is accumulated over
// several blocks and C is cut into many tasks with channel and pixel edges.
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
// filter (more filter rows than one tile call joins).
std::vector<Shape> shapes() {
  std::vector<Shape> out;
  for (const Layer& l : workload_layers("tiny")) out.push_back(l.shape);
  for (const Shape& s :
       {shape(1, 23, 3, 37, 7, 2, 3), shape(2, 9, 19, 70, 3, 1, 1), shape(1, 11, 33, 64, 3, 2, 1),
        shape(2, 7, 45, 100, 1, 1, 0), shape(1, 13, 40, 33, 1, 2, 0), shape(1, 15, 3, 64, 3, 1, 1),
        shape(3, 1, 300, 1000, 1, 1, 0), shape(1, 1, 129, 17, 1, 1, 0),
        shape(1, 30, 5, 40, 3, 1, 1), shape(1, 61, 3, 20, 7, 2, 3), shape(1, 15, 2, 20, 11, 1, 5)})
    out.push_back(s);
  return out;
}

std::string name(const Shape& s) { return problem_of(s).key(); }

TEST(Conv2dCpuPlan, EveryShapeThreadsAndBlockingMatchFloat64) {
  // Default blocks (these small layers run K in one block); K in blocks of 16 (whole_k_floats
  // 0), tasks of <= 24 pixels × 32 channels; without the padded input copy, the panels at the
  // image's border are packed; join_rows off: a tile call per filter row.
  const PlanBlocking small{16, 24, 32, true, true, 0}, small_packing{16, 24, 32, false, true, 0},
      row_calls{256, 384, 256, true, false, 0};
  for (const Shape& s : shapes()) {
    Case c(s);
    for (int threads : {1, 2})
      for (const PlanBlocking& bl : {PlanBlocking{}, small, small_packing, row_calls}) {
        ConvPlan plan(s, c.filter.data(), threads, bl);
        EXPECT_LE(c.run(plan, false, false, false), error_bound(s))
            << name(s) << " threads=" << threads << " kc=" << bl.kc << " pad=" << bl.pad_input
            << " join_rows=" << bl.join_rows;
      }
  }
}

TEST(Conv2dCpuPlan, EpilogueBiasResidualReluMatchesFloat64) {
  for (const Shape& s : shapes()) {
    Case c(s);
    // Default blocks; small blocks (K in blocks of 16) with and without the padded copy; a tile
    // call per filter row.
    for (const PlanBlocking& bl :
         {PlanBlocking{}, PlanBlocking{16, 24, 32, true, true, 0},
          PlanBlocking{16, 24, 32, false, true, 0}, PlanBlocking{256, 384, 256, true, false, 0}}) {
      ConvPlan plan(s, c.filter.data(), 2, bl);
      for (int mask = 1; mask < 8; ++mask)
        EXPECT_LE(c.run(plan, mask & 1, mask & 2, mask & 4), error_bound(s))
            << name(s) << " bias=" << (mask & 1) << " residual=" << (mask & 2)
            << " relu=" << (mask & 4) << " pad=" << bl.pad_input << " join_rows=" << bl.join_rows;
    }
  }
}

TEST(Conv2dCpuPlan, FilterIsPackedOnceAtConstruction) {
  const Shape s = shape(1, 9, 19, 70, 3, 1, 1);
  Case c(s);
  ConvPlan plan(s, c.filter.data(), 2);
  // A plan that read the filter again per call would now give NaN.
  std::fill(c.filter.begin(), c.filter.end(), std::numeric_limits<float>::quiet_NaN());
  EXPECT_LE(c.run(plan, true, false, true), error_bound(s));
}

TEST(Conv2dCpuPlan, FewPixelsRunAllOfKInOneBlock) {
  // VGG16's first fc at batch 1 (one pixel, K = 25088) and ResNet-50's layer4 3×3 at batch 1
  // (49 pixels, K = 4608): one block; its layer3 3×3 at batch 16 (3136 pixels in tasks of up to
  // 384, K = 2304): blocks of kc; whole_k_floats 0: always blocks of kc.
  const auto block = [](const Shape& s, PlanBlocking bl = {}) {
    return ConvPlan(s, std::vector<float>(size_t(s.k * s.c * s.r * s.s)).data(), 2, bl).k_block();
  };
  EXPECT_EQ(block(shape(1, 1, 25088, 64, 1, 1, 0)), 25088);
  EXPECT_EQ(block(shape(1, 7, 512, 64, 3, 1, 1)), 4608);
  EXPECT_EQ(block(shape(16, 14, 256, 64, 3, 1, 1)), 256);
  EXPECT_EQ(block(shape(1, 1, 25088, 64, 1, 1, 0), PlanBlocking{256, 384, 256, true, true, 0}),
            256);
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

}  // namespace
}  // namespace ktune::kernels::conv2d
