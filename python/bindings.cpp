// _ktune: the compiled half of the Python package `ktune` (python/ktune/__init__.py wraps it).
// Thin bindings over the public C++ API and the CLI's own verbs (apps/ktune/run.hpp).
#include "python/bindings.hpp"

#include "ktune/error.hpp"

PYBIND11_MODULE(_ktune, m) {
  m.doc() = "Compiled bindings of ktune (use the package `ktune`).";
  // ktune::Error (every one-line message of the pipeline) -> ktune.Error, a RuntimeError;
  // std::invalid_argument (bad arguments) -> ValueError, other std::runtime_error ->
  // RuntimeError: pybind11's defaults.
  pybind11::register_exception<ktune::Error>(m, "Error", PyExc_RuntimeError);
  ktune::python::bind_gemm(m);
  ktune::python::bind_pipeline(m);
  ktune::python::bind_nn(m);
}
