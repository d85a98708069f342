// A worker process of the CUDA tune-and-remember test: serves shapes 0 .. count-1
// (remember_cuda_case.hpp's worker_case) through ktune::gemm_ex with the cache the environment
// names (KTUNE_REMEMBER), and writes "shape hash" per line (the FNV-1a of C's bytes), or "off".
#include <fstream>

#include "tests/gpu_vendor_tc/remember_cuda_case.hpp"
#include "tests/remember/remember_test_util.hpp"

int main(int argc, char** argv) {
  long count = 0;
  std::ofstream out;
  if (const int code = ktune_test::worker_start(argc, argv, count, out); code >= 0) return code;
  for (long s = 0; s < count; ++s) {
    ktune::test::DeviceCase d = ktune::test::worker_case(int(s));
    const auto c =
        ktune::test::run_bytes(d, ktune::GemmPrecision::bf16, ktune::GemmOutput::bf16, -1, 1, 0);
    ktune::test::free_case(d);
    if (c.empty()) return 1;
    out << s << ' ' << ktune::test::fnv1a(c) << '\n';
  }
  return out ? 0 : 1;
}
