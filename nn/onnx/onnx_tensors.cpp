#include "nn/onnx/onnx_tensors.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "ktune/error.hpp"

namespace ktune::nn::onnx_io {

namespace {

// Elements of a constant: dims non-negative and their product small enough to hold (a model's
// constants are in the file, so a product past its size is a lie caught by the data check).
int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) throw Error(fmt::format("negative dimension {}", d));
    if (d != 0 && count > (int64_t(1) << 40) / d)
      throw Error("dimensions multiply past 2^40 elements");
    count *= d;
  }
  return count;
}

template <class T>
std::vector<T> from_raw(const std::string& raw, int64_t count) {
  if (raw.size() != size_t(count) * sizeof(T))
    throw Error(fmt::format("raw_data holds {} bytes, the dims need {}", raw.size(),
                            size_t(count) * sizeof(T)));
  std::vector<T> out(static_cast<size_t>(count));
  if (count) std::memcpy(out.data(), raw.data(), raw.size());  // ONNX raw data is little-endian
  return out;
}

}  // namespace

int64_t Constant::count() const { return is_int ? int64_t(ints.size()) : int64_t(floats.size()); }

Constant read_constant(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error("tensor data in an external file is not supported");
  if (t.has_segment()) throw Error("segmented tensors are not supported");
  Constant c;
  c.shape.assign(t.dims().begin(), t.dims().end());
  const int64_t count = element_count(c.shape);
  if (t.data_type() == onnx::TensorProto::FLOAT) {
    if (t.has_raw_data()) {
      c.floats = from_raw<float>(t.raw_data(), count);
    } else {
      if (t.float_data_size() != count)
        throw Error(fmt::format("float_data holds {} values, the dims need {}", t.float_data_size(),
                                count));
      c.floats.assign(t.float_data().begin(), t.float_data().end());
    }
    for (float v : c.floats)
      if (!std::isfinite(v)) throw Error(fmt::format("holds a non-finite value {}", v));
  } else if (t.data_type() == onnx::TensorProto::INT64) {
    c.is_int = true;
    if (t.has_raw_data()) {
      c.ints = from_raw<int64_t>(t.raw_data(), count);
    } else {
      if (t.int64_data_size() != count)
        throw Error(fmt::format("int64_data holds {} values, the dims need {}", t.int64_data_size(),
                                count));
      c.ints.assign(t.int64_data().begin(), t.int64_data().end());
    }
  } else {
    throw Error(fmt::format("data type {} is not supported (FLOAT, INT64)", t.data_type()));
  }
  return c;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t int_attr(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  const auto* a = attribute(n, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::INT)
    throw Error(fmt::format("attribute '{}' is not an INT", name));
  return a->i();
}

std::optional<float> float_attr(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = attribute(n, name);
  if (!a) return std::nullopt;
  if (a->type() != onnx::AttributeProto::FLOAT)
    throw Error(fmt::format("attribute '{}' is not a FLOAT", name));
  return a->f();
}

std::string string_attr(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = attribute(n, name);
  if (!a) return "";
  if (a->type() != onnx::AttributeProto::STRING)
    throw Error(fmt::format("attribute '{}' is not a STRING", name));
  return a->s();
}

std::vector<int64_t> ints_attr(const onnx::NodeProto& n, const std::string& name,
                               std::vector<int64_t> fallback) {
  const auto* a = attribute(n, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::INTS)
    throw Error(fmt::format("attribute '{}' is not INTS", name));
  return {a->ints().begin(), a->ints().end()};
}

}  // namespace ktune::nn::onnx_io
