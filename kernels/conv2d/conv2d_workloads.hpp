#pragma once
// The conv2d built-in workloads (embedded from workloads/conv2d/, see workloads/README.md):
//   vgg16-conv     the 9 distinct conv layers of VGG16 at 224x224, batch 1 and 16 (18 problems)
//   resnet50-conv  the 24 distinct conv layers of ResNet-50 as the seed paper lists them, batch 1
//                  and 16 (48 problems)
//   dnn            both networks (the problems' tags name their networks)
//   conv-small     12 layers of both at batch 1 (2.8 GFLOP): CPU sweeps
//   tiny           small odd shapes covering strides, padding, 1x1, 3x3 and c, k not multiples
//                  of the vector widths: tests
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_family.hpp"
#include "ktune/problem.hpp"

namespace ktune::kernels::conv2d {

// One layer of a workload with its provenance (network and layer names as in the source CSV).
struct Layer {
  std::string network;  // "vgg16", "resnet50", "tiny"
  std::string layer;    // "conv1_1"
  int count = 1;        // how many of the network's layers have this shape (VGG16's CSV has it)
  Shape shape;
};

std::vector<std::string> builtin_workload_names();
// The layers of a built-in workload, in file order, batches 1 then 16 for the networks; empty
// for unknown names.
std::vector<Layer> workload_layers(const std::string& name);
// The distinct problems of a built-in workload (tags: networks); empty for unknown names.
std::vector<Problem> builtin_workload(const std::string& name);

}  // namespace ktune::kernels::conv2d
