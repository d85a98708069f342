#pragma once
// The layer calls between convolutions (pooling, the residual add, softmax, and ONNX models'
// concat and clamp), passed on to the backend between() names: what the backends that run
// their layers on candidate backends (`auto` on the CPU, `auto-cuda`) share.
#include <cstddef>
#include <cstdint>

#include "ktune/nn/backend.hpp"

namespace ktune::nn {

template <typename Base>
class ForwardsBetweenLayers : public Base {
 public:
  using Base::Base;

  void max_pool(const PoolDesc& d, const float* in, float* out) override {
    between().max_pool(d, in, out);
  }
  void avg_pool(const PoolDesc& d, const float* in, float* out) override {
    between().avg_pool(d, in, out);
  }
  void add(const float* a, const float* b, float* out, size_t count, bool relu) override {
    between().add(a, b, out, count, relu);
  }
  void softmax(int64_t batch, int64_t classes, const float* x, float* y) override {
    between().softmax(batch, classes, x, y);
  }
  void copy_channels(const float* src, int64_t src_c, float* dst, int64_t dst_c, int64_t offset,
                     int64_t pixels) override {
    between().copy_channels(src, src_c, dst, dst_c, offset, pixels);
  }
  void clamp(const float* in, float* out, size_t count, float lo, float hi) override {
    between().clamp(in, out, count, lo, hi);
  }

 protected:
  // The backend that runs these calls now.
  virtual Backend& between() = 0;
};

}  // namespace ktune::nn
