#include "kernels/gemm/cpu/openblas_core.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <sstream>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/common/gemm_shape.hpp"
#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"

namespace ktune::kernels::gemm::cpu {
namespace {

// OpenBLAS's x86-64 cores by the width of their kernels (0: SSE-era, the generic fallbacks).
int openblas_core_width(const std::string& core) {
  static const std::pair<const char*, int> kWidths[] = {
      {"SapphireRapids", 5}, {"Cooperlake", 4}, {"SkylakeX", 3},
      {"Haswell", 2},        {"Zen", 2},        {"Sandybridge", 1},
      {"Bulldozer", 1},      {"Piledriver", 1}, {"Steamroller", 1},
      {"Excavator", 1}};
  for (const auto& [name, width] : kWidths)
    if (core == name) return width;
  return 0;
}

struct OpenblasCoreCandidate {
  const char* core;
  std::initializer_list<const char*> flags;  // /proc/cpuinfo names its kernels need
};
const OpenblasCoreCandidate kOpenblasCoreCandidates[] = {
    // best first
    {"SapphireRapids",
     {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16", "amx_tile", "amx_bf16"}},
    {"Cooperlake", {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16"}},
    {"SkylakeX", {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}},
    {"Haswell", {"avx2", "fma"}},
    {"Sandybridge", {"avx"}},
};

}  // namespace

std::set<std::string> cpu_flags(std::istream& cpuinfo) {
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0 || line.find(':') == std::string::npos) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

std::vector<std::string> openblas_cores_to_try(const std::string& native,
                                               const std::set<std::string>& flags) {
  std::vector<std::string> cores;
  for (const auto& c : kOpenblasCoreCandidates) {
    const bool supported = std::all_of(c.flags.begin(), c.flags.end(),
                                       [&](const char* f) { return flags.count(f) > 0; });
    if (supported && openblas_core_width(c.core) > openblas_core_width(native))
      cores.emplace_back(c.core);
  }
  return cores;
}

CoreCheck check_gemm_against_float64(const std::function<void(const Args&)>& gemm) {
  double worst = 0;
  for (int t = 0; t < 4; ++t) {
    Shape s;
    s.transa = t & 2, s.transb = t & 1;
    s.m = 67, s.n = 45, s.k = 131, s.batch = 2;  // past every micro-kernel tile, odd edges
    s.lda = (s.transa ? s.k : s.m) + 3;
    s.ldb = (s.transb ? s.n : s.k) + 1;
    s.ldc = s.m + 2;
    const auto a = random_matrix(size_t(s.stride_a() * s.batch), 11 + uint64_t(t));
    const auto b = random_matrix(size_t(s.stride_b() * s.batch), 23 + uint64_t(t));
    auto c = random_matrix(size_t(s.stride_c() * s.batch), 37 + uint64_t(t));
    const float alpha = 0.75f, beta = -0.5f;
    const auto ref = reference_gemm(s, a.data(), b.data(), alpha, beta, c.data());
    Args g = shape_args(s, alpha, beta);
    g.a = a.data(), g.b = b.data(), g.c = c.data();
    gemm(g);
    const double error = relative_error(s, c.data(), ref);
    if (!(error <= error_bound(s.k)))
      return {false, fmt::format("transa={} transb={} {}x{}x{} batch {}: relative error {:.3g} "
                                 "beyond the bound {:.3g}",
                                 int(s.transa), int(s.transb), s.m, s.n, s.k, s.batch, error,
                                 error_bound(s.k))};
    worst = std::max(worst, error);
  }
  return {true, fmt::format("max relative error {:.3g}", worst)};
}

}  // namespace ktune::kernels::gemm::cpu
