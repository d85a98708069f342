#pragma once
// Small ONNX models built with the protobuf API, for the loader's tests.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::nn::testing {

class OnnxBuilder {
 public:
  // Input "x" [N, channels, image, image]; N symbolic unless fixed_batch > 0.
  explicit OnnxBuilder(int64_t image, int64_t channels = 3, int64_t fixed_batch = 0) {
    model_.set_ir_version(8);
    model_.add_opset_import()->set_version(13);
    auto* in = graph()->add_input();
    in->set_name("x");
    auto* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = t->mutable_shape();
    if (fixed_batch > 0)
      shape->add_dim()->set_dim_value(fixed_batch);
    else
      shape->add_dim()->set_dim_param("N");
    for (int64_t d : {channels, image, image}) shape->add_dim()->set_dim_value(d);
  }

  onnx::GraphProto* graph() { return model_.mutable_graph(); }

  void init(const std::string& name, const std::vector<int64_t>& shape,
            const std::vector<float>& values) {
    auto* t = graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
  }
  void init_ints(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }

  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::string& output, const std::string& name = "") {
    auto* n = graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? output : name);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(output);
    return n;
  }
  static void ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void integer(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void real(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }

  void output(const std::string& name) { graph()->add_output()->set_name(name); }

  std::string bytes() const { return model_.SerializeAsString(); }

 private:
  onnx::ModelProto model_;
};

}  // namespace ktune::nn::testing
