#pragma once
// The conv2d space is a union of kinds built in a fixed order (kernels/conv2d/conv2d_family.cpp):
//   1. add_cpu_kinds   (kernels/conv2d/conv2d_kinds_cpu.cpp):  cpu_direct, cpu_im2col,
//                      cpu_gemm1x1, cpu_winograd
//   2. add_cuda_kinds  (kernels/conv2d/conv2d_kinds_cuda.cpp): the CUDA kinds
//   3. add_cpu_plan_kinds (kernels/conv2d/conv2d_kinds_cpu.cpp): cpu_plan, cpu_plan_fused
//   4. add_cuda_wgmma_kinds (kernels/conv2d/conv2d_kinds_cuda.cpp): cuda_igemm_wgmma
//   5. add_cpu_plan_tpad_kinds (kernels/conv2d/conv2d_kinds_cpu.cpp): cpu_plan_tpad
//   6. add_cuda_wgmma_persist_kinds (kernels/conv2d/conv2d_kinds_cuda.cpp):
//      cuda_igemm_wgmma_persist
//   7. add_cpu_plan_1x1_kinds (kernels/conv2d/conv2d_kinds_cpu.cpp): cpu_plan_1x1
// Config ids are kind offsets plus mixed-radix indices, so a kind is never removed, reordered or
// given new param values once measured; new kinds are appended by a later call. Kind names carry
// their backend (cpu_..., cuda_...) because the CPU and CUDA kernels of one idea have different
// params; each backend's implements() accepts its own kinds only.
#include <vector>

#include "ktune/space.hpp"

namespace ktune::kernels::conv2d {

void add_cpu_kinds(std::vector<SpaceKind>& kinds);
void add_cuda_kinds(std::vector<SpaceKind>& kinds);
void add_cpu_plan_kinds(std::vector<SpaceKind>& kinds);
void add_cuda_wgmma_kinds(std::vector<SpaceKind>& kinds);
void add_cpu_plan_tpad_kinds(std::vector<SpaceKind>& kinds);
void add_cuda_wgmma_persist_kinds(std::vector<SpaceKind>& kinds);
void add_cpu_plan_1x1_kinds(std::vector<SpaceKind>& kinds);

// Whether a kind (by name) is one of add_cpu_kinds' kinds.
bool is_cpu_kind(const std::string& name);

}  // namespace ktune::kernels::conv2d
