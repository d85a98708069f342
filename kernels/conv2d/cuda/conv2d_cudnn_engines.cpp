#include "kernels/conv2d/cuda/conv2d_cudnn_engines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cuda {

namespace {

constexpr int64_t kX = 1, kW = 2, kY = 3;  // the tensors' unique ids

void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
         cudnnBackendAttributeType_t type, int64_t count, const void* value, const char* what) {
  check_cudnn(cudnnBackendSetAttribute(d, name, type, count, value), what);
}

// dims (n, c, h, w) with the strides of NCHW or NHWC.
std::array<int64_t, 4> strides_of(const std::array<int64_t, 4>& d, bool nchw) {
  if (nchw) return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  return {d[2] * d[3] * d[1], 1, d[3] * d[1], d[1]};
}

bool has(const std::vector<cudnnBackendNumericalNote_t>& notes, cudnnBackendNumericalNote_t n) {
  return std::find(notes.begin(), notes.end(), n) != notes.end();
}

}  // namespace

cudnnBackendDescriptor_t CudnnEngines::make(cudnnBackendDescriptorType_t type) const {
  cudnnBackendDescriptor_t d = nullptr;
  check_cudnn(cudnnBackendCreateDescriptor(type, &d), "cudnnBackendCreateDescriptor");
  owned_.push_back(d);
  return d;
}

CudnnEngines::CudnnEngines(cudnnHandle_t handle, const Shape& s, bool nchw,
                           CudnnPrecision precision, int64_t alignment)
    : handle_(handle), precision_(precision), alignment_(alignment) {
  try {
    auto tensor = [&](int64_t uid, std::array<int64_t, 4> dims) {
      cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
      const cudnnDataType_t type = cudnn_data_type(precision);
      const std::array<int64_t, 4> strides = strides_of(dims, nchw);
      const int64_t align = alignment;
      set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, "tensor type");
      set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data(), "tensor dims");
      set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data(), "tensor strides");
      set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, "tensor id");
      set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align, "tensor alignment");
      check_cudnn(cudnnBackendFinalize(t), "cudnnBackendFinalize(tensor)");
      return t;
    };
    cudnnBackendDescriptor_t x = tensor(kX, {s.n, s.c, s.h, s.w});
    cudnnBackendDescriptor_t w = tensor(kW, {s.k, s.c, s.r, s.s});
    cudnnBackendDescriptor_t y = tensor(kY, {s.n, s.k, s.p(), s.q()});

    cudnnBackendDescriptor_t conv = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    const int64_t dims = 2, pad[2] = {s.pad, s.pad}, stride[2] = {s.stride, s.stride},
                  dilation[2] = {1, 1};
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims, "conv dims");
    set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute, "conv type");
    set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "conv mode");
    set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad, "conv padding");
    set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad, "conv padding");
    set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride, "conv stride");
    set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilation, "conv dilation");
    check_cudnn(cudnnBackendFinalize(conv), "cudnnBackendFinalize(convolution)");

    cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    const float alpha = 1.0f, beta = 0.0f;
    const cudnnBackendAttributeType_t desc = CUDNN_TYPE_BACKEND_DESCRIPTOR;
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, desc, 1, &x, "op x");
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, desc, 1, &w, "op w");
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, desc, 1, &y, "op y");
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, desc, 1, &conv, "op conv");
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha, "alpha");
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta, "beta");
    check_cudnn(cudnnBackendFinalize(op), "cudnnBackendFinalize(convolution forward)");

    graph_ = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(graph_, CUDNN_ATTR_OPERATIONGRAPH_OPS, desc, 1, &op, "graph ops");
    set(graph_, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_, "graph handle");
    check_cudnn(cudnnBackendFinalize(graph_), "cudnnBackendFinalize(operation graph)");
  } catch (...) {
    for (auto it = owned_.rbegin(); it != owned_.rend(); ++it) cudnnBackendDestroyDescriptor(*it);
    throw;
  }
}

CudnnEngines::~CudnnEngines() {
  for (auto it = owned_.rbegin(); it != owned_.rend(); ++it) cudnnBackendDestroyDescriptor(*it);
}

bool CudnnEngines::accepted(const std::vector<cudnnBackendNumericalNote_t>& notes) const {
  if (has(notes, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) ||
      has(notes, CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION))
    return false;
  return precision_ != CudnnPrecision::fp32 || !has(notes, CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
}

float CudnnEngines::find(const void* x, const void* w, void* y, size_t max_workspace,
                         int configs_per_mode) {
  cudaStream_t stream = nullptr;
  check_cudnn(cudnnGetStream(handle_, &stream), "cudnnGetStream");
  ktune::cuda::Event start, stop;
  float best = -1;
  cudnnBackendDescriptor_t best_plan = nullptr;
  for (cudnnBackendHeurMode_t mode :
       {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK}) {
    cudnnBackendDescriptor_t heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph_,
        "heuristics graph");
    set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "heuristics mode");
    if (cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS) continue;
    int64_t count = 0;
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 0, &count, nullptr) != CUDNN_STATUS_SUCCESS)
      continue;
    std::vector<cudnnBackendDescriptor_t> configs;
    for (int64_t i = 0; i < count; ++i) configs.push_back(make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 count, &count, configs.data()) != CUDNN_STATUS_SUCCESS)
      continue;
    int timed = 0;
    for (int64_t i = 0; i < count && (configs_per_mode <= 0 || timed < configs_per_mode); ++i) {
      cudnnBackendDescriptor_t engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      int64_t got = 0, index = -1, behaviours = 0;
      std::vector<cudnnBackendNumericalNote_t> notes(CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
      std::vector<cudnnBackendBehaviorNote_t> behaviour(CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
      if (cudnnBackendGetAttribute(configs[size_t(i)], CUDNN_ATTR_ENGINECFG_ENGINE,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                   &engine) != CUDNN_STATUS_SUCCESS ||
          cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                   &got, &index) != CUDNN_STATUS_SUCCESS ||
          cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                   CUDNN_TYPE_NUMERICAL_NOTE, int64_t(notes.size()), &got,
                                   notes.data()) != CUDNN_STATUS_SUCCESS ||
          cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                   CUDNN_TYPE_BEHAVIOR_NOTE, int64_t(behaviour.size()), &behaviours,
                                   behaviour.data()) != CUDNN_STATUS_SUCCESS)
        continue;
      notes.resize(size_t(got));
      behaviour.resize(size_t(behaviours));
      // An engine comes with several knob choices (tile sizes...): each config is timed, as
      // cuDNN's frontend and PyTorch's benchmark mode do. A limited search leaves out engines
      // compiled at run time (a network's load would compile kernels per layer).
      const bool compiled = std::find(behaviour.begin(), behaviour.end(),
                                      CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) != behaviour.end();
      if (!accepted(notes) || (configs_per_mode > 0 && compiled)) continue;
      ++timed;
      cudnnBackendDescriptor_t plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      int64_t bytes = 0;
      set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_, "plan handle");
      set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
          &configs[size_t(i)], "plan config");
      if (cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS ||
          cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                   1, &got, &bytes) != CUDNN_STATUS_SUCCESS ||
          size_t(bytes) > max_workspace)
        continue;
      ktune::cuda::DeviceBuffer<char> workspace(size_t(bytes), "cudnn engine workspace");
      // The search's own pack: it points into this config's workspace.
      const cudnnBackendDescriptor_t pack = make_pack(x, w, y, workspace.data());
      const auto run_it = [&] { return cudnnBackendExecute(handle_, plan, pack); };
      // One untimed run (loads the kernels), then the fastest of three.
      float ms = -1;
      if (run_it() == CUDNN_STATUS_SUCCESS) {
        for (int rep = 0; rep < 3; ++rep) {
          ktune::cuda::check(cudaEventRecord(start.get(), stream), "cudaEventRecord");
          const cudnnStatus_t status = run_it();
          ktune::cuda::check(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
          ktune::cuda::check(cudaEventSynchronize(stop.get()), "cudnn engine search");
          float t = 0;
          ktune::cuda::check(cudaEventElapsedTime(&t, start.get(), stop.get()),
                             "cudaEventElapsedTime");
          if (status != CUDNN_STATUS_SUCCESS) {
            ms = -1;
            break;
          }
          ms = ms < 0 ? t : std::min(ms, t);
        }
      }
      ktune::cuda::check(cudaStreamSynchronize(stream), "cudnn engine search");
      if (ms >= 0 && (best < 0 || ms < best)) {
        best = ms;
        best_plan = plan;
        engine_ = index;
        config_ = fmt::format("{}#{}",
                              mode == CUDNN_HEUR_MODE_A   ? "A"
                              : mode == CUDNN_HEUR_MODE_B ? "B"
                                                          : "fallback",
                              i);
        workspace_bytes_ = size_t(bytes);
        transform_ = has(notes, CUDNN_NUMERICAL_NOTE_FFT) ||
                     has(notes, CUDNN_NUMERICAL_NOTE_WINOGRAD) ||
                     has(notes, CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4) ||
                     has(notes, CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6) ||
                     has(notes, CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13);
      }
    }
  }
  plan_ = best_plan;
  packs_.clear();
  return best;
}

cudnnBackendDescriptor_t CudnnEngines::make_pack(const void* x, const void* w, void* y,
                                                 void* workspace) const {
  for (const void* p : {x, w, static_cast<const void*>(y)})
    if (reinterpret_cast<uintptr_t>(p) % uintptr_t(alignment_) != 0)
      throw Error(fmt::format("cudnn engine: buffer {} is not {}-byte aligned as the plan assumes",
                              p, alignment_));
  cudnnBackendDescriptor_t pack = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  void* pointers[] = {const_cast<void*>(x), const_cast<void*>(w), y};
  const int64_t ids[] = {kX, kW, kY};
  set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers, "pack data");
  set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, ids, "pack ids");
  set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace,
      "pack workspace");
  check_cudnn(cudnnBackendFinalize(pack), "cudnnBackendFinalize(variant pack)");
  return pack;
}

void CudnnEngines::bind(const void* x, const void* w, void* y, void* workspace) {
  for (const Pack& p : packs_)
    if (p.x == x && p.w == w && p.y == y && p.workspace == workspace) return;
  packs_.push_back({x, w, y, workspace, make_pack(x, w, y, workspace)});
}

cudnnStatus_t CudnnEngines::run(const void* x, const void* w, void* y, void* workspace) const {
  if (!plan_) return CUDNN_STATUS_NOT_INITIALIZED;
  for (const Pack& p : packs_)
    if (p.x == x && p.w == w && p.y == y && p.workspace == workspace)
      return cudnnBackendExecute(handle_, plan_, p.desc);
  packs_.push_back({x, w, y, workspace, make_pack(x, w, y, workspace)});
  return cudnnBackendExecute(handle_, plan_, packs_.back().desc);
}

std::string CudnnEngines::description() const {
  return fmt::format("engine={} config={}", engine_, config_);
}

}  // namespace ktune::kernels::conv2d::cuda
