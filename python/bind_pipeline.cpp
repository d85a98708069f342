// The pipeline from Python: the CLI's verbs run in this process through the same parsing and
// code as the `ktune` executable (apps/ktune/run.hpp), and stores / datasets read by the loaders
// the verbs use, handed over as numpy arrays.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "apps/ktune/run.hpp"
#include "ktune/dataset.hpp"
#include "ktune/device.hpp"
#include "ktune/interchange.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace ktune::python {

namespace {

// `ktune args...`. A command line CLI11 refuses raises ValueError with CLI11's one line (it names
// the option); --help prints the help and returns 0. The GIL is released while the verb runs.
int run_verb(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"ktune"};
  for (const auto& arg : args) argv.push_back(arg.c_str());
  const auto on_parse_error = [](const CLI::App& app, const CLI::ParseError& e) -> int {
    if (e.get_exit_code() == 0) {  // --help
      py::gil_scoped_acquire gil;
      py::print(app.help());
      return 0;
    }
    throw std::invalid_argument(e.what());
  };
  py::gil_scoped_release release;
  return cli::run(static_cast<int>(argv.size()), argv.data(), on_parse_error);
}

// {verb: {"--option": takes_value}} for the Python wrapper's keyword checks.
py::dict verb_options() {
  py::dict out;
  for (const auto& [verb, options] : cli::verb_options()) {
    py::dict names;
    for (const auto& [name, takes_value] : options) names[py::str(name)] = takes_value;
    out[py::str(verb)] = names;
  }
  return out;
}

template <typename T, typename Get>
py::array_t<T> column(const std::vector<Measurement>& ms, Get get) {
  py::array_t<T> out(static_cast<py::ssize_t>(ms.size()));
  auto view = out.template mutable_unchecked<1>();
  for (size_t i = 0; i < ms.size(); ++i) view(static_cast<py::ssize_t>(i)) = get(ms[i]);
  return out;
}

template <typename Get>
py::list text_column(const std::vector<Measurement>& ms, Get get) {
  py::list out(ms.size());
  for (size_t i = 0; i < ms.size(); ++i) out[i] = py::str(get(ms[i]));
  return out;
}

// One row per stored measurement, as columns (the wrapper makes the text ones numpy arrays).
py::dict open_store(const std::string& path, const std::string& device, const std::string& family) {
  const std::vector<Measurement> ms = load_measurements(path, device, family);
  py::dict d;
  d["device"] = text_column(ms, [](const Measurement& m) { return m.device; });
  d["family"] = text_column(ms, [](const Measurement& m) { return m.family; });
  d["problem"] = text_column(ms, [](const Measurement& m) { return m.problem; });
  d["config"] = text_column(ms, [](const Measurement& m) { return m.config; });
  d["status"] = text_column(ms, [](const Measurement& m) { return to_string(m.outcome.status); });
  d["config_id"] = column<int64_t>(ms, [](const Measurement& m) { return m.config_id; });
  d["vendor"] = column<bool>(ms, [](const Measurement& m) { return m.vendor; });
  d["median_ms"] =
      column<double>(ms, [](const Measurement& m) { return m.outcome.timing.median_ms; });
  d["min_ms"] = column<double>(ms, [](const Measurement& m) { return m.outcome.timing.min_ms; });
  d["max_ms"] = column<double>(ms, [](const Measurement& m) { return m.outcome.timing.max_ms; });
  d["mad_ms"] = column<double>(ms, [](const Measurement& m) { return m.outcome.timing.mad_ms; });
  d["reps"] = column<int64_t>(ms, [](const Measurement& m) { return m.outcome.timing.reps; });
  d["rel_error"] = column<double>(ms, [](const Measurement& m) { return m.outcome.rel_error; });
  d["perf"] = column<double>(ms, [](const Measurement& m) { return m.perf; });
  return d;
}

// The dense problems x configs view the learning verbs work on (ktune/dataset.hpp).
py::dict dataset_dict(const std::string& path, const std::string& device,
                      const std::string& family) {
  const Dataset ds = load_dataset(path, device, family);
  py::dict d;
  d["family"] = ds.family;
  d["device"] = ds.device;
  d["problem_groups"] = ds.problem_groups;
  d["work"] = ds.work;
  using Names = std::vector<std::string>;
  for (const auto& [name, names] :
       {std::pair<const char*, const Names*>{"problems", &ds.problem_keys},
        {"feature_names", &ds.feature_names},
        {"configs", &ds.config_names},
        {"config_param_names", &ds.config_param_names},
        {"vendors", &ds.vendor_names}})
    d[name] = *names;
  for (const auto& [name, matrix] :
       {std::pair<const char*, const Eigen::MatrixXd*>{"features", &ds.features},
        {"config_params", &ds.config_params},
        {"perf", &ds.perf},
        {"vendor_perf", &ds.vendor_perf}})
    d[name] = *matrix;
  d["valid"] = ds.valid;
  d["measured"] =
      ds.measured.size() == 0 ? BoolMatrix::Ones(ds.rows(), ds.cols()).eval() : ds.measured;
  return d;
}

}  // namespace

void bind_pipeline(py::module_& m) {
  m.def("run", &run_verb, py::arg("args"));
  m.def("verb_options", &verb_options);
  m.def("open_store", &open_store, py::arg("path"), py::arg("device") = "", py::arg("family") = "");
  m.def("cpu_device", [] {
    const DeviceInfo cpu = query_cpu_device();
    py::dict d;
    d["slug"] = cpu.slug;
    d["name"] = cpu.name;
    return d;
  });
  m.def("load_dataset", &dataset_dict, py::arg("path"), py::arg("device") = "",
        py::arg("family") = "");
}

}  // namespace ktune::python
