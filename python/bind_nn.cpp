// ktune.conv2d (the shipped CPU tuned conv library) and ktune.infer_onnx (an ONNX model on the
// inference engine, nn/): numpy float32 arrays in, numpy arrays out.
#include <pybind11/numpy.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "ktune/conv2d.hpp"
#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#ifdef KTUNE_NN_ONNX
#include "ktune/nn/onnx.hpp"
#endif
#include "python/bindings.hpp"

namespace py = pybind11;

namespace ktune::python {

namespace {

using FloatArray = py::array_t<float, py::array::c_style>;

// A C-contiguous float32 array of `dims` dimensions, or a ValueError naming the argument.
// (noconvert arguments: nothing is copied or cast behind the caller's back.)
void check_array(const py::array& x, const char* name, py::ssize_t dims) {
  if (!x.dtype().is(py::dtype::of<float>()))
    throw std::invalid_argument(std::string(name) + ": needs dtype float32, got " +
                                std::string(py::str(x.dtype())));
  if (x.ndim() != dims)
    throw std::invalid_argument(std::string(name) + ": needs a " + std::to_string(dims) +
                                "-D array, got " + std::to_string(x.ndim()) + "-D");
  if (!(x.flags() & py::array::c_style))
    throw std::invalid_argument(std::string(name) + ": needs a C-contiguous array");
}

// NHWC input, KRSC filter -> a new NHWC output (ktune::conv2d checks the sizes, throwing
// Conv2dError, a ValueError, naming the argument).
py::array conv2d(const py::array& input, const py::array& filter, int64_t stride, int64_t pad) {
  check_array(input, "input", 4);
  check_array(filter, "filter", 4);
  const int64_t n = input.shape(0), h = input.shape(1), w = input.shape(2), c = input.shape(3);
  const int64_t k = filter.shape(0), r = filter.shape(1), s = filter.shape(2);
  check_conv2d_args(c, filter.shape(3), stride);
  // Sizes the library refuses give no output shape: let it name them before allocating.
  const int64_t p = h + 2 * pad >= r ? (h + 2 * pad - r) / stride + 1 : 1;
  const int64_t q = w + 2 * pad >= s ? (w + 2 * pad - s) / stride + 1 : 1;
  FloatArray out({n, p, q, k});
  const auto* in = static_cast<const float*>(input.data());
  const auto* f = static_cast<const float*>(filter.data());
  float* o = out.mutable_data();
  {
    py::gil_scoped_release release;
    ktune::conv2d(n, h, w, c, k, r, s, stride, pad, in, f, o);
  }
  return out;
}

void register_backends() {
  static std::once_flag once;
  std::call_once(once, [] { nn::register_cpu_backends(); });
}

// NHWC float32 [batch][image][image][3] -> logits [batch][classes] of the ONNX model on
// `backend` (the engine's CPU backends: ktune, onednn, auto, reference).
py::array infer_onnx(const std::string& path, const py::array& input_nhwc,
                     const std::string& backend_name) {
  check_array(input_nhwc, "input", 4);
#ifdef KTUNE_NN_ONNX
  register_backends();
  const int64_t batch = input_nhwc.shape(0);
  auto backend = nn::make_backend(backend_name);
  const nn::OnnxModel model = nn::load_onnx(path, batch);
  const nn::Network& net = model.network;
  if (input_nhwc.shape(1) != net.image || input_nhwc.shape(2) != net.image ||
      input_nhwc.shape(3) != 3)
    throw std::invalid_argument("input: " + path + " takes [N, 3, " + std::to_string(net.image) +
                                ", " + std::to_string(net.image) + "] images");
  FloatArray logits({batch, net.classes});
  const auto* in = static_cast<const float*>(input_nhwc.data());
  float* out = logits.mutable_data();
  {
    py::gil_scoped_release release;
    nn::Engine engine(net, model.weights, *backend);
    engine.set_input(in);
    engine.forward();
    engine.logits(out);
  }
  return logits;
#else
  (void)path, (void)backend_name;
  throw Error("infer_onnx: this build has no ONNX support (libonnx-dev)");
#endif
}

py::list backends() {
  register_backends();
  py::list out;
  for (const auto& [name, summary] : nn::backend_list()) out.append(py::make_tuple(name, summary));
  return out;
}

}  // namespace

void bind_nn(py::module_& m) {
  m.def("conv2d", &conv2d, py::arg("input").noconvert(), py::arg("filter").noconvert(),
        py::arg("stride") = 1, py::arg("pad") = 0);
  m.def("tuned_conv2d_info", [] { return tuned_info_dict(tuned_conv2d_info_cpu()); });
  m.def("infer_onnx", &infer_onnx, py::arg("path"), py::arg("input").noconvert(),
        py::arg("backend") = "ktune");
  m.def("backends", &backends);
}

}  // namespace ktune::python
