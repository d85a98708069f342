#pragma once
// The part every CUDA network backend shares: one non-blocking stream, device memory owned by
// the backend, copies, CUDA-event marks, the small kernels of nn/cuda/layer_kernels.hpp (pooling,
// the residual add, softmax, and ONNX models' clamp and channel concatenation), per-layer weights
// kept on the device, and CUDA graph capture of a whole forward pass. Backends derive and add
// conv2d / fc.
//
// Precision (nn/cuda/precision.hpp): in bf16 the `float*` buffers of the Backend interface hold
// bf16 values (the engine never reads them; only this class and its subclasses do): alloc()
// sizes them for bf16, upload() rounds the host's floats to bf16 on the device and download()
// widens them back, both through one staging buffer sized at alloc(). tf32 differs from fp32
// only in the subclasses' conv / GEMM math.
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ktune/cuda/device_buffer.hpp"
#include "ktune/nn/backend.hpp"
#include "nn/cuda/precision.hpp"
#include "nn/cuda/stream_graph.hpp"

namespace ktune::nn::cuda {

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(Precision precision = Precision::fp32);

  Precision precision() const { return precision_; }
  // Activations and weights held as bf16.
  bool is_bf16() const { return precision_ == Precision::bf16; }

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
  void synchronize() override;
  void reserve_marks(int n) override;
  void mark(int i) override;
  double elapsed_ms(int i, int j) override;

  // CUDA graphs: the layer calls between begin_capture() and end_capture() are recorded, not
  // run; replay() launches the recorded graph on the stream. Uploads and downloads from pageable
  // host memory cannot be captured: copy the input before replay() and the output after.
  // end_capture() throws ktune::Error naming the failing call when the calls in between could
  // not be captured (the backend is usable eagerly afterwards). Virtual, as the switches below:
  // `auto-cuda` passes them to the backend it runs.
  virtual void begin_capture();
  virtual void end_capture();
  virtual void replay();
  virtual bool captured() const { return !graph_.empty(); }

  // Skip the bias + ReLU epilogue kernels of conv2d / fc (outputs then lack bias and ReLU): a
  // benchmark switch that measures what fusing the epilogue into the kernels could save.
  virtual void set_epilogue(bool on) { epilogue_ = on; }
  // Sizes the bf16 staging buffer of upload() / download() for `floats` values (alloc() does it
  // for its own buffers; a backend running on buffers another allocated calls it). Build time.
  void reserve_staging(size_t floats);

  cudaStream_t stream() const { return stream_.get(); }
  // Whether the activations it writes are rounded to TF32 (set_tf32_storage, below).
  bool tf32_storage() const { return tf32_storage_; }
  // What the backend chose for a prepared layer ("cudnn algo=... workspace=... B"), or "".
  virtual std::string layer_note(int /*layer*/) const { return ""; }

 protected:
  // Copies `count` floats of host data to device memory kept for `layer` (slot 0: weights,
  // 1: bias); returns the device pointer. keep_operand(): a GEMM / conv operand, stored in the
  // activations' type (rounded to bf16 on the host in bf16; to TF32 with TF32 storage).
  const float* keep(int layer, int slot, const float* host, size_t count);
  const float* keep_operand(int layer, int slot, const float* host, size_t count);
  const float* kept(int layer, int slot) const;
  // y = relu?(y + bias) over rows × channels, unless the epilogue is switched off.
  void epilogue(float* y, const float* bias, int64_t rows, int64_t channels, bool relu);
  // y = relu?(acc + bias) from an FP32 accumulator into the activations' type (a GEMM writing
  // FP32 in the bf16 engine); skipped with the epilogue switched off.
  void epilogue_from(const float* acc, float* y, const float* bias, int64_t rows, int64_t channels,
                     bool relu);
  // Whether the bias + ReLU epilogue runs (set_epilogue): for backends that fuse it.
  bool epilogue_on() const { return epilogue_; }
  // TF32 storage (a tf32 engine whose tensor-core kernels read FP32 operands by truncating them
  // to TF32, e.g. the wgmma kinds): weights kept by keep_operand(), and the activations the
  // epilogue and add() write, are rounded to TF32 (nearest, ties away), so those kernels read
  // them exactly and their truncation, an error of one sign, does not build up layer after layer.
  void set_tf32_storage(bool on) { tf32_storage_ = on; }
  // Floats of device memory holding `count` activations (half as many, rounded up, in bf16).
  size_t storage_floats(size_t count) const { return is_bf16() ? (count + 1) / 2 : count; }
  // A conv layer's input (zeroed) and output activations in scratch memory: what the load-time
  // searches and timings run on, with the layer's real filter.
  struct ConvScratch {
    ktune::cuda::DeviceBuffer<float> x, y;
  };
  ConvScratch conv_scratch(const ConvDesc& d, const std::string& purpose);

 private:
  Precision precision_;
  ktune::cuda::Stream stream_;
  std::vector<ktune::cuda::DeviceBuffer<float>> buffers_;
  ktune::cuda::DeviceBuffer<float> staging_;  // bf16: FP32 copies of uploads and downloads
  std::map<std::pair<int, int>, ktune::cuda::DeviceBuffer<float>> params_;
  std::vector<std::unique_ptr<ktune::cuda::Event>> marks_;
  StreamGraph graph_;
  bool epilogue_ = true;
  bool tf32_storage_ = false;
};

}  // namespace ktune::nn::cuda
