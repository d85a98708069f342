#pragma once
// Reading an ONNX model's constant tensors and node attributes (onnx_loader.cpp's helpers):
// every problem is a ktune::Error line that the loader prefixes with the file and node.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune::nn::onnx_io {

// A constant (initializer or Constant node): float data, or int64 (Reshape's shape).
struct Constant {
  std::vector<int64_t> shape;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  bool is_int = false;
  int64_t count() const;
};

// FLOAT or INT64, from the typed field or raw_data (little-endian); dims checked against the
// data, floats finite; external data, other types and segments refused.
Constant read_constant(const onnx::TensorProto& t);

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name);
int64_t int_attr(const onnx::NodeProto& n, const std::string& name, int64_t fallback);
std::optional<float> float_attr(const onnx::NodeProto& n, const std::string& name);
std::string string_attr(const onnx::NodeProto& n, const std::string& name);
// An INTS attribute, or `fallback` when absent.
std::vector<int64_t> ints_attr(const onnx::NodeProto& n, const std::string& name,
                               std::vector<int64_t> fallback);

}  // namespace ktune::nn::onnx_io
