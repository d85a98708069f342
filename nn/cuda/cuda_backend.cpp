#include "nn/cuda/cuda_backend.hpp"

#include <fmt/format.h>

#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "nn/cuda/layer_kernels.hpp"

namespace ktune::nn::cuda {

using ktune::cuda::check;

CudaBackend::CudaBackend(Precision precision) : precision_(precision) {}

std::string CudaBackend::device() const {
  int index = 0;
  cudaDeviceProp prop{};
  check(cudaGetDevice(&index), "cudaGetDevice");
  check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  return prop.name;
}

namespace {

// The bf16 view of a buffer the Backend interface types as float*.
bf16* as_bf16(float* p) { return reinterpret_cast<bf16*>(p); }
const bf16* as_bf16(const float* p) { return reinterpret_cast<const bf16*>(p); }

}  // namespace

float* CudaBackend::alloc(size_t floats) {
  buffers_.emplace_back(std::max<size_t>(storage_floats(floats), 1), name() + " activations");
  reserve_staging(floats);
  return buffers_.back().data();
}

void CudaBackend::reserve_staging(size_t floats) {
  if (is_bf16() && floats > staging_.size())  // at build time only: never per inference
    staging_ = ktune::cuda::DeviceBuffer<float>(floats, name() + " bf16 staging");
}

void CudaBackend::upload(float* dst, const float* host, size_t floats) {
  if (is_bf16() && floats > staging_.size())
    throw Error(fmt::format("{}: upload of {} values into a smaller buffer", name(), floats));
  float* to = is_bf16() ? staging_.data() : dst;
  check(cudaMemcpyAsync(to, host, floats * sizeof(float), cudaMemcpyHostToDevice, stream()),
        "cudaMemcpyAsync(upload)");
  if (is_bf16()) convert(to, as_bf16(dst), int64_t(floats), stream());
}

void CudaBackend::download(float* host, const float* src, size_t floats) {
  if (is_bf16() && floats > staging_.size())
    throw Error(fmt::format("{}: download of {} values from a smaller buffer", name(), floats));
  const float* from = src;
  if (is_bf16()) {
    convert(as_bf16(src), staging_.data(), int64_t(floats), stream());
    from = staging_.data();
  }
  check(cudaMemcpyAsync(host, from, floats * sizeof(float), cudaMemcpyDeviceToHost, stream()),
        "cudaMemcpyAsync(download)");
  synchronize();  // the caller reads `host` next
}

void CudaBackend::max_pool(const PoolDesc& d, const float* in, float* out) {
  if (is_bf16()) return cuda::max_pool(d, as_bf16(in), as_bf16(out), stream());
  cuda::max_pool(d, in, out, stream());
}

void CudaBackend::avg_pool(const PoolDesc& d, const float* in, float* out) {
  if (is_bf16()) return cuda::avg_pool(d, as_bf16(in), as_bf16(out), stream());
  cuda::avg_pool(d, in, out, stream());
}

void CudaBackend::add(const float* a, const float* b, float* out, size_t count, bool relu) {
  if (is_bf16())
    return add_act(as_bf16(a), as_bf16(b), as_bf16(out), int64_t(count), relu, stream());
  add_act(a, b, out, int64_t(count), relu, stream(), tf32_storage_);
}

void CudaBackend::softmax(int64_t batch, int64_t classes, const float* x, float* y) {
  if (is_bf16()) return cuda::softmax(as_bf16(x), as_bf16(y), batch, classes, stream());
  cuda::softmax(x, y, batch, classes, stream());
}

void CudaBackend::copy_channels(const float* src, int64_t src_c, float* dst, int64_t dst_c,
                                int64_t offset, int64_t pixels) {
  if (is_bf16())
    return cuda::copy_channels(as_bf16(src), src_c, as_bf16(dst), dst_c, offset, pixels, stream());
  cuda::copy_channels(src, src_c, dst, dst_c, offset, pixels, stream());
}

void CudaBackend::clamp(const float* in, float* out, size_t count, float lo, float hi) {
  if (is_bf16()) return cuda::clamp(as_bf16(in), as_bf16(out), int64_t(count), lo, hi, stream());
  cuda::clamp(in, out, int64_t(count), lo, hi, stream());
}

void CudaBackend::synchronize() { check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize"); }

void CudaBackend::reserve_marks(int n) {
  marks_.clear();
  for (int i = 0; i < n; ++i) marks_.push_back(std::make_unique<ktune::cuda::Event>());
}

void CudaBackend::mark(int i) {
  // Inside a capture an event records a time only when made an external node of the graph.
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream(), &status), "cudaStreamIsCapturing");
  const unsigned flags = status == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : 0;
  check(cudaEventRecordWithFlags(marks_.at(size_t(i))->get(), stream(), flags),
        "cudaEventRecord(mark)");
}

double CudaBackend::elapsed_ms(int i, int j) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, marks_.at(size_t(i))->get(), marks_.at(size_t(j))->get()),
        "cudaEventElapsedTime");
  return ms;
}

// Relaxed: libraries may query or allocate lazily inside their first calls; warm up first.
void CudaBackend::begin_capture() { graph_.begin(stream()); }

void CudaBackend::end_capture() { graph_.end(stream()); }

void CudaBackend::replay() {
  if (graph_.empty()) throw Error(name() + ": replay() without a captured graph");
  graph_.launch(stream());
}

const float* CudaBackend::keep(int layer, int slot, const float* host, size_t count) {
  ktune::cuda::DeviceBuffer<float> buffer(count,
                                          fmt::format("{} layer {} parameters", name(), layer));
  check(cudaMemcpy(buffer.data(), host, count * sizeof(float), cudaMemcpyHostToDevice),
        "cudaMemcpy(parameters)");
  auto& slot_buffer = params_[{layer, slot}];
  slot_buffer = std::move(buffer);
  return slot_buffer.data();
}

const float* CudaBackend::keep_operand(int layer, int slot, const float* host, size_t count) {
  if (tf32_storage_) {
    std::vector<float> rounded(host, host + count);
    for (float& v : rounded) v = kernels::gemm::round_input(v, kernels::gemm::Precision::tf32);
    return keep(layer, slot, rounded.data(), count);
  }
  if (!is_bf16()) return keep(layer, slot, host, count);
  // Rounded on the host (nearest even, as the device's conversion), then copied as raw bits.
  std::vector<bf16> rounded(count + 1, __float2bfloat16_rn(0.0f));
  for (size_t i = 0; i < count; ++i) rounded[i] = __float2bfloat16_rn(host[i]);
  return keep(layer, slot, reinterpret_cast<const float*>(rounded.data()), storage_floats(count));
}

const float* CudaBackend::kept(int layer, int slot) const {
  const auto it = params_.find({layer, slot});
  if (it == params_.end()) throw Error(fmt::format("{}: layer {} was not prepared", name(), layer));
  return it->second.data();
}

void CudaBackend::epilogue(float* y, const float* bias, int64_t rows, int64_t channels, bool relu) {
  if (!epilogue_) return;
  if (is_bf16()) return bias_act(as_bf16(y), bias, rows, channels, relu, stream());
  bias_act(y, bias, rows, channels, relu, stream(), tf32_storage_);
}

void CudaBackend::epilogue_from(const float* acc, float* y, const float* bias, int64_t rows,
                                int64_t channels, bool relu) {
  if (!epilogue_) return;
  if (!is_bf16()) throw Error(name() + ": epilogue_from() serves the bf16 engine only");
  bias_act(acc, as_bf16(y), bias, rows, channels, relu, stream());
}

CudaBackend::ConvScratch CudaBackend::conv_scratch(const ConvDesc& d, const std::string& purpose) {
  ConvScratch scratch{ktune::cuda::DeviceBuffer<float>(
                          storage_floats(size_t(d.n * d.h * d.w * d.c)), purpose + " input"),
                      ktune::cuda::DeviceBuffer<float>(
                          storage_floats(size_t(d.n * d.p() * d.q() * d.k)), purpose + " output")};
  ktune::cuda::check(cudaMemsetAsync(scratch.x.data(), 0, scratch.x.bytes(), stream()),
                     "cudaMemsetAsync");
  return scratch;
}

}  // namespace ktune::nn::cuda
