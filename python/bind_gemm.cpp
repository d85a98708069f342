// ktune.gemm: ktune::gemm of the shipped CPU tuned library on numpy float32 arrays. Strides
// map onto BLAS arguments (a C-contiguous row-major matrix is the column-major transpose), so
// C-contiguous arrays and their transposed views run without a copy.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <chrono>
#include <ktune/gemm.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "python/bindings.hpp"

namespace py = pybind11;

namespace ktune::python {

namespace {

// A 2-D float32 operand as column-major storage: `trans` says whether the column-major matrix
// at data() with leading dimension `ld` is the array itself (Trans::no) or its transpose.
struct Operand {
  ktune::Trans trans;
  int64_t ld;
};

Operand as_blas(const py::array& x, const char* name, bool writable) {
  if (x.ndim() != 2)
    throw std::invalid_argument(std::string(name) + ": needs a 2-D array, got " +
                                std::to_string(x.ndim()) + "-D");
  if (writable && !x.writeable()) throw std::invalid_argument(std::string(name) + ": read-only");
  const auto item = static_cast<py::ssize_t>(sizeof(float));
  const py::ssize_t rows = x.shape(0), cols = x.shape(1);
  const py::ssize_t s0 = x.strides(0), s1 = x.strides(1);
  if (rows == 0 || cols == 0) return {ktune::Trans::no, std::max<py::ssize_t>(rows, 1)};  // no data
  // Column-major view (unit row stride): the array itself. Row-major view: its transpose.
  if ((s0 == item || rows <= 1) && s1 % item == 0 && s1 / item >= std::max<py::ssize_t>(rows, 1))
    return {ktune::Trans::no, s1 / item};
  if ((s1 == item || cols <= 1) && s0 % item == 0 && s0 / item >= std::max<py::ssize_t>(cols, 1))
    return {ktune::Trans::yes, s0 / item};
  throw std::invalid_argument(std::string(name) +
                              ": needs unit stride in one dimension (a C- or Fortran-ordered "
                              "float32 matrix or a transposed view of one)");
}

// C = alpha * A @ B + beta * C, all numpy 2-D float32. Row-major thinking: C is (m, n).
void gemm(const py::array& a_obj, const py::array& b_obj, py::array c_obj, float alpha,
          float beta) {
  for (const auto& [x, name] :
       {std::pair<const py::array*, const char*>{&a_obj, "a"}, {&b_obj, "b"}, {&c_obj, "c"}})
    if (!x->dtype().is(py::dtype::of<float>()))
      throw std::invalid_argument(std::string(name) + ": needs dtype float32, got " +
                                  std::string(py::str(x->dtype())));
  const Operand oa = as_blas(a_obj, "a", false), ob = as_blas(b_obj, "b", false);
  const Operand oc = as_blas(c_obj, "c", true);
  const int64_t m = c_obj.shape(0), n = c_obj.shape(1), k = a_obj.shape(1);
  if (a_obj.shape(0) != m || b_obj.shape(1) != n || b_obj.shape(0) != k)
    throw std::invalid_argument("a @ b: shapes (" + std::to_string(a_obj.shape(0)) + ", " +
                                std::to_string(k) + ") @ (" + std::to_string(b_obj.shape(0)) +
                                ", " + std::to_string(b_obj.shape(1)) + ") do not give c's (" +
                                std::to_string(m) + ", " + std::to_string(n) + ")");
  const auto* a = static_cast<const float*>(a_obj.data());
  const auto* b = static_cast<const float*>(b_obj.data());
  auto* c = static_cast<float*>(c_obj.mutable_data());
  const auto flip = [](ktune::Trans t) {
    return t == ktune::Trans::no ? ktune::Trans::yes : ktune::Trans::no;
  };
  py::gil_scoped_release release;
  if (oc.trans == ktune::Trans::no) {
    // C column-major (m x n): C = op(A) op(B) with A, B as stored.
    ktune::gemm(oa.trans, ob.trans, m, n, k, alpha, a, oa.ld, b, ob.ld, beta, c, oc.ld);
  } else {
    // C row-major: its column-major view is C^T (n x m) = B^T A^T.
    ktune::gemm(flip(ob.trans), flip(oa.trans), n, m, k, alpha, b, ob.ld, a, oa.ld, beta, c, oc.ld);
  }
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
