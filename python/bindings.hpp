#pragma once
// The parts of the compiled module _ktune (python/bindings.cpp), one file each, and what the
// module _ktune_cuda (bind_cuda.cpp) shares with them.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>

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

// What ktune.conv2d checks before the library does (numpy and CUDA tensors alike): the filter's
// input channels against the input's, and the stride.
inline void check_conv2d_args(int64_t input_channels, int64_t filter_channels, int64_t stride) {
  if (filter_channels != input_channels)
    throw std::invalid_argument("filter: has " + std::to_string(filter_channels) +
                                " input channels, input has " + std::to_string(input_channels));
  if (stride < 1) throw std::invalid_argument("stride: needs >= 1");
}

}  // namespace ktune::python
