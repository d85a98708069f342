// The conv2d family's registration entry (called by the generated family list) and its
// built-in workloads.
#include <memory>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"

namespace ktune::kernels::conv2d {

void register_cpu_backend();  // kernels/conv2d/cpu/conv2d_cpu_backend.cpp

namespace {
// The networks and the test shapes run per tensor-core precision too: "vgg16-conv@bf16" is
// vgg16-conv with every problem in bf16 (conv-small stays FP32: the CPU kernels are FP32 only).
const char* const kPrecisionWorkloads[] = {"vgg16-conv", "resnet50-conv", "dnn", "tiny"};
const gemm::Precision kTensorPrecisions[] = {gemm::Precision::tf32, gemm::Precision::bf16,
                                             gemm::Precision::fp16};
}  // namespace

std::vector<std::string> Conv2dFamily::builtin_workloads() const {
  std::vector<std::string> names = conv2d::builtin_workload_names();
  for (const char* base : kPrecisionWorkloads)
    for (gemm::Precision p : kTensorPrecisions)
      names.push_back(std::string(base) + "@" + gemm::precision_name(p));
  return names;
}

Workload Conv2dFamily::builtin_workload(const std::string& name) const {
  const size_t at = name.find('@');
  if (at == std::string::npos) return {name, conv2d::builtin_workload(name)};
  Workload w = builtin_workload(name.substr(0, at));
  if (!w.problems.empty())
    w.problems = workload_variant(std::move(w.problems), name.substr(at + 1));
  w.name = name;
  return w;
}

std::vector<Problem> Conv2dFamily::workload_variant(std::vector<Problem> problems,
                                                    const std::string& variant) const {
  const gemm::Precision precision = parse_precision(variant);
  for (Problem& p : problems) p = with_precision(p, precision);
  return problems;
}

}  // namespace ktune::kernels::conv2d

KTUNE_FAMILY_ENTRY(conv2d) {
  ktune::register_family(std::make_unique<ktune::kernels::conv2d::Conv2dFamily>());
  ktune::kernels::conv2d::register_cpu_backend();
}
