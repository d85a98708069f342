#pragma once
// The parts of the compiled module _ktune (python/bindings.cpp), one file each.
#include <pybind11/pybind11.h>

namespace ktune::python {

void bind_gemm(pybind11::module_& m);      // bind_gemm.cpp: ktune.gemm on numpy / DLPack
void bind_pipeline(pybind11::module_& m);  // bind_pipeline.cpp: the CLI verbs, stores, datasets
void bind_nn(pybind11::module_& m);        // bind_nn.cpp: conv2d, ONNX models on the engine

// What a shipped tuned library holds (TunedGemmInfo, TunedConv2dInfo) as a dict.
template <typename Info>
pybind11::dict tuned_info_dict(const Info& info) {
  pybind11::list configs;
  for (int i = 0; i < info.num_configs; ++i) configs.append(info.configs[i]);
  pybind11::dict d;
  d["backend"] = info.backend;
  d["configs"] = configs;
  d["baseline"] = info.baseline;
  return d;
}

}  // namespace ktune::python
