// ONNX model → Network + Weights (include/ktune/nn/onnx.hpp). Nodes are read in the graph's
// order (ONNX requires a topological one); each value name maps to an engine tensor, and the ops
// that move no data (Identity, Dropout, Flatten, Reshape to [N, features]) only map a new name.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "ktune/error.hpp"
#include "ktune/nn/onnx.hpp"
#include "nn/onnx/onnx_tensors.hpp"

namespace ktune::nn {

namespace {

using onnx_io::Constant;

constexpr int64_t kMaxImage = 4096, kMaxWindow = 4096;
constexpr int64_t kMaxActivation = int64_t(1) << 31;  // floats in one activation tensor
// Floats of the dense filter a grouped conv runs as (1 GiB): past it, a depthwise conv of very
// many channels would fail allocating at the engine's set-up instead of here with its node.
constexpr int64_t kMaxDenseFilter = int64_t(1) << 28;

const char* const kSupported =
    "Conv, Gemm, MatMul, Relu, Clip, BatchNormalization, Add, MaxPool, AveragePool, "
    "GlobalAveragePool, Flatten, Reshape, Concat, Softmax, Dropout, Identity, Constant, Pad "
    "(of zeros)";

class Loader {
 public:
  Loader(const onnx::ModelProto& model, std::string source, int64_t batch)
      : g_(model.graph()), source_(std::move(source)), weights_(source_) {
    if (batch < 1 || batch > 1024) throw Error(fmt::format("batch {} is outside 1..1024", batch));
    net_.batch = batch;
    net_.name = model.graph().name().empty() ? "onnx" : model.graph().name();
  }

  OnnxModel run() {
    for (const auto& t : g_.initializer()) add_constant(t.name(), t, "initializer");
    for (const auto& n : g_.node())
      for (const auto& in : n.input()) ++uses_[in];
    for (const auto& o : g_.output()) ++uses_[o.name()];
    read_input();
    for (int i = 0; i < g_.node_size(); ++i) node(g_.node(i), i);
    finish();
    return {std::move(net_), std::move(weights_)};
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: {}", source_, what));
  }
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& what) const {
    fail(fmt::format("node '{}' ({}): {}", n.name(), n.op_type(), what));
  }

  void add_constant(const std::string& name, const onnx::TensorProto& t, const char* what) {
    if (name.empty()) fail(fmt::format("an {} has no name", what));
    try {
      constants_[name] = onnx_io::read_constant(t);
    } catch (const Error& e) {
      fail(fmt::format("{} '{}': {}", what, name, e.what()));
    }
  }

  void read_input() {
    std::vector<const onnx::ValueInfoProto*> inputs;
    for (const auto& v : g_.input())
      if (!constants_.count(v.name())) inputs.push_back(&v);
    if (inputs.size() != 1)
      fail(
          fmt::format("the graph has {} inputs that are not initializers, the engine takes one "
                      "image tensor",
                      inputs.size()));
    const auto& v = *inputs[0];
    const auto& type = v.type();
    if (!type.has_tensor_type() || type.tensor_type().elem_type() != onnx::TensorProto::FLOAT ||
        !type.tensor_type().has_shape() || type.tensor_type().shape().dim_size() != 4)
      fail(fmt::format("input '{}' is not a float tensor of 4 dimensions [N, 3, H, W]", v.name()));
    const auto& dims = type.tensor_type().shape().dim();
    if (dims[0].has_dim_value() && dims[0].dim_value() != net_.batch)
      fail(fmt::format("input '{}' has a fixed batch of {}, asked for {}", v.name(),
                       dims[0].dim_value(), net_.batch));
    for (int i = 1; i < 4; ++i)
      if (!dims[i].has_dim_value())
        fail(fmt::format("input '{}': dimension {} has no fixed size", v.name(), i));
    const int64_t c = dims[1].dim_value(), h = dims[2].dim_value(), w = dims[3].dim_value();
    if (c != 3 || h != w || h < 1 || h > kMaxImage)
      fail(
          fmt::format("input '{}' is [N, {}, {}, {}]; the engine takes [N, 3, H, H], "
                      "1 <= H <= {}",
                      v.name(), c, h, w, kMaxImage));
    net_.image = h;
    net_.input = tensor({net_.batch, h, w, 3});
    bind(v.name(), net_.input);
  }

  int tensor(Shape4 s) {
    net_.tensors.push_back(s);
    producer_.push_back(-1);
    reads_.push_back(0);
    return int(net_.tensors.size()) - 1;
  }

  // Maps a value name to a tensor; the tensor's readers gain the name's uses.
  void bind(const std::string& name, int t, bool flat = false) {
    if (name.empty()) return;
    if (values_.count(name) || constants_.count(name))
      fail(fmt::format("value '{}' is produced twice", name));
    values_[name] = t;
    if (flat) flat_.insert(name);
    reads_[size_t(t)] += uses_[name];
  }

  int value(const onnx::NodeProto& n, int index) const {
    if (index >= n.input_size() || n.input(index).empty())
      fail(n, fmt::format("input {} is missing", index));
    const auto it = values_.find(n.input(index));
    if (it == values_.end()) {
      if (constants_.count(n.input(index)))
        fail(n, fmt::format("input '{}' is a constant; the engine takes a computed tensor here",
                            n.input(index)));
      fail(n, fmt::format("input '{}' is not produced before this node", n.input(index)));
    }
    return it->second;
  }
  // A value read as an image (NHWC): a flattened spatial map would be read in the wrong order.
  int spatial(const onnx::NodeProto& n, int index) const {
    const int t = value(n, index);
    const auto& s = net_.tensors[size_t(t)];
    if (flat_.count(n.input(index)) && s.h * s.w > 1)
      fail(n, fmt::format("input '{}' is a flattened {}x{}x{} map; only Gemm / MatMul read one",
                          n.input(index), s.c, s.h, s.w));
    return t;
  }
  const Constant* constant(const onnx::NodeProto& n, int index, bool required = true) const {
    if (index >= n.input_size() || n.input(index).empty()) {
      if (required) fail(n, fmt::format("input {} is missing", index));
      return nullptr;
    }
    const auto it = constants_.find(n.input(index));
    if (it == constants_.end())
      fail(n, fmt::format("input '{}' must be a constant (initializer)", n.input(index)));
    if (it->second.is_int) fail(n, fmt::format("input '{}' must be float", n.input(index)));
    return &it->second;
  }
  void expect_shape(const onnx::NodeProto& n, const Constant& c, int index,
                    const std::vector<int64_t>& shape) const {
    if (c.shape != shape)
      fail(n, fmt::format("input '{}' has shape {}, expected {}", n.input(index),
                          shape_text(c.shape), shape_text(shape)));
  }
  void only_first_output(const onnx::NodeProto& n) const {
    for (int i = 1; i < n.output_size(); ++i)
      if (!n.output(i).empty() && uses_.count(n.output(i)) && uses_.at(n.output(i)) > 0)
        fail(n, fmt::format("output {} ('{}') is used; the engine computes only the first", i,
                            n.output(i)));
    if (n.output_size() < 1 || n.output(0).empty()) fail(n, "has no output");
  }

  // A unique layer name (weights are keyed by it).
  std::string layer_name(const onnx::NodeProto& n, int index) {
    std::string name = n.name().empty() ? fmt::format("{}_{}", n.op_type(), index) : n.name();
    while (!names_.insert(name).second) name += fmt::format("#{}", index);
    return name;
  }

  int push(const onnx::NodeProto& n, Layer l, Shape4 out) {
    if (out.n < 1 || out.h < 1 || out.w < 1 || out.c < 1)
      fail(n, fmt::format("the output would be {}x{}x{}x{} (NHWC)", out.n, out.h, out.w, out.c));
    if (out.h > kMaxActivation / out.w || out.h * out.w > kMaxActivation / out.c ||
        out.h * out.w * out.c > kMaxActivation / out.n)
      fail(n,
           fmt::format("the output {}x{}x{}x{} is over 2^31 floats", out.n, out.h, out.w, out.c));
    l.out = tensor(out);
    producer_[size_t(l.out)] = int(net_.layers.size());
    net_.layers.push_back(std::move(l));
    bind(n.output(0), net_.layers.back().out);
    return net_.layers.back().out;
  }

  // The layer that wrote tensor t, when only one reader (this node) reads it, else nullptr:
  // the node may then be fused into that layer.
  Layer* sole_producer(int t) {
    const int p = producer_[size_t(t)];
    if (p < 0 || reads_[size_t(t)] != 1) return nullptr;
    return &net_.layers[size_t(p)];
  }

  void alias(const onnx::NodeProto& n, int t, bool flat) {
    only_first_output(n);
    bind(n.output(0), t, flat);
    --reads_[size_t(t)];  // this node's read was an alias, not a use
  }

  void check_dense(const onnx::NodeProto& n, int64_t k, int64_t c, int64_t r, int64_t s) const {
    if (k > kMaxDenseFilter / c || k * c > kMaxDenseFilter / (r * s))
      fail(n, fmt::format("run as a dense conv, its {}x{}x{}x{} filter is over 2^28 floats", k, c,
                          r, s));
  }

  // Symmetric, square windows: ONNX allows more than the engine runs.
  struct Window {
    int64_t kh = 1, kw = 1, stride = 1, pad = 0;
  };
  Window window(const onnx::NodeProto& n, const std::vector<int64_t>& kernel) const {
    const auto pad_mode = onnx_io::string_attr(n, "auto_pad");
    if (!pad_mode.empty() && pad_mode != "NOTSET" && pad_mode != "VALID")
      fail(n, fmt::format("auto_pad {} is not supported (NOTSET, VALID)", pad_mode));
    const auto given = onnx_io::ints_attr(n, "kernel_shape", kernel);
    if (given.size() != 2 || (given != kernel && !kernel.empty()))
      fail(n, fmt::format("kernel_shape {} does not match the weight's {}", shape_text(given),
                          shape_text(kernel)));
    const auto strides = onnx_io::ints_attr(n, "strides", {1, 1});
    const auto pads = onnx_io::ints_attr(n, "pads", {0, 0, 0, 0});
    const auto dilations = onnx_io::ints_attr(n, "dilations", {1, 1});
    if (strides.size() != 2 || strides[0] != strides[1])
      fail(n, fmt::format("strides {} are not two equal values", shape_text(strides)));
    if (pads.size() != 4 ||
        std::adjacent_find(pads.begin(), pads.end(), std::not_equal_to<>()) != pads.end())
      fail(n, fmt::format("pads {} are not four equal values", shape_text(pads)));
    if (dilations != std::vector<int64_t>{1, 1})
      fail(n, fmt::format("dilations {} are not supported (1, 1)", shape_text(dilations)));
    Window win{given[0], given[1], strides[0], pads[0]};
    if (win.kh < 1 || win.kw < 1 || win.kh > kMaxWindow || win.kw > kMaxWindow || win.stride < 1 ||
        win.stride > kMaxWindow || win.pad < 0 || win.pad > kMaxWindow)
      fail(n, fmt::format("kernel {}x{}, stride {}, pad {} out of range", win.kh, win.kw,
                          win.stride, win.pad));
    return win;
  }

  void node(const onnx::NodeProto& n, int index) {
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      fail(n, fmt::format("domain '{}' is not supported", n.domain()));
    try {
      if ((op == "Identity" || op == "Dropout") && n.input_size() > 0 &&
          constants_.count(n.input(0))) {
        only_first_output(n);  // PyTorch's exporter passes shared initializers through Identity
        if (values_.count(n.output(0)) || constants_.count(n.output(0)))
          fail(n, fmt::format("value '{}' is produced twice", n.output(0)));
        constants_[n.output(0)] = constants_.at(n.input(0));
      } else if (op == "Identity" || op == "Dropout") {
        const int t = value(n, 0);
        alias(n, t, flat_.count(n.input(0)) != 0);
      } else if (op == "Constant") {
        const auto* a = onnx_io::attribute(n, "value");
        if (!a || a->type() != onnx::AttributeProto::TENSOR)
          fail(n, "only a TENSOR 'value' attribute is supported");
        only_first_output(n);
        add_constant(n.output(0), a->t(), "Constant");
      } else if (op == "Conv") {
        conv(n, index);
      } else if (op == "BatchNormalization") {
        batch_norm(n, index);
      } else if (op == "Relu") {
        clamp(n, index, 0.0f, std::numeric_limits<float>::infinity());
      } else if (op == "Clip") {
        clip(n, index);
      } else if (op == "Add") {
        add(n, index);
      } else if (op == "Gemm" || op == "MatMul") {
        fc(n, index);
      } else if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool") {
        pool(n, index);
      } else if (op == "Flatten" || op == "Reshape") {
        flatten(n);
      } else if (op == "Pad") {
        pad(n);
      } else if (op == "Concat") {
        concat(n, index);
      } else if (op == "Softmax") {
        softmax(n, index);
      } else {
        fail(n, fmt::format("op '{}' is not supported (supported: {})", op, kSupported));
      }
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.rfind(source_ + ":", 0) == 0) throw;
      fail(n, what);  // a helper's error without the file and node
    }
  }

  void conv(const onnx::NodeProto& n, int index) {
    only_first_output(n);
    const int x = spatial(n, 0);
    const auto& weight = *constant(n, 1);
    const auto* bias = constant(n, 2, false);
    const Shape4 s = net_.tensors[size_t(x)];
    if (weight.shape.size() != 4) fail(n, "the weight is not [K, C / group, R, S]");
    const int64_t groups = onnx_io::int_attr(n, "group", 1);
    const int64_t k = weight.shape[0];
    if (groups < 1 || groups > s.c || s.c % groups || k % groups || weight.shape[1] * groups != s.c)
      fail(n, fmt::format("weight {} with group {} does not fit {} input channels",
                          shape_text(weight.shape), groups, s.c));
    const auto win = window(n, {weight.shape[2], weight.shape[3]});
    Layer l;
    l.kind = LayerKind::conv;
    l.name = layer_name(n, index);
    l.in = x;
    l.groups = groups;
    l.conv = {s.n, s.h, s.w, s.c, k, win.kh, win.kw, win.stride, win.pad, false};
    if (groups > 1) check_dense(n, k, s.c, win.kh, win.kw);
    if (s.h + 2 * win.pad < win.kh || s.w + 2 * win.pad < win.kw)
      fail(n, fmt::format("kernel {}x{} is larger than the padded {}x{} input", win.kh, win.kw,
                          s.h + 2 * win.pad, s.w + 2 * win.pad));
    weights_.set(l.name + ".weight", {weight.shape, weight.floats, "F32"});
    if (bias) {
      expect_shape(n, *bias, 2, {k});
      weights_.set(l.name + ".bias", {bias->shape, bias->floats, "F32"});
      l.conv_bias = true;
    }
    const Shape4 out{s.n, l.conv.p(), l.conv.q(), k};
    push(n, std::move(l), out);
  }

  // Folded into the conv before it when that conv's output is read only here; else a conv of
  // its own: 1×1, one group per channel, weight 1, the batch-norm folded in.
  void batch_norm(const onnx::NodeProto& n, int index) {
    only_first_output(n);
    if (onnx_io::int_attr(n, "training_mode", 0) != 0) fail(n, "training_mode is not supported");
    const int x = spatial(n, 0);
    const int64_t c = net_.tensors[size_t(x)].c;
    const char* const parts[] = {"weight", "bias", "running_mean", "running_var"};
    std::vector<const Constant*> params;
    for (int i = 1; i <= 4; ++i) {
      params.push_back(constant(n, i));
      expect_shape(n, *params.back(), i, {c});
    }
    for (float v : params[3]->floats)
      if (v < 0) fail(n, fmt::format("running variance '{}' has a negative entry", n.input(4)));
    const double eps = onnx_io::float_attr(n, "epsilon").value_or(1e-5f);
    if (!(eps >= 0)) fail(n, fmt::format("epsilon {} is negative", eps));
    const std::string bn = layer_name(n, index);
    for (int i = 0; i < 4; ++i)
      weights_.set(bn + "." + parts[i],
                   {params[size_t(i)]->shape, params[size_t(i)]->floats, "F32"});
    Layer* conv = sole_producer(x);
    if (conv && conv->kind == LayerKind::conv && conv->bn.empty() && !conv->conv.relu) {
      conv->bn = bn;
      conv->bn_eps = eps;
      alias(n, x, false);
      return;
    }
    check_dense(n, c, c, 1, 1);
    const Shape4 s = net_.tensors[size_t(x)];
    Layer l;
    l.kind = LayerKind::conv;
    l.name = bn + ".affine";
    l.in = x;
    l.groups = c;
    l.bn = bn;
    l.bn_eps = eps;
    l.conv = {s.n, s.h, s.w, c, c, 1, 1, 1, 0, false};
    weights_.set(l.name + ".weight", {{c, 1, 1, 1}, std::vector<float>(size_t(c), 1.0f), "F32"});
    push(n, std::move(l), s);
  }

  // Relu (lo 0, hi inf) after a conv, fc or add read only here: fused into it; else a clamp.
  void clamp(const onnx::NodeProto& n, int index, float lo, float hi) {
    only_first_output(n);
    const int x = value(n, 0);
    if (!(lo <= hi)) fail(n, fmt::format("min {} is above max {}", lo, hi));
    if (lo == 0 && hi == std::numeric_limits<float>::infinity()) {
      Layer* p = sole_producer(x);
      if (p && p->kind == LayerKind::conv && !p->conv.relu) {
        p->conv.relu = true;
      } else if (p && p->kind == LayerKind::fc && !p->fc.relu) {
        p->fc.relu = true;
      } else if (p && p->kind == LayerKind::add && !p->relu) {
        p->relu = true;
      } else {
        p = nullptr;
      }
      if (p) return alias(n, x, flat_.count(n.input(0)) != 0);
    }
    Layer l;
    l.kind = LayerKind::clamp;
    l.name = layer_name(n, index);
    l.in = x;
    l.lo = lo;
    l.hi = hi;
    const bool flat = flat_.count(n.input(0)) != 0;
    push(n, std::move(l), net_.tensors[size_t(x)]);
    if (flat) flat_.insert(n.output(0));  // elementwise: the order does not matter
  }

  void clip(const onnx::NodeProto& n, int index) {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (const auto a = onnx_io::float_attr(n, "min")) lo = *a;  // opset < 11: attributes
    if (const auto a = onnx_io::float_attr(n, "max")) hi = *a;
    for (int i : {1, 2}) {  // opset >= 11: optional scalar inputs
      const auto* c = constant(n, i, false);
      if (!c) continue;
      if (c->floats.size() != 1) fail(n, fmt::format("input {} is not a scalar", i));
      (i == 1 ? lo : hi) = c->floats[0];
    }
    clamp(n, index, lo, hi);
  }

  void add(const onnx::NodeProto& n, int index) {
    only_first_output(n);
    if (n.input_size() != 2) fail(n, "takes two inputs");
    // A constant addend: the bias of the fc (MatMul) before it.
    for (int i : {0, 1}) {
      if (!constants_.count(n.input(i))) continue;
      const int x = value(n, 1 - i);
      Layer* fc = sole_producer(x);
      const auto* bias = constant(n, i);
      if (!fc || fc->kind != LayerKind::fc || fc->relu || weights_.contains(fc->name + ".bias"))
        fail(n, "a constant addend is supported only as the bias of the MatMul before it");
      if (bias->count() != fc->fc.out)
        fail(n, fmt::format("the bias '{}' has {} values, the MatMul {} outputs", n.input(i),
                            bias->count(), fc->fc.out));
      weights_.set(fc->name + ".bias", {{fc->fc.out}, bias->floats, "F32"});
      return alias(n, x, true);
    }
    const int a = value(n, 0), b = value(n, 1);
    const auto &sa = net_.tensors[size_t(a)], &sb = net_.tensors[size_t(b)];
    if (sa.n != sb.n || sa.h != sb.h || sa.w != sb.w || sa.c != sb.c ||
        flat_.count(n.input(0)) != flat_.count(n.input(1)))
      fail(n, fmt::format("inputs '{}' and '{}' differ in shape (no broadcasting)", n.input(0),
                          n.input(1)));
    Layer l;
    l.kind = LayerKind::add;
    l.name = layer_name(n, index);
    l.in = a;
    l.in2 = b;
    const bool flat = flat_.count(n.input(0)) != 0;
    push(n, std::move(l), sa);
    if (flat) flat_.insert(n.output(0));
  }

  // Gemm (alpha = beta = 1, A not transposed, B [out][in] with transB or [in][out] without) and
  // MatMul (B [in][out]): the flatten of a spatial input is PyTorch's (NCHW), as the engine takes.
  void fc(const onnx::NodeProto& n, int index) {
    only_first_output(n);
    const bool gemm = n.op_type() == "Gemm";
    const int x = value(n, 0);
    const Shape4 s = net_.tensors[size_t(x)];
    const int64_t in = s.h * s.w * s.c;
    if (s.h * s.w > 1 && !flat_.count(n.input(0)))
      fail(n, fmt::format("input '{}' is a {}x{}x{} map; flatten it first", n.input(0), s.c, s.h,
                          s.w));
    if (gemm &&
        (onnx_io::float_attr(n, "alpha").value_or(1) != 1 ||
         onnx_io::float_attr(n, "beta").value_or(1) != 1 || onnx_io::int_attr(n, "transA", 0) != 0))
      fail(n, "only alpha = beta = 1 and transA = 0 are supported");
    const bool trans_b = gemm && onnx_io::int_attr(n, "transB", 0) != 0;
    const auto& b = *constant(n, 1);
    if (b.shape.size() != 2 || b.shape[trans_b ? 1 : 0] != in)
      fail(n, fmt::format("weight {} does not take {} inputs", shape_text(b.shape), in));
    const int64_t out = b.shape[trans_b ? 0 : 1];
    std::vector<float> weight = b.floats;  // [out][in]
    if (!trans_b)
      for (int64_t o = 0; o < out; ++o)
        for (int64_t i = 0; i < in; ++i) weight[size_t(o * in + i)] = b.floats[size_t(i * out + o)];
    Layer l;
    l.kind = LayerKind::fc;
    l.name = layer_name(n, index);
    l.in = x;
    l.fc = {s.n, in, out, false};
    weights_.set(l.name + ".weight", {{out, in}, std::move(weight), "F32"});
    if (const auto* c = gemm ? constant(n, 2, false) : nullptr) {
      if (c->count() != out || c->shape.size() > 2)
        fail(n, fmt::format("bias {} is not [{}]", shape_text(c->shape), out));
      weights_.set(l.name + ".bias", {{out}, c->floats, "F32"});
    } else if (gemm) {
      weights_.set(l.name + ".bias", {{out}, std::vector<float>(size_t(out), 0.0f), "F32"});
    }
    const std::string name = l.name;
    push(n, std::move(l), {s.n, 1, 1, out});
    flat_.insert(n.output(0));
    if (!gemm) pending_bias_.insert(name);
  }

  void pool(const onnx::NodeProto& n, int index) {
    only_first_output(n);
    const int x = spatial(n, 0);
    const Shape4 s = net_.tensors[size_t(x)];
    Layer l;
    l.name = layer_name(n, index);
    l.in = x;
    l.kind = n.op_type() == "MaxPool" ? LayerKind::max_pool : LayerKind::avg_pool;
    if (n.op_type() == "GlobalAveragePool") {
      if (s.h != s.w) fail(n, fmt::format("the input is {}x{}, not square", s.h, s.w));
      l.pool = {s.n, s.h, s.w, s.c, s.h, 1, 0};
    } else {
      const auto kernel = onnx_io::ints_attr(n, "kernel_shape", {});
      if (kernel.size() != 2 || kernel[0] != kernel[1])
        fail(n, fmt::format("kernel_shape {} is not square", shape_text(kernel)));
      const auto win = window(n, kernel);
      if (onnx_io::int_attr(n, "storage_order", 0) != 0)
        fail(n, "storage_order 1 is not supported");
      l.pool = {s.n, s.h, s.w, s.c, win.kh, win.stride, win.pad};
      l.pool.ceil = onnx_io::int_attr(n, "ceil_mode", 0) != 0;
      if (l.kind == LayerKind::avg_pool) {
        // The engine divides by the whole window: what count_include_pad = 1 does, and what
        // count_include_pad = 0 does where no window reaches into the padding.
        if (l.pool.ceil &&
            l.pool.p() != PoolDesc{l.pool.n, s.h, s.w, s.c, win.kh, win.stride, win.pad}.p())
          fail(n, "ceil_mode changes the output size; not supported for AveragePool");
        if (win.pad > 0 && onnx_io::int_attr(n, "count_include_pad", 0) == 0)
          fail(n, "count_include_pad = 0 with padding is not supported");
      }
      if (s.h + 2 * win.pad < win.kh || win.pad * 2 > win.kh)
        fail(n, fmt::format("window {} with pad {} does not fit the {}x{} input", win.kh, win.pad,
                            s.h, s.w));
    }
    const Shape4 out{s.n, l.pool.p(), l.pool.q(), s.c};
    push(n, std::move(l), out);
  }

  // Flatten (axis 1) and Reshape to [N, features]: the same NHWC buffer, read by Gemm / MatMul in
  // PyTorch's NCHW flatten order (the engine permutes the fc weight).
  void flatten(const onnx::NodeProto& n) {
    const int x = value(n, 0);
    const Shape4 s = net_.tensors[size_t(x)];
    const int64_t features = s.h * s.w * s.c;
    if (n.op_type() == "Flatten") {
      if (onnx_io::int_attr(n, "axis", 1) != 1) fail(n, "only axis 1 is supported");
    } else {
      const auto it = constants_.find(n.input_size() > 1 ? n.input(1) : "");
      if (it == constants_.end() || !it->second.is_int || it->second.ints.size() != 2)
        fail(n, "only a constant 2-element shape [N, features] is supported");
      const auto& to = it->second.ints;
      const bool batch_ok = to[0] == 0 || to[0] == -1 || to[0] == s.n;
      const bool features_ok = to[1] == -1 || to[1] == features;
      if (!batch_ok || !features_ok || (to[0] == -1 && to[1] == -1))
        fail(n, fmt::format("shape {} is not [N, {}]", shape_text(to), features));
    }
    alias(n, x, true);
  }

  // Pad of zero amounts (PyTorch exports one before DenseNet's average pooling): no layer.
  void pad(const onnx::NodeProto& n) {
    const int x = value(n, 0);
    const auto mode = onnx_io::string_attr(n, "mode");
    std::vector<int64_t> pads = onnx_io::ints_attr(n, "pads", {});  // opset < 11
    if (n.input_size() > 1 && !n.input(1).empty()) {
      const auto it = constants_.find(n.input(1));
      if (it == constants_.end() || !it->second.is_int)
        fail(n, "only constant int64 pads are supported");
      pads = it->second.ints;
    }
    if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }))
      fail(n, fmt::format("pads {} are not all zero (only a Pad that pads nothing is supported)",
                          shape_text(pads)));
    if (!mode.empty() && mode != "constant") fail(n, fmt::format("mode {} is not supported", mode));
    alias(n, x, flat_.count(n.input(0)) != 0);
  }

  void concat(const onnx::NodeProto& n, int index) {
    only_first_output(n);
    const int64_t axis = onnx_io::int_attr(n, "axis", 1);
    if (axis != 1 && axis != -3) fail(n, fmt::format("axis {} is not the channel axis", axis));
    if (n.input_size() < 1) fail(n, "has no inputs");
    Layer l;
    l.kind = LayerKind::concat;
    l.name = layer_name(n, index);
    Shape4 out{};
    for (int i = 0; i < n.input_size(); ++i) {
      const int t = spatial(n, i);
      const Shape4 s = net_.tensors[size_t(t)];
      if (i == 0) out = {s.n, s.h, s.w, 0};
      if (s.n != out.n || s.h != out.h || s.w != out.w)
        fail(n, fmt::format("input '{}' is {}x{}, the first {}x{}", n.input(i), s.h, s.w, out.h,
                            out.w));
      out.c += s.c;
      l.ins.push_back(t);
    }
    l.in = l.ins.front();
    push(n, std::move(l), out);
  }

  // Only as the graph's last op, over the classes: its input becomes the logits.
  void softmax(const onnx::NodeProto& n, int index) {
    only_first_output(n);
    const int x = value(n, 0);
    const Shape4 s = net_.tensors[size_t(x)];
    const int64_t axis = onnx_io::int_attr(n, "axis", -1);
    if (s.h * s.w != 1 || (axis != 1 && axis != -1))
      fail(n, "only a softmax over the classes of [N, classes] is supported");
    if (g_.output_size() != 1 || g_.output(0).name() != n.output(0))
      fail(n, "only a softmax that gives the graph's output is supported");
    net_.logits = x;
    Layer l;
    l.kind = LayerKind::softmax;
    l.name = layer_name(n, index);
    l.in = x;
    net_.probs = push(n, std::move(l), s);
  }

  void finish() {
    if (g_.output_size() != 1)
      fail(fmt::format("the graph has {} outputs, the engine gives one", g_.output_size()));
    const auto& name = g_.output(0).name();
    const auto it = values_.find(name);
    if (it == values_.end()) fail(fmt::format("graph output '{}' is not computed", name));
    const Shape4 s = net_.tensors[size_t(it->second)];
    if (s.h * s.w != 1)
      fail(fmt::format("graph output '{}' is a {}x{}x{} map, not [N, classes]", name, s.c, s.h,
                       s.w));
    for (const auto& fc : pending_bias_)  // a MatMul without an Add after it: zero bias
      if (!weights_.contains(fc + ".bias")) {
        const auto& w = weights_.tensors().at(fc + ".weight");
        weights_.set(fc + ".bias",
                     {{w.shape[0]}, std::vector<float>(size_t(w.shape[0]), 0.f), "F32"});
      }
    net_.classes = s.c;
    if (net_.probs >= 0) return;  // ended in Softmax
    if (it->second == net_.input) fail(fmt::format("graph output '{}' is the input", name));
    net_.logits = it->second;
    Layer l;
    l.kind = LayerKind::softmax;
    l.name = "softmax";
    l.in = net_.logits;
    l.out = tensor(s);
    net_.probs = l.out;
    net_.layers.push_back(std::move(l));
  }

  const onnx::GraphProto& g_;
  std::string source_;
  Network net_;
  Weights weights_;
  std::map<std::string, Constant> constants_;
  std::map<std::string, int> values_;  // value name -> tensor id
  std::map<std::string, int> uses_;    // value name -> nodes (and graph outputs) reading it
  std::set<std::string> flat_;         // value names that are a flattened map
  std::set<std::string> names_, pending_bias_;
  std::vector<int> producer_;  // tensor id -> layer index, -1 for the input
  std::vector<int> reads_;     // tensor id -> reads through any of its names
};

}  // namespace

OnnxModel parse_onnx(const void* data, size_t size, const std::string& source, int64_t batch) {
  onnx::ModelProto model;
  if (size > size_t(std::numeric_limits<int>::max()))
    throw Error(fmt::format("{}: {} bytes is over protobuf's 2 GiB limit", source, size));
  if (!model.ParseFromArray(data, int(size)))
    throw Error(fmt::format("{}: not an ONNX model (the protobuf does not parse)", source));
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw Error(fmt::format("{}: the model has no graph nodes", source));
  return Loader(model, source, batch).run();
}

OnnxModel load_onnx(const std::string& path, int64_t batch) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof()) throw Error(fmt::format("{}: cannot read", path));
  const std::string s = bytes.str();
  return parse_onnx(s.data(), s.size(), path, batch);
}

}  // namespace ktune::nn
