// Which OpenBLAS core a benchmark should force, and whether the core loaded now is correct
// (kernels/gemm/cpu/openblas_core.hpp; scripts/openblas_core.sh runs both):
//   openblas_core candidates [--native CORE] [--cpuinfo FILE]
//     the cores to try, best first, one per line (none: nothing to force); run it with
//     OPENBLAS_CORETYPE unset, or name the detected core with --native
//   openblas_core check CORE
//     OpenBLAS as loaded (OPENBLAS_CORETYPE=CORE set by the caller) checked against float64;
//     exit 0 when it runs CORE and is correct, else 1 with the reason
#include "kernels/gemm/cpu/openblas_core.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

#include "kernels/gemm/cpu/gemm_cpu_vendor_calls.hpp"

namespace cpu = ktune::kernels::gemm::cpu;

namespace {

int usage() {
  fmt::print(stderr,
             "usage: openblas_core candidates [--native CORE] [--cpuinfo FILE]\n"
             "       openblas_core check CORE\n");
  return 2;
}

int candidates(int argc, char** argv) {
  std::string native, cpuinfo = "/proc/cpuinfo";
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--native")
      native = argv[i + 1];
    else if (option == "--cpuinfo")
      cpuinfo = argv[i + 1];
    else
      return usage();
  }
  if (argc % 2 != 0) return usage();
  if (native.empty()) {
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    if (forced != nullptr && *forced != '\0') {
      fmt::print(stderr,
                 "openblas_core: OPENBLAS_CORETYPE={} is set: unset it to see the "
                 "detected core, or name it with --native\n",
                 forced);
      return 2;
    }
    native = openblas_get_corename();
  }
  std::ifstream in(cpuinfo);
  if (!in) {
    fmt::print(stderr, "openblas_core: cannot read '{}'\n", cpuinfo);
    return 2;
  }
  const auto cores = cpu::openblas_cores_to_try(native, cpu::cpu_flags(in));
  fmt::print(stderr, "openblas_core: OpenBLAS detects {}; {}\n", native,
             cores.empty() ? "nothing to force" : "cores to try: " + fmt::to_string(cores.size()));
  for (const auto& core : cores) fmt::print("{}\n", core);
  return 0;
}

int check(const std::string& core) {
  const std::string loaded = openblas_get_corename();
  if (loaded != core) {
    fmt::print("refused: {} asked, this OpenBLAS runs {} (no such core in this build)\n", core,
               loaded);
    return 1;
  }
  const auto verdict =
      cpu::check_gemm_against_float64([](const cpu::Args& g) { cpu::openblas_gemm(g); });
  fmt::print("{}: {} against float64: {}\n", verdict.ok ? "ok" : "refused", core, verdict.message);
  return verdict.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string verb = argv[1];
  if (verb == "candidates") return candidates(argc, argv);
  if (verb == "check" && argc == 3) return check(argv[2]);
  return usage();
}
