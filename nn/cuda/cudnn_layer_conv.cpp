#include "nn/cuda/cudnn_layer_conv.hpp"

#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#include "ktune/cuda/cuda_error.hpp"

namespace ktune::nn::cuda {

namespace family = ktune::kernels::conv2d::cuda;

CudnnHandle make_cudnn_handle(cudaStream_t stream) {
  auto owner = std::make_shared<family::CudnnHandle>(stream);
  return CudnnHandle(owner, owner->get());  // shares ownership of the family's handle
}

void check_cudnn(cudnnStatus_t status, const std::string& call) {
  family::check_cudnn(status, call);
}

namespace {

ktune::kernels::conv2d::Shape shape_of(const ConvDesc& d) {
  return {d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad};
}

family::CudnnPrecision precision_of(Precision p) {
  return p == Precision::bf16   ? family::CudnnPrecision::bf16
         : p == Precision::tf32 ? family::CudnnPrecision::tf32
                                : family::CudnnPrecision::fp32;
}

}  // namespace

CudnnLayerConv::CudnnLayerConv(cudnnHandle_t handle, const ConvDesc& d, Precision precision)
    : conv_(std::make_unique<family::CudnnConv>(handle, shape_of(d), family::CudnnLayouts::nhwc,
                                                family::CudnnApis::legacy_and_engines,
                                                precision_of(precision))) {
  conv_->limit_engine_search(kEngineConfigsPerMode);
}

CudnnLayerConv::~CudnnLayerConv() = default;

void CudnnLayerConv::find(const void* x, const void* w, void* y) { conv_->find(x, w, y); }

cudnnStatus_t CudnnLayerConv::run(const void* x, const void* w, void* y) const {
  return conv_->run(x, w, y);
}

std::string CudnnLayerConv::description() const { return conv_->description(); }

bool CudnnLayerConv::transform_algorithm() const { return conv_->transform_algorithm(); }

}  // namespace ktune::nn::cuda
