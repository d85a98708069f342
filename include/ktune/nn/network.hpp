#pragma once
// Network graphs: a list of layers over NHWC tensors, with the torchvision parameter names each
// layer reads. make_network() knows vgg16 (torchvision vgg16), resnet50 (torchvision resnet50,
// v1.5: stride in the 3×3 conv of a bottleneck) and tiny (a few layers for tests: conv, bn,
// relu, maxpool, a basic residual block with a downsample, avgpool, flatten, fc, softmax).
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/nn/backend.hpp"
#include "ktune/nn/weights.hpp"

namespace ktune::nn {

struct Shape4 {
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t count() const { return n * h * w * c; }
};

// Batch-norm epsilon of torchvision's BatchNorm2d (an ONNX model's layers carry their own).
inline constexpr double kBatchNormEps = 1e-5;

// concat and clamp come only from ONNX models (nn/onnx/): channel concatenation (GoogLeNet,
// DenseNet) and an elementwise clamp (ReLU6's Clip, a ReLU that follows no conv, fc or add).
enum class LayerKind { conv, max_pool, avg_pool, add, fc, softmax, concat, clamp };
const char* kind_name(LayerKind k);

struct Layer {
  LayerKind kind = LayerKind::conv;
  std::string name;       // torchvision module name: "features.0", "layer1.0.conv1", "fc"
  int in = -1, in2 = -1;  // tensor ids (in2: the second addend)
  int out = -1;
  ConvDesc conv;           // kind conv
  PoolDesc pool;           // kind max_pool / avg_pool
  FcDesc fc;               // kind fc
  bool relu = false;       // kind add (conv and fc carry theirs in the desc)
  bool conv_bias = false;  // conv: "<name>.bias" exists (VGG); else zero bias
  std::string bn;  // conv: batch-norm module folded in ("bn1", "layer1.0.downsample.1"), or ""
  double bn_eps = kBatchNormEps;
  // conv: channel groups of the weight [k][c / groups][r][s]. The engine hands every backend a
  // dense conv (a block-diagonal filter): no tuned kind covers grouped convs (Engine::notes()).
  int64_t groups = 1;
  std::vector<int> ins;  // kind concat: the tensors concatenated along channels, in order
  float lo = 0, hi = 0;  // kind clamp: out = min(max(in, lo), hi)
};

struct Network {
  std::string name;
  int64_t batch = 0, image = 0, classes = 0;  // input batch × 3 × image × image (NCHW in PyTorch)
  std::vector<Shape4> tensors;                // by id; fc/softmax outputs are batch×1×1×classes
  std::vector<Layer> layers;                  // in execution order
  int input = 0, logits = -1, probs = -1;     // tensor ids
};

// Throws ktune::Error for an unknown name ("unknown network 'x' (known: ...)") or batch < 1.
Network make_network(const std::string& name, int64_t batch);
std::vector<std::string> network_names();

// The parameters a network reads, with PyTorch shapes, in layer order.
struct ParamSpec {
  std::string name;
  std::vector<int64_t> shape;
};
std::vector<ParamSpec> parameters(const Network& net);

// Seeded random parameters in PyTorch layouts: conv / fc weights He-normal (std sqrt(2/fan_in)),
// biases N(0, 0.01²), batch-norm gamma U[0.5, 1.5] (U[0.05, 0.25] for the last batch-norm of a
// residual branch, which keeps ResNet-50's logits O(10)), beta and running_mean N(0, 0.1²),
// running_var U[0.5, 1.5]. The generator is mt19937_64 with its own Box–Muller, so a seed gives
// the same values on every platform.
Weights random_weights(const Network& net, uint64_t seed);

// A seeded input, NCHW [batch][3][image][image], N(0, 1) (a normalised image's range).
std::vector<float> random_input_nchw(const Network& net, uint64_t seed);
// `count` seeded N(0, 1) values from the same portable generator (any buffer that must not be
// all zeros, e.g. a timing's operands).
std::vector<float> random_normal(size_t count, uint64_t seed);
// [n][c][h][w] → [n][h][w][c].
std::vector<float> nchw_to_nhwc(const std::vector<float>& x, int64_t n, int64_t c, int64_t h,
                                int64_t w);

}  // namespace ktune::nn
