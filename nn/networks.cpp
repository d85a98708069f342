// The graphs of vgg16, resnet50 and tiny, with torchvision's module names.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/error.hpp"
#include "ktune/nn/network.hpp"

namespace ktune::nn {

namespace {

class Builder {
 public:
  Builder(std::string name, int64_t batch, int64_t image, int64_t classes) {
    net_.name = std::move(name);
    net_.batch = batch;
    net_.image = image;
    net_.classes = classes;
    net_.input = tensor({batch, image, image, 3});
  }

  // conv (bias or folded batch-norm) + optional ReLU; returns the output tensor.
  int conv(int in, const std::string& name, int64_t k, int64_t r, int64_t stride, int64_t pad,
           bool relu, const std::string& bn = "") {
    const Shape4 s = net_.tensors[size_t(in)];
    Layer l;
    l.kind = LayerKind::conv;
    l.name = name;
    l.in = in;
    l.conv = {s.n, s.h, s.w, s.c, k, r, r, stride, pad, relu};
    l.conv_bias = bn.empty();
    l.bn = bn;
    l.out = tensor({s.n, l.conv.p(), l.conv.q(), k});
    return push(l);
  }

  int pool(int in, LayerKind kind, const std::string& name, int64_t window, int64_t stride,
           int64_t pad) {
    const Shape4 s = net_.tensors[size_t(in)];
    Layer l;
    l.kind = kind;
    l.name = name;
    l.in = in;
    l.pool = {s.n, s.h, s.w, s.c, window, stride, pad};
    l.out = tensor({s.n, l.pool.p(), l.pool.q(), s.c});
    return push(l);
  }

  int add(int a, int b, const std::string& name, bool relu) {
    Layer l;
    l.kind = LayerKind::add;
    l.name = name;
    l.in = a;
    l.in2 = b;
    l.relu = relu;
    l.out = tensor(net_.tensors[size_t(a)]);
    return push(l);
  }

  // Flattens its input as PyTorch does (NCHW order; the engine permutes the weights).
  int fc(int in, const std::string& name, int64_t out, bool relu) {
    const Shape4 s = net_.tensors[size_t(in)];
    Layer l;
    l.kind = LayerKind::fc;
    l.name = name;
    l.in = in;
    l.fc = {s.n, s.h * s.w * s.c, out, relu};
    l.out = tensor({s.n, 1, 1, out});
    return push(l);
  }

  Network finish(int logits) {
    net_.logits = logits;
    Layer l;
    l.kind = LayerKind::softmax;
    l.name = "softmax";
    l.in = logits;
    l.out = tensor(net_.tensors[size_t(logits)]);
    net_.probs = push(l);
    return std::move(net_);
  }

  int input() const { return net_.input; }

 private:
  int tensor(Shape4 s) {
    net_.tensors.push_back(s);
    return int(net_.tensors.size()) - 1;
  }
  int push(const Layer& l) {
    net_.layers.push_back(l);
    return l.out;
  }
  Network net_;
};

Network vgg16(int64_t batch) {
  Builder b("vgg16", batch, 224, 1000);
  int x = b.input();
  int index = 0;  // torchvision's features.<index>: conv, relu (and maxpool) each take one
  const std::pair<int, int64_t> stages[] = {{2, 64}, {2, 128}, {3, 256}, {3, 512}, {3, 512}};
  for (const auto& [convs, k] : stages) {
    for (int i = 0; i < convs; ++i, index += 2)
      x = b.conv(x, fmt::format("features.{}", index), k, 3, 1, 1, true);
    x = b.pool(x, LayerKind::max_pool, fmt::format("features.{}", index++), 2, 2, 0);
  }
  // avgpool (AdaptiveAvgPool2d(7)) is the identity on 7×7 features; dropout is inference-off.
  x = b.fc(x, "classifier.0", 4096, true);
  x = b.fc(x, "classifier.3", 4096, true);
  return b.finish(b.fc(x, "classifier.6", 1000, false));
}

// torchvision Bottleneck (v1.5: stride on conv2) or BasicBlock; `width` is the inner width.
int block(Builder& b, int x, const std::string& name, bool bottleneck, int64_t width,
          int64_t out_channels, int64_t stride, bool downsample) {
  int y;
  if (bottleneck) {
    y = b.conv(x, name + ".conv1", width, 1, 1, 0, true, name + ".bn1");
    y = b.conv(y, name + ".conv2", width, 3, stride, 1, true, name + ".bn2");
    y = b.conv(y, name + ".conv3", out_channels, 1, 1, 0, false, name + ".bn3");
  } else {
    y = b.conv(x, name + ".conv1", width, 3, stride, 1, true, name + ".bn1");
    y = b.conv(y, name + ".conv2", out_channels, 3, 1, 1, false, name + ".bn2");
  }
  const int identity = downsample ? b.conv(x, name + ".downsample.0", out_channels, 1, stride, 0,
                                           false, name + ".downsample.1")
                                  : x;
  return b.add(y, identity, name + ".add", true);
}

Network resnet50(int64_t batch) {
  Builder b("resnet50", batch, 224, 1000);
  int x = b.conv(b.input(), "conv1", 64, 7, 2, 3, true, "bn1");
  x = b.pool(x, LayerKind::max_pool, "maxpool", 3, 2, 1);
  const int blocks[4] = {3, 4, 6, 3};
  for (int layer = 0; layer < 4; ++layer) {
    const int64_t width = int64_t(64) << layer;
    for (int i = 0; i < blocks[layer]; ++i)
      x = block(b, x, fmt::format("layer{}.{}", layer + 1, i), true, width, width * 4,
                i == 0 && layer > 0 ? 2 : 1, i == 0);
  }
  x = b.pool(x, LayerKind::avg_pool, "avgpool", 7, 1, 0);
  return b.finish(b.fc(x, "fc", 1000, false));
}

// 16×16 input: conv+bn+relu, maxpool → 8×8, a basic block with stride 2 and a downsample → 4×4,
// avgpool 2×2 → 2×2×16 (so the fc flattens a spatial map, as VGG16's classifier.0), fc → 10.
Network tiny(int64_t batch) {
  Builder b("tiny", batch, 16, 10);
  int x = b.conv(b.input(), "conv1", 8, 3, 1, 1, true, "bn1");
  x = b.pool(x, LayerKind::max_pool, "maxpool", 3, 2, 1);
  x = block(b, x, "layer1.0", false, 16, 16, 2, true);
  x = b.pool(x, LayerKind::avg_pool, "avgpool", 2, 2, 0);
  return b.finish(b.fc(x, "fc", 10, false));
}

}  // namespace

const char* kind_name(LayerKind k) {
  // In LayerKind's order (ktune/nn/network.hpp).
  static constexpr const char* kNames[] = {"conv", "max_pool", "avg_pool", "add",
                                           "fc",   "softmax",  "concat",   "clamp"};
  const auto i = static_cast<size_t>(k);
  return i < std::size(kNames) ? kNames[i] : "?";
}

std::vector<std::string> network_names() { return {"resnet50", "tiny", "vgg16"}; }

Network make_network(const std::string& name, int64_t batch) {
  if (batch < 1) throw Error(fmt::format("batch {} must be at least 1", batch));
  if (batch > 1024) throw Error(fmt::format("batch {} is over the limit of 1024", batch));
  if (name == "vgg16") return vgg16(batch);
  if (name == "resnet50") return resnet50(batch);
  if (name == "tiny") return tiny(batch);
  throw Error(
      fmt::format("unknown network '{}' (known: {})", name, fmt::join(network_names(), ", ")));
}

std::vector<ParamSpec> parameters(const Network& net) {
  std::vector<ParamSpec> out;
  for (const auto& l : net.layers) {
    if (l.kind == LayerKind::conv) {
      const auto& d = l.conv;
      out.push_back({l.name + ".weight", {d.k, d.c / l.groups, d.r, d.s}});
      if (l.conv_bias) out.push_back({l.name + ".bias", {d.k}});
      if (!l.bn.empty())
        for (const char* p : {"weight", "bias", "running_mean", "running_var"})
          out.push_back({l.bn + "." + p, {d.k}});
    } else if (l.kind == LayerKind::fc) {
      out.push_back({l.name + ".weight", {l.fc.out, l.fc.in}});
      out.push_back({l.name + ".bias", {l.fc.out}});
    }
  }
  return out;
}

}  // namespace ktune::nn
