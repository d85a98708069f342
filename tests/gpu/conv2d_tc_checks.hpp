#pragma once
// What the tests of the conv2d family's tensor-core kinds (cuda_igemm_mma, cuda_igemm_wgmma)
// share: the family with its CUDA backends, a kind's configs read from the space, and the check
// that every config of the kind verifies on every layer in its precisions (tf32, bf16, fp16)
// through the sweep's sessions (float64 reference, the family's per-precision bound); and what
// the tests of ktune::conv2d_ex share: the data as the kernels read it, the vendor candidates of
// a shipped selector.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::conv2d::cuda::test {

inline const Family& conv2d_family() {
  register_builtin();
  register_cuda_backends();
  return find_family("conv2d");
}

inline std::vector<Config> kind_configs(const Family& fam, const std::string& kind) {
  std::vector<Config> configs;
  for (const Config& c : fam.space().enumerate())
    if (fam.space().kind_name(c) == kind) configs.push_back(c);
  return configs;
}

inline Shape in_precision(Shape s, gemm::Precision p) {
  s.precision = p;
  return s;
}

// `values` on the device as a tensor-core kernel of precision p reads them: their 16-bit bits
// (bf16 / fp16, rounded to nearest even) or, in tf32, the floats themselves.
inline ktune::cuda::DeviceBuffer<unsigned char> upload_as_read(const std::vector<float>& values,
                                                               gemm::Precision p,
                                                               const std::string& what) {
  const std::vector<uint16_t> bits = gemm::to_input_bits(values, p);  // empty for tf32
  const void* host = bits.empty() ? static_cast<const void*>(values.data()) : bits.data();
  ktune::cuda::DeviceBuffer<unsigned char> buffer(values.size() * size_t(gemm::input_bytes(p)),
                                                  what);
  ktune::cuda::check(cudaMemcpy(buffer.data(), host, buffer.bytes(), cudaMemcpyHostToDevice),
                     "cudaMemcpy(" + what + ")");
  return buffer;
}

// A shipped config that is a vendor call ("vendor=cudnn"), not one of ktune's kernels.
inline bool is_vendor(const char* config) { return std::string(config).rfind("vendor=", 0) == 0; }

// The index of conv2d_ex's shipped "vendor=cudnn" config in precision p (-1: none).
inline int cudnn_index(ktune::Conv2dPrecision p) {
  const auto& info = ktune::tuned_conv2d_ex_info_cuda(p);
  for (int i = 0; i < info.num_configs; ++i)
    if (std::string(info.configs[i]) == "vendor=cudnn") return i;
  return -1;
}

// Runs every config once on every layer in each of `precisions` (a fatal failure ends the check):
// each must run (or be refused where `may_refuse(config, shape)` says so, and then never run),
// stay within error_bound and not be exact (rounded inputs cannot be); the worst relative error
// per precision goes to `worst`.
using MayRefuse = std::function<bool(const Config&, const Shape&)>;
inline void verify_every_config(const Family& fam, Backend& backend,
                                const std::vector<Config>& configs,
                                const std::vector<Shape>& layers,
                                const std::vector<gemm::Precision>& precisions,
                                std::map<gemm::Precision, double>& worst,
                                const MayRefuse& may_refuse = {}) {
  TimingPolicy once;
  once.warmups = 0, once.min_reps = 1, once.max_reps = 1, once.budget_ms = 0;
  for (gemm::Precision precision : precisions) {
    for (const Shape& layer : layers) {
      const Shape s = in_precision(layer, precision);
      const Problem problem = problem_of(s);
      auto session = backend.open(problem);
      for (const Config& c : configs) {
        const Outcome o = session->run(c, once);
        const std::string where = fam.space().to_string(c) + " on " + problem.key();
        if (may_refuse && may_refuse(c, s)) {
          EXPECT_EQ(o.status, Status::refused) << where << ": " << o.message;
          continue;
        }
        ASSERT_EQ(o.status, Status::ok) << where << ": " << o.message;
        EXPECT_LE(o.rel_error, error_bound(s)) << where;
        EXPECT_GT(o.rel_error, 0.0) << where << ": rounded inputs cannot be exact";
        worst[precision] = std::max(worst[precision], o.rel_error);
      }
    }
  }
}

inline void verify_every_config_in_16_bit(const Family& fam, Backend& backend,
                                          const std::vector<Config>& configs,
                                          const std::vector<Shape>& layers,
                                          std::map<gemm::Precision, double>& worst) {
  verify_every_config(fam, backend, configs, layers, {gemm::Precision::bf16, gemm::Precision::fp16},
                      worst);
}

}  // namespace ktune::kernels::conv2d::cuda::test
