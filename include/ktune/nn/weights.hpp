#pragma once
// Named FP32 tensors in PyTorch's layouts (conv OIHW, linear [out][in], batch-norm vectors),
// keyed by torchvision's state_dict names, read from and written to safetensors files
// (docs/networks.md): 8-byte little-endian header length, a JSON header
// {"name": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}},
// then the raw little-endian data. Every problem is a ktune::Error of one line naming the file and,
// where there is one, the tensor.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ktune::nn {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;  // empty when dtype is not F32
  std::string dtype = "F32";
};

std::string shape_text(const std::vector<int64_t>& shape);  // "[64, 3, 7, 7]"

class Weights {
 public:
  Weights() = default;
  explicit Weights(std::string source) : source_(std::move(source)) {}

  // Reads a whole file. Checks the header (length, JSON, entries, dtypes, shapes, offsets inside
  // the data and not overlapping) and that F32 values are finite; tensors of other dtypes (e.g.
  // PyTorch's int64 num_batches_tracked) are listed but hold no data, and are an error only when
  // asked for.
  static Weights load_safetensors(const std::string& path);
  // Writes every tensor (F32) in name order.
  void save_safetensors(const std::string& path) const;

  // The tensor `name` with exactly `shape`; throws "<source>: tensor 'name' ..." when it is
  // missing, has another shape or is not F32.
  const Tensor& get(const std::string& name, const std::vector<int64_t>& shape) const;
  void set(const std::string& name, Tensor t) { tensors_[name] = std::move(t); }
  bool contains(const std::string& name) const { return tensors_.count(name) != 0; }
  const std::map<std::string, Tensor>& tensors() const { return tensors_; }
  const std::string& source() const { return source_; }

 private:
  std::string source_ = "weights";
  std::map<std::string, Tensor> tensors_;
};

}  // namespace ktune::nn
