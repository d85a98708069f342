// ONNX models on the engine: small models built here with the protobuf API run on every CPU
// backend (and every CUDA backend where the build has them and a GPU is present) and agree with a
// float64 NCHW computation of the same graph written in this file; shapes are checked at load; bad
// models give one line naming the node and op (or the file).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/onnx.hpp"
#include "ktune/nn/registry.hpp"
#include "tests/nn/nn_test_util.hpp"
#include "tests/nn_onnx/onnx_builder.hpp"
#ifdef KTUNE_NN_CUDA
#include "ktune/cuda.hpp"
#include "nn/cuda/register.hpp"
#endif

namespace ktune::nn {
namespace {

using testing::OnnxBuilder;
using testing::random_floats;

// ---- float64 NCHW reference of the ops -------------------------------------------------------

struct T4 {
  int64_t n = 0, c = 0, h = 0, w = 0;
  std::vector<double> v;
  T4(int64_t n_, int64_t c_, int64_t h_, int64_t w_)
      : n(n_), c(c_), h(h_), w(w_), v(size_t(n_ * c_ * h_ * w_)) {}
  double& at(int64_t b, int64_t ch, int64_t y, int64_t x) {
    return v[size_t(((b * c + ch) * h + y) * w + x)];
  }
  double at(int64_t b, int64_t ch, int64_t y, int64_t x) const {
    return v[size_t(((b * c + ch) * h + y) * w + x)];
  }
};

T4 conv(const T4& x, const std::vector<float>& wt, const std::vector<float>& bias, int64_t k,
        int64_t r, int64_t groups, int64_t stride, int64_t pad) {
  const int64_t p = (x.h + 2 * pad - r) / stride + 1, q = (x.w + 2 * pad - r) / stride + 1;
  const int64_t cg = x.c / groups, kg = k / groups;
  T4 y(x.n, k, p, q);
  for (int64_t b = 0; b < x.n; ++b)
    for (int64_t o = 0; o < k; ++o)
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < q; ++j) {
          double acc = bias.empty() ? 0.0 : bias[size_t(o)];
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t u = 0; u < r; ++u)
              for (int64_t v = 0; v < r; ++v) {
                const int64_t iy = i * stride - pad + u, ix = j * stride - pad + v;
                if (iy < 0 || iy >= x.h || ix < 0 || ix >= x.w) continue;
                acc +=
                    x.at(b, o / kg * cg + c, iy, ix) * wt[size_t(((o * cg + c) * r + u) * r + v)];
              }
          y.at(b, o, i, j) = acc;
        }
  return y;
}

struct Bn {
  std::vector<float> gamma, beta, mean, var;
};
T4 batch_norm(T4 x, const Bn& bn, double eps) {
  for (int64_t b = 0; b < x.n; ++b)
    for (int64_t c = 0; c < x.c; ++c)
      for (int64_t i = 0; i < x.h * x.w; ++i) {
        double& v = x.v[size_t((b * x.c + c) * x.h * x.w + i)];
        v = (v - bn.mean[size_t(c)]) / std::sqrt(double(bn.var[size_t(c)]) + eps) *
                bn.gamma[size_t(c)] +
            bn.beta[size_t(c)];
      }
  return x;
}
T4 clip(T4 x, double lo, double hi) {
  for (auto& v : x.v) v = std::clamp(v, lo, hi);
  return x;
}
T4 relu(T4 x) { return clip(std::move(x), 0.0, std::numeric_limits<double>::infinity()); }

// Max (ceil: output size rounded up, windows clipped) or average (padding counted) pooling.
T4 pool(const T4& x, bool max, int64_t k, int64_t s, int64_t pad, bool ceil) {
  const auto out = [&](int64_t size) {
    return ceil ? (size + 2 * pad - k + s - 1) / s + 1 : (size + 2 * pad - k) / s + 1;
  };
  T4 y(x.n, x.c, out(x.h), out(x.w));
  for (int64_t b = 0; b < x.n; ++b)
    for (int64_t c = 0; c < x.c; ++c)
      for (int64_t i = 0; i < y.h; ++i)
        for (int64_t j = 0; j < y.w; ++j) {
          double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
          for (int64_t u = 0; u < k; ++u)
            for (int64_t v = 0; v < k; ++v) {
              const int64_t iy = i * s - pad + u, ix = j * s - pad + v;
              if (iy < 0 || iy >= x.h || ix < 0 || ix >= x.w) continue;
              acc = max ? std::max(acc, x.at(b, c, iy, ix)) : acc + x.at(b, c, iy, ix);
            }
          y.at(b, c, i, j) = max ? acc : acc / double(k * k);
        }
  return y;
}

T4 add(T4 a, const T4& b) {
  for (size_t i = 0; i < a.v.size(); ++i) a.v[i] += b.v[i];
  return a;
}

T4 concat(const T4& a, const T4& b) {
  T4 y(a.n, a.c + b.c, a.h, a.w);
  for (int64_t n = 0; n < a.n; ++n)
    for (int64_t c = 0; c < y.c; ++c)
      for (int64_t i = 0; i < a.h; ++i)
        for (int64_t j = 0; j < a.w; ++j)
          y.at(n, c, i, j) = c < a.c ? a.at(n, c, i, j) : b.at(n, c - a.c, i, j);
  return y;
}

// y = x.flatten(1) @ W^T + b with W [out][in].
std::vector<double> linear(const T4& x, const std::vector<float>& w, const std::vector<float>& b,
                           int64_t out) {
  const int64_t in = x.c * x.h * x.w;
  std::vector<double> y(size_t(x.n * out));
  for (int64_t n = 0; n < x.n; ++n)
    for (int64_t o = 0; o < out; ++o) {
      double acc = b[size_t(o)];
      for (int64_t i = 0; i < in; ++i) acc += x.v[size_t(n * in + i)] * w[size_t(o * in + i)];
      y[size_t(n * out + o)] = acc;
    }
  return y;
}

// ---- the models ------------------------------------------------------------------------------

Bn random_bn(int64_t c, unsigned seed) {
  Bn bn{random_floats(size_t(c), seed), random_floats(size_t(c), seed + 1),
        random_floats(size_t(c), seed + 2), random_floats(size_t(c), seed + 3)};
  for (auto& g : bn.gamma) g = 1.0f + 0.5f * g;
  for (auto& v : bn.var) v = 1.0f + 0.5f * v;  // in [0.5, 1.5)
  return bn;
}

void add_bn(OnnxBuilder& m, const std::string& in, const std::string& out, const Bn& bn,
            float eps) {
  const auto c = int64_t(bn.gamma.size());
  m.init(out + ".g", {c}, bn.gamma);
  m.init(out + ".b", {c}, bn.beta);
  m.init(out + ".m", {c}, bn.mean);
  m.init(out + ".v", {c}, bn.var);
  OnnxBuilder::real(
      m.node("BatchNormalization", {in, out + ".g", out + ".b", out + ".m", out + ".v"}, out),
      "epsilon", eps);
}

// Every op of the set on an 8×8 image: conv + bn + relu; a grouped conv + bn added to it (the
// residual) + relu; max pooling in ceil mode; a batch-norm on a pool (a conv of its own) + relu
// and a Clip, concatenated; average pooling, flatten, Gemm, Dropout, Softmax.
struct EveryOp {
  std::string bytes;
  std::vector<double> logits;  // float64, [batch][10]
  std::vector<float> input_nchw;
  static constexpr int64_t kBatch = 2, kImage = 8, kClasses = 10;

  EveryOp() {
    OnnxBuilder m(kImage);
    const auto wa = random_floats(8 * 3 * 9, 1), ba = random_floats(8, 2);
    const auto wb = random_floats(8 * 2 * 9, 3);
    const auto wfc = random_floats(kClasses * 64, 4), bfc = random_floats(kClasses, 5);
    const Bn bna = random_bn(8, 10), bnb = random_bn(8, 20), bnd = random_bn(8, 30);
    m.init("wa", {8, 3, 3, 3}, wa);
    m.init("ba", {8}, ba);
    OnnxBuilder::ints(m.node("Conv", {"x", "wa", "ba"}, "conv_a"), "pads", {1, 1, 1, 1});
    add_bn(m, "conv_a", "bn_a", bna, 1e-5f);
    m.node("Relu", {"bn_a"}, "a");
    m.init("wb", {8, 2, 3, 3}, wb);
    auto* cb = m.node("Conv", {"a", "wb"}, "conv_b");
    OnnxBuilder::integer(cb, "group", 4);
    OnnxBuilder::ints(cb, "pads", {1, 1, 1, 1});
    add_bn(m, "conv_b", "bn_b", bnb, 1e-3f);
    m.node("Add", {"bn_b", "a"}, "sum");
    m.node("Relu", {"sum"}, "c");
    auto* mp = m.node("MaxPool", {"c"}, "d");
    OnnxBuilder::ints(mp, "kernel_shape", {3, 3});
    OnnxBuilder::ints(mp, "strides", {2, 2});
    OnnxBuilder::integer(mp, "ceil_mode", 1);
    add_bn(m, "d", "bn_d", bnd, 1e-5f);
    m.node("Relu", {"bn_d"}, "e");
    m.init("lo", {}, {0.0f});
    m.init("hi", {}, {0.5f});
    m.node("Clip", {"d", "lo", "hi"}, "f");
    OnnxBuilder::integer(m.node("Concat", {"e", "f"}, "g"), "axis", 1);
    auto* ap = m.node("AveragePool", {"g"}, "h");
    OnnxBuilder::ints(ap, "kernel_shape", {2, 2});
    OnnxBuilder::ints(ap, "strides", {2, 2});
    m.node("Flatten", {"h"}, "i");
    m.init("wfc", {kClasses, 64}, wfc);
    m.init("bfc", {kClasses}, bfc);
    OnnxBuilder::integer(m.node("Gemm", {"i", "wfc", "bfc"}, "logits"), "transB", 1);
    m.node("Dropout", {"logits"}, "kept");
    m.node("Softmax", {"kept"}, "probs");
    m.output("probs");
    bytes = m.bytes();

    input_nchw = random_floats(size_t(kBatch * 3 * kImage * kImage), 99);
    T4 x(kBatch, 3, kImage, kImage);
    std::copy(input_nchw.begin(), input_nchw.end(), x.v.begin());
    const T4 a = relu(batch_norm(conv(x, wa, ba, 8, 3, 1, 1, 1), bna, 1e-5f));
    const T4 c = relu(add(batch_norm(conv(a, wb, {}, 8, 3, 4, 1, 1), bnb, double(1e-3f)), a));
    const T4 d = pool(c, true, 3, 2, 0, true);
    const T4 g = concat(relu(batch_norm(d, bnd, double(1e-5f))), clip(d, 0.0, 0.5));
    logits = linear(pool(g, false, 2, 2, 0, false), wfc, bfc, kClasses);
  }
};

std::vector<float> run_on(const std::string& backend_name, const OnnxModel& model,
                          const std::vector<float>& input_nchw, std::vector<float>* probs,
                          std::vector<std::string>* notes = nullptr) {
  auto backend = make_backend(backend_name);
  const auto& net = model.network;
  Engine engine(net, model.weights, *backend);
  if (notes) *notes = engine.notes();
  const auto nhwc = nchw_to_nhwc(input_nchw, net.batch, 3, net.image, net.image);
  engine.set_input(nhwc.data());
  engine.forward();
  std::vector<float> logits(size_t(net.batch * net.classes));
  engine.logits(logits.data());
  if (probs) {
    probs->resize(logits.size());
    engine.probabilities(probs->data());
  }
  return logits;
}

class OnnxEngine : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { register_cpu_backends(); }
#ifdef KTUNE_NN_CUDA
  void SetUp() override {
    if (is_cuda(GetParam()) && ktune::cuda_device_count() == 0)
      GTEST_SKIP() << "no CUDA device: GPU test skipped";
  }
#endif

 public:
  static bool is_cuda(const std::string& name) {
    return name.starts_with("cublas") || name.starts_with("cudnn") ||
           name.starts_with("ktune-cuda") || name.starts_with("auto-cuda");
  }
};

TEST_P(OnnxEngine, EveryOpAgreesWithFloat64) {
  const EveryOp m;
  const auto model = parse_onnx(m.bytes.data(), m.bytes.size(), "every_op", EveryOp::kBatch);
  EXPECT_EQ(model.network.classes, EveryOp::kClasses);
  std::vector<float> probs;
  std::vector<std::string> notes;
  const auto logits = run_on(GetParam(), model, m.input_nchw, &probs, &notes);
  ASSERT_EQ(logits.size(), m.logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    EXPECT_NEAR(logits[i], m.logits[i], 1e-4 * (1 + std::abs(m.logits[i]))) << "logit " << i;
  for (int64_t b = 0; b < EveryOp::kBatch; ++b) {
    double sum = 0, top = -1e300;
    for (int64_t c = 0; c < EveryOp::kClasses; ++c)
      top = std::max(top, m.logits[size_t(b * 10 + c)]);
    for (int64_t c = 0; c < EveryOp::kClasses; ++c)
      sum += std::exp(m.logits[size_t(b * 10 + c)] - top);
    for (int64_t c = 0; c < EveryOp::kClasses; ++c)
      EXPECT_NEAR(probs[size_t(b * 10 + c)], std::exp(m.logits[size_t(b * 10 + c)] - top) / sum,
                  1e-5);
  }
  // The grouped conv and the lone batch-norm (one group per channel) run as dense convs: said
  // (`auto` adds a note of its own, the whole-network variant it keeps).
  std::vector<std::string> dense;
  for (const auto& note : notes)
    if (note.find("runs as a dense conv") != std::string::npos) dense.push_back(note);
  ASSERT_EQ(dense.size(), 2u);
  EXPECT_NE(dense[0].find("(conv_b): a conv of 4 groups runs as a dense conv"), std::string::npos)
      << dense[0];
  EXPECT_NE(dense[1].find("(bn_d.affine): a conv of 8 groups"), std::string::npos) << dense[1];
}

// A Pad of zeros, GlobalAveragePool, Reshape to [0, -1], MatMul and its bias from an Add of an
// Identity of an initializer; no Softmax in the model.
TEST_P(OnnxEngine, MatMulWithAddedBiasAgreesWithFloat64) {
  OnnxBuilder m(6);
  const auto w = random_floats(6 * 3, 7), wm = random_floats(6 * 5, 8), bm = random_floats(5, 9);
  m.init("w", {6, 3, 1, 1}, w);
  OnnxBuilder::ints(m.node("Conv", {"x", "w"}, "y"), "strides", {2, 2});
  m.init_ints("no_pads", {0, 0, 0, 0, 0, 0, 0, 0});
  m.node("Pad", {"y", "no_pads"}, "padded");  // as PyTorch exports DenseNet's average pooling
  m.node("GlobalAveragePool", {"padded"}, "pooled");
  m.init_ints("shape", {0, -1});
  m.node("Reshape", {"pooled", "shape"}, "flat");
  m.init("wm", {6, 5}, wm);
  m.node("MatMul", {"flat", "wm"}, "mm");
  m.init("bm0", {5}, bm);
  m.node("Identity", {"bm0"}, "bm");  // as PyTorch's exporter passes shared initializers
  m.node("Add", {"bm", "mm"}, "out");
  m.output("out");
  const auto bytes = m.bytes();
  const auto model = parse_onnx(bytes.data(), bytes.size(), "matmul", 3);
  EXPECT_EQ(model.network.layers.size(), 4u);  // conv, pool, fc, the added softmax

  const auto input = random_floats(3 * 3 * 6 * 6, 11);
  T4 x(3, 3, 6, 6);
  std::copy(input.begin(), input.end(), x.v.begin());
  const T4 pooled = pool(conv(x, w, {}, 6, 1, 1, 2, 0), false, 3, 1, 0, false);
  std::vector<float> wt(5 * 6);  // MatMul's [in][out] as Linear's [out][in]
  for (int i = 0; i < 6; ++i)
    for (int o = 0; o < 5; ++o) wt[size_t(o * 6 + i)] = wm[size_t(i * 5 + o)];
  const auto expect = linear(pooled, wt, bm, 5);
  const auto logits = run_on(GetParam(), model, input, nullptr);
  for (size_t i = 0; i < logits.size(); ++i) EXPECT_NEAR(logits[i], expect[i], 1e-5) << i;
}

// The registered backends of one device: the CPU's, or the CUDA ones (nn/cuda) where built, in
// FP32 (the tf32 / bf16 ones have their own bounds: tests/nn_cuda/test_cuda_precision.cpp,
// tests/nn/test_bf16_backends.cpp).
std::vector<std::string> backends(bool cuda) {
  register_cpu_backends();
#ifdef KTUNE_NN_CUDA
  register_cuda_backends();
#endif
  std::vector<std::string> names;
  for (const auto& [name, summary] : backend_list())
    if (OnnxEngine::is_cuda(name) == cuda && !name.ends_with("-tf32") && !name.ends_with("bf16"))
      names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Cpu, OnnxEngine, ::testing::ValuesIn(backends(false)));
#ifdef KTUNE_NN_CUDA
// Concat and clamp on the GPU, the models' grouped convs dense there too (skipped without a GPU).
INSTANTIATE_TEST_SUITE_P(Cuda, OnnxEngine, ::testing::ValuesIn(backends(true)));
#endif

// ---- shapes and errors -----------------------------------------------------------------------

TEST(OnnxLoad, ShapesFollowTheAttributes) {
  const EveryOp m;
  const auto model = parse_onnx(m.bytes.data(), m.bytes.size(), "every_op", 2);
  const auto& net = model.network;
  std::vector<std::string> kinds;
  for (const auto& l : net.layers) kinds.push_back(kind_name(l.kind));
  // bn_a, bn_b folded; the Relus fused into conv_a, the add and bn_d's conv; Clip a clamp.
  EXPECT_EQ(kinds, (std::vector<std::string>{"conv", "conv", "add", "max_pool", "conv", "clamp",
                                             "concat", "avg_pool", "fc", "softmax"}));
  EXPECT_TRUE(net.layers[0].conv.relu);
  EXPECT_EQ(net.layers[0].bn, "bn_a");
  EXPECT_EQ(net.layers[1].groups, 4);
  EXPECT_FLOAT_EQ(float(net.layers[1].bn_eps), 1e-3f);
  EXPECT_TRUE(net.layers[2].relu);
  const auto& pooled = net.tensors[size_t(net.layers[3].out)];  // ceil((8 - 3) / 2) + 1
  EXPECT_EQ(pooled.h, 4);
  EXPECT_EQ(net.tensors[size_t(net.layers[6].out)].c, 16);
  EXPECT_EQ(net.layers[8].fc.in, 64);
  EXPECT_EQ(net.logits, net.layers[8].out);
  EXPECT_EQ(net.probs, net.layers[9].out);
}

std::string load_error(const std::string& bytes, int64_t batch = 1) {
  try {
    parse_onnx(bytes.data(), bytes.size(), "m.onnx", batch);
  } catch (const Error& e) {
    return e.what();
  }
  return "(loaded)";
}

// x -> Conv(w [4, 3, 3, 3]) -> ... built by `more`, output "out".
template <class More>
std::string conv_model_error(More more, int64_t batch = 1) {
  OnnxBuilder m(8);
  m.init("w", {4, 3, 3, 3}, random_floats(4 * 27, 1));
  m.node("Conv", {"x", "w"}, "y", "conv");
  more(m);
  return load_error(m.bytes(), batch);
}

TEST(OnnxLoad, AnOpOutsideTheSetNamesTheNodeAndOp) {
  const auto e = conv_model_error([](OnnxBuilder& m) {
    m.node("Sigmoid", {"y"}, "s", "gate");
    m.output("s");
  });
  EXPECT_EQ(e.substr(0, e.find(" (supported")),
            "m.onnx: node 'gate' (Sigmoid): op 'Sigmoid' is not supported");
}

TEST(OnnxLoad, BytesThatAreNotAModelAreOneLine) {
  EXPECT_EQ(load_error("\xff\xff\xff garbage"),
            "m.onnx: not an ONNX model (the protobuf does not parse)");
  EXPECT_EQ(load_error(""), "m.onnx: the model has no graph nodes");
}

TEST(OnnxLoad, AMissingFileIsOneLine) {
  try {
    load_onnx("/nonexistent/model.onnx", 1);
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/model.onnx: cannot open");
  }
}

TEST(OnnxLoad, ShapeMismatchesAreCaughtAtLoad) {
  OnnxBuilder m(8);
  m.init("w", {4, 2, 3, 3}, random_floats(4 * 18, 1));  // 2 channels; the input has 3
  m.node("Conv", {"x", "w"}, "y", "conv");
  m.output("y");
  EXPECT_EQ(load_error(m.bytes()),
            "m.onnx: node 'conv' (Conv): weight [4, 2, 3, 3] with group 1 does not fit 3 input "
            "channels");

  EXPECT_EQ(conv_model_error([](OnnxBuilder& b) {  // 4 × 6 × 6 = 144 features, not 10
              b.node("Flatten", {"y"}, "f");
              b.init("fc", {5, 10}, random_floats(50, 2));
              OnnxBuilder::integer(b.node("Gemm", {"f", "fc"}, "out", "head"), "transB", 1);
              b.output("out");
            }),
            "m.onnx: node 'head' (Gemm): weight [5, 10] does not take 144 inputs");

  EXPECT_EQ(conv_model_error([](OnnxBuilder& b) {
              b.node("Concat", {"x", "y"}, "c", "cat");
              b.output("c");
            }),
            "m.onnx: node 'cat' (Concat): input 'y' is 6x6, the first 8x8");

  EXPECT_EQ(conv_model_error([](OnnxBuilder& b) {
              b.node("Flatten", {"y"}, "f");
              b.node("Relu", {"f"}, "r");  // fine: elementwise
              b.node("Concat", {"r", "r"}, "c", "cat");
              b.output("c");
            }),
            "m.onnx: node 'cat' (Concat): input 'r' is a flattened 4x6x6 map; only Gemm / MatMul "
            "read one");

  EXPECT_EQ(conv_model_error([](OnnxBuilder& b) { b.output("y"); }),
            "m.onnx: graph output 'y' is a 4x6x6 map, not [N, classes]");
}

TEST(OnnxLoad, AGroupedConvTooLargeToRunDenseIsRefusedAtLoad) {
  constexpr int64_t c = 16385;  // dense: 16385² floats, over 2^28
  OnnxBuilder m(2);
  m.init("w", {c, 3, 1, 1}, std::vector<float>(size_t(c * 3), 0.5f));
  m.node("Conv", {"x", "w"}, "y", "wide");
  m.init("dw", {c, 1, 1, 1}, std::vector<float>(size_t(c), 0.5f));
  OnnxBuilder::integer(m.node("Conv", {"y", "dw"}, "z", "depthwise"), "group", c);
  m.node("GlobalAveragePool", {"z"}, "out");
  m.output("out");
  EXPECT_EQ(load_error(m.bytes()),
            "m.onnx: node 'depthwise' (Conv): run as a dense conv, its 16385x16385x1x1 filter is "
            "over 2^28 floats");
}

TEST(OnnxLoad, AttributesTheEngineDoesNotRunAreRefused) {
  OnnxBuilder m(8);
  m.init("w", {4, 3, 3, 3}, random_floats(4 * 27, 1));
  OnnxBuilder::ints(m.node("Conv", {"x", "w"}, "y", "conv"), "dilations", {2, 2});
  m.output("y");
  EXPECT_EQ(load_error(m.bytes()),
            "m.onnx: node 'conv' (Conv): dilations [2, 2] are not supported (1, 1)");

  EXPECT_EQ(conv_model_error([](OnnxBuilder& b) {
              OnnxBuilder::ints(b.node("MaxPool", {"y"}, "p", "pool"), "kernel_shape", {2, 3});
              b.output("p");
            }),
            "m.onnx: node 'pool' (MaxPool): kernel_shape [2, 3] is not square");

  EXPECT_EQ(conv_model_error([](OnnxBuilder& b) {
              b.init_ints("p", {0, 0, 1, 1, 0, 0, 1, 1});
              b.node("Pad", {"y", "p"}, "out", "pad");
              b.output("out");
            }),
            "m.onnx: node 'pad' (Pad): pads [0, 0, 1, 1, 0, 0, 1, 1] are not all zero (only a "
            "Pad that pads nothing is supported)");

  OnnxBuilder pads(8);
  pads.init("w", {4, 3, 3, 3}, random_floats(4 * 27, 1));
  OnnxBuilder::ints(pads.node("Conv", {"x", "w"}, "y", "conv"), "pads", {1, 0, 1, 0});
  pads.output("y");
  EXPECT_EQ(load_error(pads.bytes()),
            "m.onnx: node 'conv' (Conv): pads [1, 0, 1, 0] are not four equal values");
}

TEST(OnnxLoad, InputsAndValuesAreChecked) {
  OnnxBuilder fixed(8, 3, 4);
  fixed.init("w", {4, 3, 3, 3}, random_floats(4 * 27, 1));
  fixed.node("Conv", {"x", "w"}, "y", "conv");
  fixed.output("y");
  EXPECT_EQ(load_error(fixed.bytes(), 2), "m.onnx: input 'x' has a fixed batch of 4, asked for 2");

  OnnxBuilder gray(8, 1);
  gray.node("Relu", {"x"}, "y");
  gray.output("y");
  EXPECT_EQ(load_error(gray.bytes()),
            "m.onnx: input 'x' is [N, 1, 8, 8]; the engine takes [N, 3, H, H], 1 <= H <= 4096");

  EXPECT_EQ(conv_model_error([](OnnxBuilder& b) {
              b.node("Add", {"y", "later"}, "s", "sum");
              b.node("Relu", {"y"}, "later");
              b.output("s");
            }),
            "m.onnx: node 'sum' (Add): input 'later' is not produced before this node");

  OnnxBuilder nan(8);
  nan.init("w", {4, 3, 3, 3}, std::vector<float>(4 * 27, std::nanf("")));
  nan.node("Conv", {"x", "w"}, "y", "conv");
  nan.output("y");
  EXPECT_EQ(load_error(nan.bytes()), "m.onnx: initializer 'w': holds a non-finite value nan");

  OnnxBuilder short_data(8);
  short_data.init("w", {4, 3, 3, 3}, random_floats(10, 1));
  short_data.node("Conv", {"x", "w"}, "y", "conv");
  short_data.output("y");
  EXPECT_EQ(load_error(short_data.bytes()),
            "m.onnx: initializer 'w': float_data holds 10 values, the dims need 108");
}

}  // namespace
}  // namespace ktune::nn
