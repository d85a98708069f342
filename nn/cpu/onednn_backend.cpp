// `onednn`: every convolution and fully connected layer by oneDNN (FP32, convolution_auto,
// weights reordered once into the layout the primitive asks for, bias and ReLU fused as oneDNN
// bias + eltwise post-op). Memory objects and argument maps are built at prepare time; a call
// only swaps the data handles, so nothing is allocated per inference.
#include <fmt/format.h>

#include <dnnl.hpp>
#include <map>
#include <unordered_map>

#include "ktune/error.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/host_backend.hpp"
#include "nn/cpu/reference.hpp"

namespace ktune::nn::cpu {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

dnnl::primitive_attr relu_attr(bool relu) {
  dnnl::primitive_attr attr;
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

class OnednnBackend final : public HostBackend {
 public:
  std::string name() const override { return "onednn"; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    try {
      const memory::desc src({d.n, d.c, d.h, d.w}, f32, tag::nhwc);
      const memory::desc dst({d.n, d.k, d.p(), d.q()}, f32, tag::nhwc);
      const memory::desc any_weights({d.k, d.c, d.r, d.s}, f32, tag::any);
      const memory::desc bias_desc({d.k}, f32, tag::x);
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto, src, any_weights,
          bias_desc, dst, {d.stride, d.stride}, {d.pad, d.pad}, {d.pad, d.pad});
      const dnnl::convolution_forward::primitive_desc pd(desc, relu_attr(d.relu), engine_);
      const memory::desc user_weights({d.k, d.c, d.r, d.s}, f32, tag::ohwi);
      add_layer(layer, dnnl::convolution_forward(pd), src, dst, pd.weights_desc(), user_weights,
                bias_desc, filter, bias);
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn: no convolution for layer {}: {}", layer, e.what()));
    }
  }

  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    try {
      const memory::desc src({d.batch, d.in}, f32, tag::nc);
      const memory::desc dst({d.batch, d.out}, f32, tag::nc);
      const memory::desc any_weights({d.out, d.in}, f32, tag::any);
      const memory::desc bias_desc({d.out}, f32, tag::x);
      const dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference, src,
                                                   any_weights, bias_desc, dst);
      const dnnl::inner_product_forward::primitive_desc pd(desc, relu_attr(d.relu), engine_);
      const memory::desc user_weights({d.out, d.in}, f32, tag::oi);
      add_layer(layer, dnnl::inner_product_forward(pd), src, dst, pd.weights_desc(), user_weights,
                bias_desc, weight, bias);
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn: no inner product for layer {}: {}", layer, e.what()));
    }
  }

  void conv2d(int layer, const ConvDesc&, const float* in, float* out) override {
    run(layer, in, out);
  }
  void fc(int layer, const FcDesc&, const float* x, float* y) override { run(layer, x, y); }

 private:
  struct Layer {
    dnnl::primitive primitive;
    memory src, dst;
    std::unordered_map<int, memory> args;
  };

  void add_layer(int layer, dnnl::primitive primitive, const memory::desc& src,
                 const memory::desc& dst, const memory::desc& weights,
                 const memory::desc& user_weights, const memory::desc& bias_desc,
                 const float* weight_host, const float* bias_host) {
    Layer l{std::move(primitive),
            memory(src, engine_, DNNL_MEMORY_NONE),
            memory(dst, engine_, DNNL_MEMORY_NONE),
            {}};
    memory user(user_weights, engine_, const_cast<float*>(weight_host));  // read only
    memory packed(weights, engine_);
    dnnl::reorder(user, packed).execute(stream_, user, packed);
    memory b(bias_desc, engine_);
    stream_.wait();
    std::copy_n(bias_host, bias_desc.get_size() / sizeof(float),
                static_cast<float*>(b.get_data_handle()));
    l.args = {{DNNL_ARG_SRC, l.src},
              {DNNL_ARG_WEIGHTS, packed},
              {DNNL_ARG_BIAS, b},
              {DNNL_ARG_DST, l.dst}};
    layers_[layer] = std::move(l);
  }

  void run(int layer, const float* in, float* out) {
    auto& l = layers_.at(layer);
    l.src.set_data_handle(const_cast<float*>(in));  // read only
    l.dst.set_data_handle(out);
    l.primitive.execute(stream_, l.args);
    stream_.wait();
  }

  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  std::map<int, Layer> layers_;
};

}  // namespace

void register_onednn_backend() {
  register_backend("onednn", "oneDNN convolution + inner product (FP32, algorithm auto)",
                   [] { return std::make_unique<OnednnBackend>(); });
}

}  // namespace ktune::nn::cpu
