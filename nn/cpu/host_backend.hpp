#pragma once
// The part every CPU backend shares: aligned host memory, copies, timing marks and the
// plain C++ (OpenMP) pooling, residual add and softmax. Backends derive and add conv2d / fc.
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ktune/nn/backend.hpp"

namespace ktune::nn::cpu {

// The clock the CPU backends time with (the marks, `auto`'s prepare-time timings), in ms:
// steady_clock, unless a test planted a virtual one (so that planted kernel times are exact,
// whatever the machine's load); nullptr restores steady_clock.
using TimingClock = double (*)();
void set_timing_clock(TimingClock clock);
double timing_clock_ms();

class HostBackend : public Backend {
 public:
  std::string device() const override;
  float* alloc(size_t floats) override;
  void upload(float* dst, const float* host, size_t floats) override;
  void download(float* host, const float* src, size_t floats) override;
  void max_pool(const PoolDesc& d, const float* in, float* out) override;
  void avg_pool(const PoolDesc& d, const float* in, float* out) override;
  void add(const float* a, const float* b, float* out, size_t count, bool relu) override;
  void softmax(int64_t batch, int64_t classes, const float* x, float* y) override;
  void copy_channels(const float* src, int64_t src_c, float* dst, int64_t dst_c, int64_t offset,
                     int64_t pixels) override;
  void clamp(const float* in, float* out, size_t count, float lo, float hi) override;
  void synchronize() override {}
  void reserve_marks(int n) override;
  void mark(int i) override;
  double elapsed_ms(int i, int j) override;

 protected:
  // body(begin, end) over parts of [0, n) on the backend's threads: OpenMP here. A backend whose
  // kernels run on another pool overrides it, so that the layers between its kernels do not wait
  // for OpenMP threads while that pool's idle helpers spin on the same cores.
  // (A function pointer and its context rather than std::function, which may allocate.)
  using RangeFn = void (*)(const void* body, int64_t begin, int64_t end);
  virtual void parallel_for(int64_t n, RangeFn run, const void* body);
  template <class Body>
  void parallel(int64_t n, const Body& body) {
    parallel_for(
        n,
        [](const void* b, int64_t begin, int64_t end) {
          (*static_cast<const Body*>(b))(begin, end);
        },
        &body);
  }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<float, Free>> buffers_;
  std::vector<double> marks_;  // timing_clock_ms()
};

// A CPU backend that keeps plain copies of each layer's filter / weight and bias (reference,
// ktune: their kernels take the KRSC / [out][in] layouts as they are).
class CopyingBackend : public HostBackend {
 public:
  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override;
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override;

 protected:
  struct Params {
    std::vector<float> weight, bias;
  };
  const Params& params(int layer) const;
  void store(int layer, Params p) { params_[layer] = std::move(p); }

 private:
  std::map<int, Params> params_;
};

// out[i] = relu?(out[i] + bias[i % k]) over rows × k floats: the bias + ReLU pass after a
// kernel that has no epilogue (one pass, OpenMP over rows).
void bias_relu(float* out, const float* bias, int64_t rows, int64_t k, bool relu);

}  // namespace ktune::nn::cpu
