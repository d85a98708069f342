#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/conv2d/cuda/conv2d_cudnn_engines.hpp"
#include "ktune/cuda/cuda_error.hpp"

namespace ktune::kernels::conv2d::cuda {

const char* cudnn_algo_name(cudnnConvolutionFwdAlgo_t algo) {
  static const char* const names[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  return algo >= 0 && algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT ? names[algo] : "?";
}

const char* cudnn_math_name(cudnnMathType_t math) {
  switch (math) {
    case CUDNN_FMA_MATH:
      return "FMA";
    case CUDNN_TENSOR_OP_MATH:
      return "TENSOR_OP";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return "TENSOR_OP_ALLOW_CONVERSION";
    default:
      return "DEFAULT";
  }
}

namespace {

// The math type the search starts from (Find reports each result's own).
cudnnMathType_t search_math(CudnnPrecision p) {
  switch (p) {
    case CudnnPrecision::fp32:
      return CUDNN_FMA_MATH;
    case CudnnPrecision::tf32:
      return CUDNN_DEFAULT_MATH;  // permits TF32 on FP32 data (Ampere on)
    default:
      return CUDNN_TENSOR_OP_MATH;
  }
}

}  // namespace

std::vector<cudnnConvolutionFwdAlgoPerf_t> cudnn_find_forward(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x_desc, const void* x,
    cudnnFilterDescriptor_t w_desc, const void* w, cudnnConvolutionDescriptor_t conv,
    cudnnTensorDescriptor_t y_desc, void* y, size_t max_workspace) {
  size_t largest = 0;
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    size_t bytes = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc, w_desc, conv, y_desc,
                                                cudnnConvolutionFwdAlgo_t(a),
                                                &bytes) == CUDNN_STATUS_SUCCESS &&
        bytes <= max_workspace)
      largest = std::max(largest, bytes);
  }
  ktune::cuda::DeviceBuffer<char> search(largest, "cudnn find workspace");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  int returned = 0;
  check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(handle, x_desc, x, w_desc, w, conv, y_desc, y,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
                                                     perf.data(), search.data(), largest),
              "cudnnFindConvolutionForwardAlgorithmEx");
  perf.resize(size_t(returned));
  return perf;
}

void check_cudnn(cudnnStatus_t status, const std::string& call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw ktune::cuda::CudaError(call + ": " + cudnnGetErrorString(status), int(status), false);
}

void destroy_cudnn(cudnnHandle_t handle) {
  if (!ktune::cuda::context_corrupted()) cudnnDestroy(handle);
}

CudnnHandle::CudnnHandle(cudaStream_t stream) {
  cudnnHandle_t handle = nullptr;
  check_cudnn(cudnnCreate(&handle), "cudnnCreate");
  adopt(handle);  // destroyed if setting the stream throws
  check_cudnn(cudnnSetStream(handle, stream), "cudnnSetStream");
}

CudnnConv::CudnnConv(cudnnHandle_t handle, const Shape& s, CudnnLayouts layouts, CudnnApis apis,
                     CudnnPrecision precision)
    : handle_(handle), shape_(s), layouts_(layouts), apis_(apis), precision_(precision) {
  try {
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");
    check_cudnn(cudnnSetConvolution2dDescriptor(conv_desc_, int(s.pad), int(s.pad), int(s.stride),
                                                int(s.stride), 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionMathType(conv_desc_, search_math(precision)),
                "cudnnSetConvolutionMathType");
    make_layout(nhwc_, CUDNN_TENSOR_NHWC);
    make_layout(nchw_, CUDNN_TENSOR_NCHW);
  } catch (...) {
    release();
    throw;
  }
}

void CudnnConv::make_layout(Layout& layout, cudnnTensorFormat_t format) {
  const Shape& s = shape_;
  const cudnnDataType_t type = cudnn_data_type(precision_);
  layout.create();
  check_cudnn(
      cudnnSetTensor4dDescriptor(layout.x, format, type, int(s.n), int(s.c), int(s.h), int(s.w)),
      "cudnnSetTensor4dDescriptor(x)");
  // KRSC is cuDNN's NHWC filter format (k, then r, s, c innermost); KCRS its NCHW one.
  check_cudnn(
      cudnnSetFilter4dDescriptor(layout.w, type, format, int(s.k), int(s.c), int(s.r), int(s.s)),
      "cudnnSetFilter4dDescriptor(w)");
  int n = 0, c = 0, p = 0, q = 0;
  check_cudnn(cudnnGetConvolution2dForwardOutputDim(conv_desc_, layout.x, layout.w, &n, &c, &p, &q),
              "cudnnGetConvolution2dForwardOutputDim");
  if (n != s.n || c != s.k || p != s.p() || q != s.q())
    throw Error(fmt::format("cudnn: output {}x{}x{}x{} differs from the family's {}x{}x{}x{}", n, p,
                            q, c, s.n, s.p(), s.q(), s.k));
  check_cudnn(cudnnSetTensor4dDescriptor(layout.y, format, type, n, c, p, q),
              "cudnnSetTensor4dDescriptor(y)");
}

CudnnConv::~CudnnConv() { release(); }

void CudnnConv::release() {
  if (conv_desc_) cudnnDestroyConvolutionDescriptor(conv_desc_);
  conv_desc_ = nullptr;
  nhwc_.destroy();
  nchw_.destroy();
}

CudnnConv::Found CudnnConv::find_in(const Layout& layout, const void* x, const void* w,
                                    void* y) const {
  // Results come sorted by time, fastest first; fp32 takes FMA kernels only.
  for (const auto& p : cudnn_find_forward(handle_, layout.x, x, layout.w, w, conv_desc_, layout.y,
                                          y, kMaxFindWorkspace))
    if (p.status == CUDNN_STATUS_SUCCESS &&
        (precision_ != CudnnPrecision::fp32 || p.mathType == CUDNN_FMA_MATH))
      return {p.algo, p.mathType, p.time, p.memory};
  return {};
}

void CudnnConv::find(const void* x, const void* w, void* y) {
  Found best;
  use_nchw_ = false;
  engines_.reset();
  check_cudnn(cudnnSetConvolutionMathType(conv_desc_, search_math(precision_)),
              "cudnnSetConvolutionMathType");
  const bool legacy = apis_ != CudnnApis::engines;
  if (layouts_ != CudnnLayouts::nchw && legacy) best = find_in(nhwc_, x, w, y);
  if (layouts_ != CudnnLayouts::nhwc) {
    use_nchw_ = true;  // stage() transposes only for the NCHW layout
    stage(0, x, w, y);
    if (legacy) {
      const Found nchw = find_in(nchw_, staged(0, 0), staged(0, 1), staged(0, 2));
      use_nchw_ = nchw.ms >= 0 && (best.ms < 0 || nchw.ms < best.ms);
      if (use_nchw_) best = nchw;
    }
  }
  if (apis_ != CudnnApis::legacy) find_engines(x, w, y, best);
  if (!use_nchw_) staged_.clear();
  if (best.ms < 0)
    throw ktune::cuda::CudaError(fmt::format("cudnn: no {} forward algorithm for this problem",
                                             cudnn_precision_name(precision_)),
                                 0, false);
  algo_ = best.algo;
  math_ = best.math;
  found_ms_ = best.ms;
  // Legacy runs use the math type the winner was timed with.
  if (!engines_)
    check_cudnn(cudnnSetConvolutionMathType(conv_desc_, math_), "cudnnSetConvolutionMathType");
  workspace_ = ktune::cuda::DeviceBuffer<char>(best.memory, "cudnn workspace");
  if (engines_) stage(0, x, w, y);  // binds copy 0 to the kept plan and its workspace
  found_ = true;
}

// The engines of each allowed layout; one faster than `best` becomes the kept plan.
void CudnnConv::find_engines(const void* x, const void* w, void* y, Found& best) {
  const bool legacy_nchw = use_nchw_ && apis_ != CudnnApis::engines;
  for (const bool nchw : {false, true}) {
    if ((nchw && layouts_ == CudnnLayouts::nhwc) || (!nchw && layouts_ == CudnnLayouts::nchw))
      continue;
    if (nchw && staged_.empty()) stage_nchw(0, x, w);
    // The plan may assume the alignment these buffers keep (16 bytes: vectorized kernels).
    int64_t alignment = 16;
    const void* const buffers[] = {nchw ? staged(0, 0) : x, nchw ? staged(0, 1) : w,
                                   nchw ? staged(0, 2) : y};
    for (const void* p : buffers)
      while (reinterpret_cast<uintptr_t>(p) % uintptr_t(alignment) != 0) alignment /= 2;
    alignment = std::max<int64_t>(alignment, int64_t(cudnn_element_bytes(precision_)));
    auto engines = std::make_unique<CudnnEngines>(handle_, shape_, nchw, precision_, alignment);
    const float ms = nchw ? engines->find(staged(0, 0), staged(0, 1), staged(0, 2),
                                          kMaxFindWorkspace, engine_configs_per_mode_)
                          : engines->find(x, w, y, kMaxFindWorkspace, engine_configs_per_mode_);
    if (ms >= 0 && (best.ms < 0 || ms < best.ms)) {
      best = Found{algo_, math_, ms, engines->workspace_bytes()};
      engines_ = std::move(engines);
      use_nchw_ = nchw;
    }
  }
  if (!engines_) use_nchw_ = legacy_nchw;
}

// Part `part` (0 input, 1 filter, 2 output) of staged copy `copy`, each part 256-byte aligned.
void* CudnnConv::staged(int copy, size_t part) const {
  const auto bytes = [&](int64_t elements) {
    return (size_t(elements) * cudnn_element_bytes(precision_) + 255) / 256 * 256;
  };
  const size_t nx = bytes(shape_.input_elements()), nw = bytes(shape_.filter_elements());
  const size_t offsets[] = {0, nx, nx + nw};
  return staged_.at(size_t(copy)).data() + offsets[part];
}

void CudnnConv::stage(int copy, const void* x, const void* w, void* y) {
  if (engines_) {  // after find(): bind this copy's buffers (staged ones for NCHW)
    if (use_nchw_) stage_nchw(copy, x, w);
    engines_->bind(use_nchw_ ? staged(copy, 0) : x, use_nchw_ ? staged(copy, 1) : w,
                   use_nchw_ ? staged(copy, 2) : y, workspace_.data());
    return;
  }
  if (use_nchw_) stage_nchw(copy, x, w);
}

void CudnnConv::stage_nchw(int copy, const void* x, const void* w) {
  if (staged_.size() <= size_t(copy)) staged_.resize(size_t(copy) + 1);
  if (!staged_[size_t(copy)].data())
    staged_[size_t(copy)] = ktune::cuda::DeviceBuffer<char>(
        (size_t(shape_.input_elements() + shape_.filter_elements() + shape_.output_elements()) *
             cudnn_element_bytes(precision_) +
         3 * 256),
        "cudnn NCHW copy");
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnTransformTensor(handle_, &one, nhwc_.x, x, &zero, nchw_.x, staged(copy, 0)),
              "cudnnTransformTensor(x to NCHW)");
  // A filter is a tensor of dims (k, c, r, s) in the same two formats.
  cudnnTensorDescriptor_t from = nullptr, to = nullptr;
  check_cudnn(cudnnCreateTensorDescriptor(&from), "cudnnCreateTensorDescriptor");
  const cudnnStatus_t made = cudnnCreateTensorDescriptor(&to);
  cudnnStatus_t status = made;
  if (made == CUDNN_STATUS_SUCCESS) {
    const Shape& s = shape_;
    const cudnnDataType_t type = cudnn_data_type(precision_);
    status = cudnnSetTensor4dDescriptor(from, CUDNN_TENSOR_NHWC, type, int(s.k), int(s.c), int(s.r),
                                        int(s.s));
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnSetTensor4dDescriptor(to, CUDNN_TENSOR_NCHW, type, int(s.k), int(s.c), int(s.r),
                                          int(s.s));
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnTransformTensor(handle_, &one, from, w, &zero, to, staged(copy, 1));
    cudnnDestroyTensorDescriptor(to);
  }
  cudnnDestroyTensorDescriptor(from);
  check_cudnn(status, "cudnnTransformTensor(w to KCRS)");
}

cudnnStatus_t CudnnConv::run(const void* x, const void* w, void* y, int copy) const {
  if (engines_)
    return use_nchw_
               ? engines_->run(staged(copy, 0), staged(copy, 1), staged(copy, 2), workspace_.data())
               : engines_->run(x, w, y, workspace_.data());
  const float one = 1.0f, zero = 0.0f;
  if (use_nchw_)
    return cudnnConvolutionForward(handle_, &one, nchw_.x, staged(copy, 0), nchw_.w,
                                   staged(copy, 1), conv_desc_, algo_, workspace_.data(),
                                   workspace_.bytes(), &zero, nchw_.y, staged(copy, 2));
  return cudnnConvolutionForward(handle_, &one, nhwc_.x, x, nhwc_.w, w, conv_desc_, algo_,
                                 workspace_.data(), workspace_.bytes(), &zero, nhwc_.y, y);
}

void CudnnConv::poison() const {
  if (!use_nchw_) return;
  cudaStream_t stream = nullptr;
  check_cudnn(cudnnGetStream(handle_, &stream), "cudnnGetStream");
  ktune::cuda::check(
      cudaMemsetAsync(staged(0, 2), 0xFF,
                      size_t(shape_.output_elements()) * cudnn_element_bytes(precision_), stream),
      "cudaMemsetAsync(poison cudnn NCHW output)");
}

void CudnnConv::deliver(void* y) const {
  if (!use_nchw_) return;
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnTransformTensor(handle_, &one, nchw_.y, staged(0, 2), &zero, nhwc_.y, y),
              "cudnnTransformTensor(y to NHWC)");
}

std::string CudnnConv::description() const {
  const std::string pick =
      engines_ ? engines_->description()
               : fmt::format("algo={} math={}", cudnn_algo_name(algo_), cudnn_math_name(math_));
  return fmt::format("cudnn {} {} layout={} {:.4f} ms workspace={} B",
                     cudnn_precision_name(precision_), pick, use_nchw_ ? "NCHW" : "NHWC", found_ms_,
                     workspace_.bytes());
}

bool cudnn_transform_algorithm(cudnnConvolutionFwdAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT || algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
         algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
         algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}

bool CudnnConv::transform_algorithm() const {
  if (engines_) return engines_->transform_algorithm();
  return cudnn_transform_algorithm(algo_);
}

}  // namespace ktune::kernels::conv2d::cuda
