// ktune.gemm: ktune::gemm of the shipped CPU tuned library on numpy float32 arrays. Strides
// map onto BLAS arguments (a C-contiguous row-major matrix is the column-major transpose), so
// C-contiguous arrays and their transposed views run without a copy.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <ktune/gemm.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "python/bindings.hpp"
#include "python/blas_view.hpp"

namespace py = pybind11;

namespace ktune::python {

namespace {

BlasView as_blas(const py::array& x, const char* name, bool writable) {
  if (x.ndim() != 2)
    throw std::invalid_argument(std::string(name) + ": needs a 2-D array, got " +
                                std::to_string(x.ndim()) + "-D");
  if (writable && !x.writeable()) throw std::invalid_argument(std::string(name) + ": read-only");
  return blas_view(x.shape(0), x.shape(1), x.strides(0), x.strides(1), sizeof(float), name);
}

// C = alpha * A @ B + beta * C, all numpy 2-D float32. Row-major thinking: C is (m, n).
void gemm(const py::array& a_obj, const py::array& b_obj, py::array c_obj, float alpha,
          float beta) {
  for (const auto& [x, name] :
       {std::pair<const py::array*, const char*>{&a_obj, "a"}, {&b_obj, "b"}, {&c_obj, "c"}})
    if (!x->dtype().is(py::dtype::of<float>()))
      throw std::invalid_argument(std::string(name) + ": needs dtype float32, got " +
                                  std::string(py::str(x->dtype())));
  const BlasView va = as_blas(a_obj, "a", false), vb = as_blas(b_obj, "b", false);
  const BlasView vc = as_blas(c_obj, "c", true);
  const int64_t m = c_obj.shape(0), n = c_obj.shape(1), k = a_obj.shape(1);
  check_gemm_shapes(a_obj.shape(0), k, b_obj.shape(0), b_obj.shape(1), m, n);
  const auto* a = static_cast<const float*>(a_obj.data());
  const auto* b = static_cast<const float*>(b_obj.data());
  auto* c = static_cast<float*>(c_obj.mutable_data());
  py::gil_scoped_release release;
  blas_gemm(va, a, vb, b, vc, m, n, k,
            [&](ktune::Trans ta, ktune::Trans tb, int64_t rows, int64_t cols, int64_t depth,
                const float* x, int64_t ldx, const float* y, int64_t ldy) {
              ktune::gemm(ta, tb, rows, cols, depth, alpha, x, ldx, y, ldy, beta, c, vc.ld);
            });
}

// The C++ call alone, `reps` times on tiny fixed operands: the baseline the Python per-call
// overhead is measured against (python/tests/test_gemm.py). Returns seconds per call.
double gemm_cpp_seconds_per_call(int64_t size, int64_t reps) {
  if (size < 1 || reps < 1) throw std::invalid_argument("size and reps: need >= 1");
  std::vector<float> a(size * size, 1.0f), b(size * size, 1.0f), c(size * size, 0.0f);
  py::gil_scoped_release release;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < reps; ++i)
    ktune::gemm(ktune::Trans::no, ktune::Trans::no, size, size, size, 1.0f, a.data(), size,
                b.data(), size, 0.0f, c.data(), size);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return took.count() / static_cast<double>(reps);
}

}  // namespace

void bind_gemm(py::module_& m) {
  // ktune::GemmError and invalid_argument -> ValueError (the pybind11 default).
  m.def("gemm", &gemm, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("alpha") = 1.0f,
        py::arg("beta") = 0.0f);
  m.def("gemm_cpp_seconds_per_call", &gemm_cpp_seconds_per_call, py::arg("size"), py::arg("reps"));
  m.def("tuned_gemm_info", [] { return tuned_info_dict(tuned_gemm_info_cpu()); });
}

}  // namespace ktune::python
