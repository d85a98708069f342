#include "nn/cuda/cudnn_layer_conv.hpp"

#include <fmt/format.h>

#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#include "ktune/cuda/cuda_error.hpp"

namespace ktune::nn::cuda {

CudnnHandle make_cudnn_handle(cudaStream_t stream) {
  auto owner = std::make_shared<ktune::kernels::conv2d::cuda::CudnnHandle>(stream);
  return CudnnHandle(owner, owner->get());  // shares ownership of the family's handle
}

void check_cudnn(cudnnStatus_t status, const std::string& call) {
  ktune::kernels::conv2d::cuda::check_cudnn(status, call);
}

namespace {

using ktune::kernels::conv2d::cuda::cudnn_algo_name;

// Find's scratch workspace: the largest any algorithm asks for, up to this.
constexpr size_t kMaxFindWorkspace = size_t(2) << 30;

const char* math_name(cudnnMathType_t math) {
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

cudnnDataType_t data_type(Precision p) {
  return p == Precision::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

cudnnMathType_t math_type(Precision p) {
  switch (p) {
    case Precision::tf32:
      return CUDNN_DEFAULT_MATH;
    case Precision::bf16:
      return CUDNN_TENSOR_OP_MATH;
    default:
      return CUDNN_FMA_MATH;
  }
}

}  // namespace

CudnnLayerConv::CudnnLayerConv(cudnnHandle_t handle, const ConvDesc& d, Precision precision)
    : handle_(handle), d_(d), precision_(precision) {
  try {
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv_), "cudnnCreateConvolutionDescriptor");
    // FLOAT compute in every precision: FP32 accumulation.
    check_cudnn(
        cudnnSetConvolution2dDescriptor(conv_, int(d.pad), int(d.pad), int(d.stride), int(d.stride),
                                        1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionMathType(conv_, math_type(precision)),
                "cudnnSetConvolutionMathType");
    make_layout(nhwc_, CUDNN_TENSOR_NHWC);
    make_layout(nchw_, CUDNN_TENSOR_NCHW);
  } catch (...) {
    release();
    throw;
  }
}

CudnnLayerConv::~CudnnLayerConv() { release(); }

void CudnnLayerConv::release() {
  if (conv_) cudnnDestroyConvolutionDescriptor(conv_);
  conv_ = nullptr;
  nhwc_.destroy();
  nchw_.destroy();
}

void CudnnLayerConv::make_layout(Layout& layout, cudnnTensorFormat_t format) {
  const cudnnDataType_t type = data_type(precision_);
  layout.create();
  check_cudnn(cudnnSetTensor4dDescriptor(layout.x, format, type, int(d_.n), int(d_.c), int(d_.h),
                                         int(d_.w)),
              "cudnnSetTensor4dDescriptor(x)");
  // KRSC is cuDNN's NHWC filter format, KCRS its NCHW one.
  check_cudnn(cudnnSetFilter4dDescriptor(layout.w, type, format, int(d_.k), int(d_.c), int(d_.r),
                                         int(d_.s)),
              "cudnnSetFilter4dDescriptor(w)");
  check_cudnn(cudnnSetTensor4dDescriptor(layout.y, format, type, int(d_.n), int(d_.k), int(d_.p()),
                                         int(d_.q())),
              "cudnnSetTensor4dDescriptor(y)");
}

CudnnLayerConv::Found CudnnLayerConv::find_in(const Layout& layout, const void* x, const void* w,
                                              void* y) const {
  // Sorted by time, fastest first; fp32 takes FMA kernels only.
  for (const auto& p : ktune::kernels::conv2d::cuda::cudnn_find_forward(
           handle_, layout.x, x, layout.w, w, conv_, layout.y, y, kMaxFindWorkspace))
    if (p.status == CUDNN_STATUS_SUCCESS &&
        (precision_ != Precision::fp32 || p.mathType == CUDNN_FMA_MATH))
      return {p.algo, p.mathType, p.time, p.memory};
  return {};
}

void CudnnLayerConv::find(const void* x, const void* w, void* y) {
  best_ = find_in(nhwc_, x, w, y);
  if (best_.ms < 0)
    throw ktune::cuda::CudaError(
        fmt::format("cudnn: no {} forward algorithm for this layer", precision_name(precision_)), 0,
        false);
  {  // NCHW on zeroed scratch buffers, for the record only.
    const size_t bytes = precision_ == Precision::bf16 ? 2 : 4;
    const auto scratch = [&](int64_t count, const char* what) {
      ktune::cuda::DeviceBuffer<char> b(size_t(count) * bytes, what);
      ktune::cuda::check(cudaMemset(b.data(), 0, b.bytes()), "cudaMemset(cudnn NCHW scratch)");
      return b;
    };
    const auto sx = scratch(d_.n * d_.c * d_.h * d_.w, "cudnn NCHW input");
    const auto sw = scratch(d_.k * d_.c * d_.r * d_.s, "cudnn NCHW filter");
    auto sy = scratch(d_.n * d_.k * d_.p() * d_.q(), "cudnn NCHW output");
    nchw_best_ = find_in(nchw_, sx.data(), sw.data(), sy.data());
    ktune::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize(cudnn NCHW find)");
  }
  // Run with the math type the winning algorithm was timed with.
  check_cudnn(cudnnSetConvolutionMathType(conv_, best_.math), "cudnnSetConvolutionMathType");
  workspace_ = ktune::cuda::DeviceBuffer<char>(best_.memory, "cudnn workspace");
}

cudnnStatus_t CudnnLayerConv::run(const void* x, const void* w, void* y) const {
  const float one = 1.0f, zero = 0.0f;
  return cudnnConvolutionForward(handle_, &one, nhwc_.x, x, nhwc_.w, w, conv_, best_.algo,
                                 workspace_.data(), workspace_.bytes(), &zero, nhwc_.y, y);
}

std::string CudnnLayerConv::description() const {
  std::string nchw = "none";
  if (nchw_best_.ms >= 0)
    nchw = fmt::format("algo={} math={} {:.4f} ms", cudnn_algo_name(nchw_best_.algo),
                       math_name(nchw_best_.math), nchw_best_.ms);
  return fmt::format("cudnn {} algo={} math={} layout=NHWC {:.4f} ms workspace={} B; NCHW: {}",
                     precision_name(precision_), cudnn_algo_name(best_.algo), math_name(best_.math),
                     best_.ms, workspace_.bytes(), nchw);
}

bool CudnnLayerConv::transform_algorithm() const {
  return ktune::kernels::conv2d::cuda::cudnn_transform_algorithm(best_.algo);
}

}  // namespace ktune::nn::cuda
