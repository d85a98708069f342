// _ktune_cuda: ktune.gemm and ktune.conv2d on CUDA DLPack tensors (PyTorch, CuPy, JAX, ...):
// the shipped CUDA tuned libraries on the tensors' device pointers, asynchronous on the stream
// the caller passes (python/ktune/__init__.py passes the tensors' framework's current stream).
// A module of its own, so that the package imports and builds without CUDA (docs/python.md).
#include <cuda_runtime_api.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

#include "ktune/conv2d.hpp"
#include "ktune/gemm.hpp"
#include "python/bindings.hpp"
#include "python/blas_view.hpp"
#include "python/dlpack.hpp"

namespace py = pybind11;

namespace ktune::python {

namespace {

constexpr int64_t kItem = sizeof(float);

std::string where(const dlpack::Device& d) {
  switch (d.device_type) {
    case dlpack::kCPU:
      return "the CPU";
    case dlpack::kCUDA:
      return "CUDA device " + std::to_string(d.device_id);
    case dlpack::kCUDAHost:
      return "CUDA pinned host memory";
    case dlpack::kCUDAManaged:
      return "CUDA managed memory";
    default:
      return "DLPack device type " + std::to_string(d.device_type);
  }
}

struct Arg {
  py::handle obj;
  const char* name;
};

dlpack::Device device_of(const Arg& x) {
  if (!py::hasattr(x.obj, "__dlpack__") || !py::hasattr(x.obj, "__dlpack_device__"))
    throw std::invalid_argument(std::string(x.name) + ": needs a DLPack tensor, got " +
                                Py_TYPE(x.obj.ptr())->tp_name);
  const auto t = x.obj.attr("__dlpack_device__")().cast<py::tuple>();
  return {t[0].cast<int32_t>(), t[1].cast<int32_t>()};
}

// The one CUDA device all of `args` are on (ValueError naming the first that is elsewhere).
int32_t one_cuda_device(std::initializer_list<Arg> args, const char* op) {
  const Arg* ref = nullptr;
  dlpack::Device ref_device{};
  for (const Arg& x : args) {
    const dlpack::Device d = device_of(x);
    if (d.device_type == dlpack::kCUDA && !ref) ref = &x, ref_device = d;
  }
  if (!ref) throw std::invalid_argument(std::string(op) + ": no CUDA tensor among the arguments");
  for (const Arg& x : args) {
    const dlpack::Device d = device_of(x);
    if (d.device_type != ref_device.device_type || d.device_id != ref_device.device_id)
      throw std::invalid_argument(std::string(x.name) + ": on " + where(d) + " while " + ref->name +
                                  " is on " + where(ref_device) + ": ktune." + op +
                                  " takes all its tensors on the CPU or all on one GPU");
  }
  return ref_device.device_id;
}

std::string dtype_name(const dlpack::DataType& t) {
  static constexpr std::pair<uint8_t, const char*> kinds[] = {{dlpack::kFloat, "float"},
                                                              {dlpack::kBfloat, "bfloat"},
                                                              {dlpack::kInt, "int"},
                                                              {dlpack::kUInt, "uint"},
                                                              {dlpack::kComplex, "complex"}};
  std::string name =
      "DLPack type code " + std::to_string(t.code) + " of " + std::to_string(t.bits) + " bits";
  if (t.code == dlpack::kBool) name = "bool";
  for (const auto& [code, kind] : kinds)
    if (t.code == code) name = kind + std::to_string(t.bits);
  return t.lanes == 1 ? name : name + " x" + std::to_string(t.lanes);
}

// A float32 CUDA tensor borrowed through DLPack for one call. The producer's capsule is kept
// (so its memory stays alive) and not renamed "used_dltensor": its destructor, the producer's,
// then releases the DLManagedTensor, as the protocol has it for a capsule nobody consumed.
class CudaTensor {
 public:
  CudaTensor(const Arg& x, int64_t dims, uintptr_t stream) : name_(x.name) {
    // The protocol's stream argument: the consumer's stream, which the producer orders its
    // pending work before; 1 names the legacy default stream (0 is not allowed).
    capsule_ = x.obj.attr("__dlpack__")(py::arg("stream") = stream == 0 ? 1 : stream);
    auto* managed =
        static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule_.ptr(), "dltensor"));
    if (!managed) throw py::error_already_set();
    t_ = &managed->dl_tensor;
    if (t_->dtype.code != dlpack::kFloat || t_->dtype.bits != 32 || t_->dtype.lanes != 1)
      throw std::invalid_argument(name_ + ": needs dtype float32, got " + dtype_name(t_->dtype));
    if (t_->ndim != dims)
      throw std::invalid_argument(name_ + ": needs a " + std::to_string(dims) + "-D tensor, got " +
                                  std::to_string(t_->ndim) + "-D");
  }
  int64_t dim(int i) const { return t_->shape[i]; }
  int64_t stride_bytes(int i) const {  // null strides: compact row-major
    if (t_->strides) return t_->strides[i] * kItem;
    int64_t s = kItem;
    for (int j = t_->ndim - 1; j > i; --j) s *= t_->shape[j];
    return s;
  }
  float* data() const {
    return reinterpret_cast<float*>(static_cast<char*>(t_->data) + t_->byte_offset);
  }
  BlasView blas() const {
    return blas_view(dim(0), dim(1), stride_bytes(0), stride_bytes(1), kItem, name_.c_str());
  }
  void require_c_contiguous() const {
    int64_t want = kItem;
    for (int i = t_->ndim - 1; i >= 0; --i) {
      if (dim(i) > 1 && stride_bytes(i) != want)
        throw std::invalid_argument(name_ + ": needs a C-contiguous tensor");
      want *= dim(i);
    }
  }
  std::string shape() const {
    std::string s = "(";
    for (int i = 0; i < t_->ndim; ++i) s += (i ? ", " : "") + std::to_string(dim(i));
    return s + ")";
  }

 private:
  std::string name_;
  py::object capsule_;
  const dlpack::Tensor* t_ = nullptr;
};

void cuda_check(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}

// The call runs on the tensors' device; the caller's current device is restored after it.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) : device_(device) {
    cuda_check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device_) cuda_check(cudaSetDevice(device_), "cudaSetDevice");
  }
  ~DeviceGuard() {
    if (previous_ != device_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int device_, previous_ = 0;
};

py::object gemm(const py::object& a_obj, const py::object& b_obj, const py::object& c_obj,
                float alpha, float beta, uintptr_t stream) {
  const Arg args[] = {{a_obj, "a"}, {b_obj, "b"}, {c_obj, "c"}};
  const int device = one_cuda_device({args[0], args[1], args[2]}, "gemm");
  const CudaTensor a(args[0], 2, stream), b(args[1], 2, stream), c(args[2], 2, stream);
  const BlasView va = a.blas(), vb = b.blas(), vc = c.blas();
  const int64_t m = c.dim(0), n = c.dim(1), k = a.dim(1);
  check_gemm_shapes(a.dim(0), k, b.dim(0), b.dim(1), m, n);
  auto* s = reinterpret_cast<ktune::cudaStream_t>(stream);
  py::gil_scoped_release release;
  DeviceGuard guard(device);
  blas_gemm(
      va, static_cast<const float*>(a.data()), vb, static_cast<const float*>(b.data()), vc, m, n, k,
      [&](ktune::Trans ta, ktune::Trans tb, int64_t rows, int64_t cols, int64_t depth,
          const float* x, int64_t ldx, const float* y, int64_t ldy) {
        ktune::gemm(ta, tb, rows, cols, depth, alpha, x, ldx, y, ldy, beta, c.data(), vc.ld, s);
      });
  return c_obj;
}

py::object conv2d(const py::object& in_obj, const py::object& f_obj, const py::object& out_obj,
                  int64_t stride, int64_t pad, uintptr_t stream) {
  const Arg args[] = {{in_obj, "input"}, {f_obj, "filter"}, {out_obj, "out"}};
  const int device = one_cuda_device({args[0], args[1], args[2]}, "conv2d");
  const CudaTensor input(args[0], 4, stream), filter(args[1], 4, stream), out(args[2], 4, stream);
  for (const CudaTensor* t : {&input, &filter, &out}) t->require_c_contiguous();
  const int64_t n = input.dim(0), h = input.dim(1), w = input.dim(2), c = input.dim(3);
  const int64_t k = filter.dim(0), r = filter.dim(1), s = filter.dim(2);
  check_conv2d_args(c, filter.dim(3), stride);
  // Sizes the library refuses give no output shape: it names them itself.
  if (h + 2 * pad >= r && w + 2 * pad >= s) {
    const std::string want =
        "(" + std::to_string(n) + ", " + std::to_string((h + 2 * pad - r) / stride + 1) + ", " +
        std::to_string((w + 2 * pad - s) / stride + 1) + ", " + std::to_string(k) + ")";
    if (out.shape() != want)
      throw std::invalid_argument("out: needs shape (n, p, q, k) = " + want + ", got " +
                                  out.shape());
  }
  auto* cs = reinterpret_cast<ktune::cudaStream_t>(stream);
  py::gil_scoped_release release;
  DeviceGuard guard(device);
  ktune::conv2d(n, h, w, c, k, r, s, stride, pad, input.data(), filter.data(), out.data(), cs);
  return out_obj;
}

}  // namespace

}  // namespace ktune::python

PYBIND11_MODULE(_ktune_cuda, m) {
  namespace kp = ktune::python;
  m.doc() = "ktune.gemm / ktune.conv2d on CUDA DLPack tensors (use the package `ktune`).";
  // Bad arguments (std::invalid_argument, ktune::GemmError, ktune::Conv2dError) -> ValueError;
  // CUDA runtime errors (std::runtime_error) -> RuntimeError: pybind11's defaults.
  m.def("gemm", &kp::gemm, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("alpha"),
        py::arg("beta"), py::arg("stream"));
  m.def("conv2d", &kp::conv2d, py::arg("input"), py::arg("filter"), py::arg("out"),
        py::arg("stride"), py::arg("pad"), py::arg("stream"));
  m.def("tuned_gemm_info", [] { return kp::tuned_info_dict(ktune::tuned_gemm_info_cuda()); });
  m.def("tuned_conv2d_info", [] { return kp::tuned_info_dict(ktune::tuned_conv2d_info_cuda()); });
}
