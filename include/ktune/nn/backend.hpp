#pragma once
// ktune::nn::Backend: what the inference engine (include/ktune/nn/engine.hpp) asks of a device.
// The engine owns the network graph and calls a backend layer by layer; a backend owns its
// memory and per-layer state (transformed filters, algorithm choices, workspaces).
//
// Layouts: activations NHWC; conv filters KRSC ([k][r][s][c], as include/ktune/conv2d.hpp);
// FC weights [out][in] (PyTorch's layout); the engine has already folded batch-norm into conv
// weights and bias and permuted FC weights that follow a flatten (docs/networks.md).
//
// Life cycle (all of it at build time, never per inference): alloc() every buffer, then
// prepare_conv() / prepare_fc() once per layer id, reserve_marks(). Per inference the engine
// calls only upload(), the layer calls, mark(), download() and synchronize(): a backend must not
// allocate there. Calls may be asynchronous (CUDA: one stream); synchronize() waits for all.
// Pointers passed to layer calls come from alloc() of the same backend; host pointers are
// passed only to upload/download/prepare_*. Errors throw ktune::Error naming the call.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ktune::nn {

// A convolution with bias (always) and an optional fused ReLU: out = relu?(conv(in, W) + b).
struct ConvDesc {
  int64_t n = 0, h = 0, w = 0, c = 0;  // input NHWC
  int64_t k = 0, r = 0, s = 0;         // filter KRSC
  int64_t stride = 1, pad = 0;         // symmetric zero padding
  bool relu = false;
  int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
};

// y[b][o] = relu?(sum_i W[o][i] * x[b][i] + bias[o]), x [batch][in], y [batch][out] row-major.
struct FcDesc {
  int64_t batch = 0, in = 0, out = 0;
  bool relu = false;
};

// Max or average pooling over window × window, NHWC, zero padding excluded from both (max
// ignores padded cells; average divides by the window size including padding, as PyTorch's
// default count_include_pad=True). Global average pooling: window = h = w, stride 1, pad 0.
// ceil (max pooling only; PyTorch's ceil_mode, GoogLeNet's): the output size rounds up, and the
// last window, which may reach past the input, is clipped like padding.
struct PoolDesc {
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t window = 1, stride = 1, pad = 0;
  bool ceil = false;
  int64_t p() const { return out(h); }
  int64_t q() const { return out(w); }

 private:
  int64_t out(int64_t size) const {
    const int64_t span = size + 2 * pad - window;
    if (!ceil) return span / stride + 1;
    int64_t o = (span + stride - 1) / stride + 1;
    if ((o - 1) * stride >= size + pad) --o;  // a window must start inside the input or left pad
    return o;
  }
};

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual std::string name() const = 0;
  // Human-readable device ("AMD EPYC ... (2 threads)", "NVIDIA H100 80GB HBM3"), for result files.
  virtual std::string device() const = 0;

  // Memory of the device, owned by the backend (freed with it), uninitialised.
  virtual float* alloc(size_t floats) = 0;
  virtual void upload(float* dst, const float* host, size_t floats) = 0;
  virtual void download(float* host, const float* src, size_t floats) = 0;

  // Once per layer at load: choose the algorithm, transform/repack the filter, size workspaces.
  // filter/weight and bias are host pointers, valid only during the call (copy what you keep).
  virtual void prepare_conv(int layer, const ConvDesc& d, const float* filter_krsc,
                            const float* bias) = 0;
  virtual void prepare_fc(int layer, const FcDesc& d, const float* weight_oi,
                          const float* bias) = 0;

  // Layer calls; `layer` is the id given to prepare_*; desc equals the prepared one.
  virtual void conv2d(int layer, const ConvDesc& d, const float* in, float* out) = 0;
  virtual void fc(int layer, const FcDesc& d, const float* x, float* y) = 0;
  // A convolution whose output only feeds the residual add after it, in one call:
  // out = relu?(conv(in) + bias + residual). Returns false where the backend does not fuse them
  // (the default): the engine then calls conv2d() and add(). out aliases neither in nor residual.
  virtual bool conv2d_add(int /*layer*/, const ConvDesc& /*d*/, const float* /*in*/,
                          const float* /*residual*/, float* /*out*/, bool /*relu*/) {
    return false;
  }
  virtual void max_pool(const PoolDesc& d, const float* in, float* out) = 0;
  virtual void avg_pool(const PoolDesc& d, const float* in, float* out) = 0;
  // out = relu?(a + b), elementwise over count floats (the residual add); out may alias a or b.
  virtual void add(const float* a, const float* b, float* out, size_t count, bool relu) = 0;
  // Row-wise softmax of x [batch][classes] into y (numerically stable: max subtracted).
  virtual void softmax(int64_t batch, int64_t classes, const float* x, float* y) = 0;
  // Layers only ONNX models have (concat, clamp); a backend without them throws naming itself
  // and the call (the default), so such a model fails at its first forward with one line.
  // copy_channels: dst[px][offset + ch] = src[px][ch] for ch < src_c over `pixels` NHWC pixels
  // (one input of a channel concatenation into dst of dst_c channels).
  virtual void copy_channels(const float* src, int64_t src_c, float* dst, int64_t dst_c,
                             int64_t offset, int64_t pixels);
  // out[i] = min(max(in[i], lo), hi) over count floats; out may alias in.
  virtual void clamp(const float* in, float* out, size_t count, float lo, float hi);

  virtual void synchronize() = 0;

  // A backend that chooses among others per layer (`auto`) says what it chose, after the
  // prepare_* calls: one line for the whole network, and the choice for one layer id ("" where
  // there is nothing to say, the default; `onednn` and `onednn_winograd` name oneDNN's
  // implementation of the layer).
  virtual std::string choices() const { return {}; }
  virtual std::string layer_choice(int /*layer*/) const { return {}; }
  // Whole-network variants of such a backend (`auto`: its per-layer choice, and each candidate
  // alone, since switching between candidates' thread pools costs time no per-layer timing
  // sees). The engine times one forward of each at build time and keeps the fastest. Variant 0
  // is the default; a plain backend has one.
  virtual int variants() const { return 1; }
  virtual std::string variant_name(int /*variant*/) const { return {}; }
  virtual void use_variant(int /*variant*/) {}
  // What ran the inferences after set-up, for a backend that picks the variant per inference
  // from their times (`auto` on the CPU); "" otherwise.
  virtual std::string variant_use() const { return {}; }
  // One whole forward pass at build time as the backend runs it in steady state, in ms from
  // mark 0 to mark `last_mark`; `forward` makes the pass's layer calls (with their marks). The
  // engine times variants with it. Default: run it, synchronize, read the marks. A CUDA backend
  // captures the pass as a CUDA graph once per variant and replays it, as a served network runs.
  virtual double time_forward(const std::function<void()>& forward, int last_mark);

  // Timing: reserve_marks(n) once at build time; mark(i) records time point i (0 <= i < n) in
  // order with the layer calls (CPU: steady_clock after the previous call returned; CUDA: an
  // event on the stream); elapsed_ms(i, j) is the time from mark i to mark j, valid after
  // synchronize().
  virtual void reserve_marks(int n) = 0;
  virtual void mark(int i) = 0;
  virtual double elapsed_ms(int i, int j) = 0;
};

}  // namespace ktune::nn
