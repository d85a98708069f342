#pragma once
// The backend-API engine search of one cuDNN forward convolution, without ktune's runtime
// (C++17, cuDNN and the CUDA runtime only): the family's CudnnEngines (conv2d_cudnn_engines.hpp:
// the sweep's and the benches' cuDNN) and the deployed library's vendor call
// (deploy/vendor_cudnn.hpp) both run this one search, so the deployed call keeps an engine
// config of the same set, timed the same way, as the rows it was trained on.
//
// The operation graph holds one convolution (x, w, y in NHWC / KRSC or NCHW / KCRS, in the
// precision's data type, FLOAT compute: FP32 accumulation); find() times every engine config
// (engine and knob choices) that heuristics modes A and B and the fallback list return (or, in a
// limited search, the first N accepted of each mode in its order, cuDNN's predicted fastest
// first, engines compiled at run time left out) and keeps the fastest as an execution plan.
// Left out, as PyTorch's filter does: engines with the numerical notes DOWN_CONVERT_INPUTS
// (inputs rounded below the precision) or REDUCED_PRECISION_REDUCTION (no FP32 accumulation), and
// in fp32 those with TENSOR_CORE (the FP32 baseline is FMA math).
// Failures go through the caller's checks (CudnnSearchChecks), which throw its exception type.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_precision.hpp"

namespace ktune::kernels::conv2d::cuda {

// How the caller reports failures: each function throws when the status is not a success.
struct CudnnSearchChecks {
  void (*cudnn)(cudnnStatus_t status, const char* call);
  void (*cuda)(cudaError_t error, const char* call);
};

// An owned backend descriptor (a variant pack the caller keeps); movable, destroyed once.
class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  explicit CudnnDescriptor(cudnnBackendDescriptor_t d) : d_(d) {}
  CudnnDescriptor(CudnnDescriptor&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  CudnnDescriptor& operator=(CudnnDescriptor&& o) noexcept {
    std::swap(d_, o.d_);
    return *this;
  }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  ~CudnnDescriptor() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  cudnnBackendDescriptor_t get() const { return d_; }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

class CudnnEngineSearch {
 public:
  // alignment: the byte alignment every bound pointer keeps (16 lets vectorized kernels in).
  // fp32_output: y in FP32 whatever the precision of x and w (the deployed bf16 call's FP32
  // output without a widening pass; cuDNN offers it on some engines only).
  CudnnEngineSearch(cudnnHandle_t handle, const Shape& s, bool nchw, CudnnPrecision precision,
                    int64_t alignment, CudnnSearchChecks checks, bool fp32_output = false)
      : handle_(handle), precision_(precision), checks_(checks) {
    try {
      auto tensor = [&](int64_t uid, std::array<int64_t, 4> dims) {
        cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
        const cudnnDataType_t type =
            uid == kY && fp32_output ? CUDNN_DATA_FLOAT : cudnn_data_type(precision);
        const std::array<int64_t, 4> strides = strides_of(dims, nchw);
        set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, "tensor type");
        set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data(), "tensor dims");
        set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data(), "tensor strides");
        set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, "tensor id");
        set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment,
            "tensor alignment");
        checks_.cudnn(cudnnBackendFinalize(t), "cudnnBackendFinalize(tensor)");
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
      set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode,
          "conv mode");
      set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad, "conv padding");
      set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad, "conv padding");
      set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride, "conv stride");
      set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilation, "conv dilation");
      checks_.cudnn(cudnnBackendFinalize(conv), "cudnnBackendFinalize(convolution)");

      cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
      const float alpha = 1.0f, beta = 0.0f;
      const cudnnBackendAttributeType_t desc = CUDNN_TYPE_BACKEND_DESCRIPTOR;
      set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, desc, 1, &x, "op x");
      set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, desc, 1, &w, "op w");
      set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, desc, 1, &y, "op y");
      set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, desc, 1, &conv, "op conv");
      set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha, "alpha");
      set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta, "beta");
      checks_.cudnn(cudnnBackendFinalize(op), "cudnnBackendFinalize(convolution forward)");

      graph_ = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
      set(graph_, CUDNN_ATTR_OPERATIONGRAPH_OPS, desc, 1, &op, "graph ops");
      set(graph_, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_, "graph handle");
      checks_.cudnn(cudnnBackendFinalize(graph_), "cudnnBackendFinalize(operation graph)");
    } catch (...) {
      destroy_owned();
      throw;
    }
  }
  ~CudnnEngineSearch() { destroy_owned(); }
  CudnnEngineSearch(const CudnnEngineSearch&) = delete;
  CudnnEngineSearch& operator=(const CudnnEngineSearch&) = delete;

  // Times the accepted engine configs on these buffers (y is overwritten; on the handle's
  // stream, synchronously) with workspaces up to max_workspace bytes, at most configs_per_mode
  // of each heuristic mode when > 0; keeps the fastest. Returns its milliseconds, < 0 when none
  // ran. Each config: one untimed run (loads the kernels), then the fastest of three.
  float find(const void* x, const void* w, void* y, size_t max_workspace,
             int configs_per_mode = 0) {
    cudaStream_t stream = nullptr;
    checks_.cudnn(cudnnGetStream(handle_, &stream), "cudnnGetStream");
    Events events(checks_);
    float best = -1;
    cudnnBackendDescriptor_t best_plan = nullptr;
    for (cudnnBackendHeurMode_t mode :
         {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK}) {
      std::vector<cudnnBackendDescriptor_t> configs = heuristic_configs(mode);
      int timed = 0;
      for (size_t i = 0; i < configs.size() && (configs_per_mode <= 0 || timed < configs_per_mode);
           ++i) {
        int64_t index = -1;
        std::vector<cudnnBackendNumericalNote_t> notes;
        bool compiled = false;
        if (!describe(configs[i], index, notes, compiled)) continue;
        // An engine comes with several knob choices (tile sizes...): each config is timed, as
        // cuDNN's frontend and PyTorch's benchmark mode do. A limited search leaves out engines
        // compiled at run time (a network's load would compile kernels per layer).
        if (!accepted(notes) || (configs_per_mode > 0 && compiled)) continue;
        ++timed;
        cudnnBackendDescriptor_t plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        int64_t bytes = 0, got = 0;
        set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_, "plan handle");
        set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &configs[i], "plan config");
        if (cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS ||
            cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                     CUDNN_TYPE_INT64, 1, &got, &bytes) != CUDNN_STATUS_SUCCESS ||
            size_t(bytes) > max_workspace)
          continue;
        Scratch workspace(size_t(bytes), checks_);
        // The search's own pack: it points into this config's workspace.
        const CudnnDescriptor pack = make_pack(x, w, y, workspace.data);
        const float ms = time_plan(plan, pack.get(), stream, events);
        checks_.cuda(cudaStreamSynchronize(stream), "cudnn engine search");
        if (ms >= 0 && (best < 0 || ms < best)) {
          best = ms;
          best_plan = plan;
          engine_ = index;
          config_ = std::string(mode == CUDNN_HEUR_MODE_A   ? "A"
                                : mode == CUDNN_HEUR_MODE_B ? "B"
                                                            : "fallback") +
                    "#" + std::to_string(i);
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
    return best;
  }

  // A variant pack of these buffers and a workspace of workspace_bytes() for execute(); the
  // pointers must keep the alignment the search was built with (the caller checks).
  CudnnDescriptor make_pack(const void* x, const void* w, void* y, void* workspace) const {
    cudnnBackendDescriptor_t d = nullptr;
    checks_.cudnn(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &d),
                  "cudnnBackendCreateDescriptor(variant pack)");
    CudnnDescriptor pack(d);
    void* pointers[] = {const_cast<void*>(x), const_cast<void*>(w), y};
    const int64_t ids[] = {kX, kW, kY};
    set(d, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers, "pack data");
    set(d, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, ids, "pack ids");
    set(d, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace, "pack workspace");
    checks_.cudnn(cudnnBackendFinalize(d), "cudnnBackendFinalize(variant pack)");
    return pack;
  }
  // Runs the kept plan (find() first) on a pack's buffers, on the handle's stream.
  cudnnStatus_t execute(cudnnBackendDescriptor_t pack) const {
    if (!plan_) return CUDNN_STATUS_NOT_INITIALIZED;
    return cudnnBackendExecute(handle_, plan_, pack);
  }
  bool found() const { return plan_ != nullptr; }
  size_t workspace_bytes() const { return workspace_bytes_; }
  int64_t engine() const { return engine_; }               // cuDNN's global engine index
  const std::string& config() const { return config_; }    // "A#3": rank in a heuristic mode
  bool transform_algorithm() const { return transform_; }  // Winograd or FFT numerics

 private:
  static constexpr int64_t kX = 1, kW = 2, kY = 3;  // the tensors' unique ids

  // Two events for timing, destroyed however the search ends.
  struct Events {
    explicit Events(const CudnnSearchChecks& checks) {
      checks.cuda(cudaEventCreate(&start), "cudaEventCreate");
      const cudaError_t made = cudaEventCreate(&stop);
      if (made != cudaSuccess) cudaEventDestroy(start);
      checks.cuda(made, "cudaEventCreate");
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    ~Events() {
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
    }
    cudaEvent_t start = nullptr, stop = nullptr;
  };
  // One config's workspace during the search.
  struct Scratch {
    Scratch(size_t bytes, const CudnnSearchChecks& checks) {
      if (bytes > 0) checks.cuda(cudaMalloc(&data, bytes), "cudaMalloc(cudnn engine workspace)");
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch() {
      if (data) cudaFree(data);
    }
    void* data = nullptr;
  };

  // dims (n, c, h, w) with the strides of NCHW or NHWC.
  static std::array<int64_t, 4> strides_of(const std::array<int64_t, 4>& d, bool nchw) {
    if (nchw) return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
    return {d[2] * d[3] * d[1], 1, d[3] * d[1], d[1]};
  }
  static bool has(const std::vector<cudnnBackendNumericalNote_t>& notes,
                  cudnnBackendNumericalNote_t n) {
    return std::find(notes.begin(), notes.end(), n) != notes.end();
  }
  bool accepted(const std::vector<cudnnBackendNumericalNote_t>& notes) const {
    if (has(notes, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) ||
        has(notes, CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION))
      return false;
    return precision_ != CudnnPrecision::fp32 || !has(notes, CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
  }

  void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, int64_t count, const void* value,
           const char* what) const {
    checks_.cudnn(cudnnBackendSetAttribute(d, name, type, count, value), what);
  }
  cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type) {
    cudnnBackendDescriptor_t d = nullptr;
    checks_.cudnn(cudnnBackendCreateDescriptor(type, &d), "cudnnBackendCreateDescriptor");
    owned_.push_back(d);
    return d;
  }
  void destroy_owned() {
    for (auto it = owned_.rbegin(); it != owned_.rend(); ++it) cudnnBackendDestroyDescriptor(*it);
    owned_.clear();
  }

  // The engine configs a heuristic mode returns for the graph (none when it declines).
  std::vector<cudnnBackendDescriptor_t> heuristic_configs(cudnnBackendHeurMode_t mode) {
    cudnnBackendDescriptor_t heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph_,
        "heuristics graph");
    set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "heuristics mode");
    if (cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS) return {};
    int64_t count = 0;
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 0, &count, nullptr) != CUDNN_STATUS_SUCCESS)
      return {};
    std::vector<cudnnBackendDescriptor_t> configs;
    for (int64_t i = 0; i < count; ++i) configs.push_back(make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 count, &count, configs.data()) != CUDNN_STATUS_SUCCESS)
      return {};
    configs.resize(size_t(count));
    return configs;
  }

  // A config's engine index, numerical notes and whether it compiles kernels at run time;
  // false when cuDNN cannot say.
  bool describe(cudnnBackendDescriptor_t config, int64_t& index,
                std::vector<cudnnBackendNumericalNote_t>& notes, bool& compiled) {
    cudnnBackendDescriptor_t engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t got = 0, behaviours = 0;
    notes.assign(CUDNN_NUMERICAL_NOTE_TYPE_COUNT, CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
    std::vector<cudnnBackendBehaviorNote_t> behaviour(CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
    if (cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 1, &got, &engine) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got,
                                 &index) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                 CUDNN_TYPE_NUMERICAL_NOTE, int64_t(notes.size()), &got,
                                 notes.data()) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                 int64_t(behaviour.size()), &behaviours,
                                 behaviour.data()) != CUDNN_STATUS_SUCCESS)
      return false;
    notes.resize(size_t(got));
    behaviour.resize(size_t(behaviours));
    compiled = std::find(behaviour.begin(), behaviour.end(),
                         CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) != behaviour.end();
    return true;
  }

  // One untimed run of a plan, then the fastest of three; < 0 when a run fails.
  float time_plan(cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack, cudaStream_t stream,
                  const Events& events) const {
    if (cudnnBackendExecute(handle_, plan, pack) != CUDNN_STATUS_SUCCESS) return -1;
    float ms = -1;
    for (int rep = 0; rep < 3; ++rep) {
      checks_.cuda(cudaEventRecord(events.start, stream), "cudaEventRecord");
      const cudnnStatus_t status = cudnnBackendExecute(handle_, plan, pack);
      checks_.cuda(cudaEventRecord(events.stop, stream), "cudaEventRecord");
      checks_.cuda(cudaEventSynchronize(events.stop), "cudnn engine search");
      float t = 0;
      checks_.cuda(cudaEventElapsedTime(&t, events.start, events.stop), "cudaEventElapsedTime");
      if (status != CUDNN_STATUS_SUCCESS) return -1;
      ms = ms < 0 ? t : std::min(ms, t);
    }
    return ms;
  }

  cudnnHandle_t handle_;
  CudnnPrecision precision_;
  CudnnSearchChecks checks_;
  std::vector<cudnnBackendDescriptor_t> owned_;  // destroyed in reverse order
  cudnnBackendDescriptor_t graph_ = nullptr, plan_ = nullptr;
  size_t workspace_bytes_ = 0;
  int64_t engine_ = -1;
  std::string config_;  // "A#3": the kept config's rank in that heuristic mode's results
  bool transform_ = false;
};

}  // namespace ktune::kernels::conv2d::cuda
