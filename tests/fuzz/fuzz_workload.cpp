// libFuzzer harness: workload files (CSV of a family's features) as `bench --workload FILE`
// reads them, for the GEMM and stencil families.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // load_workload reads a path: the input goes through a per-process file.
  static const std::string path = "/tmp/ktune_fuzz_workload_" + std::to_string(::getpid()) + ".csv";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  ktune::register_builtin();
  for (const char* family : {"gemm", "stencil"}) {
    try {
      const auto w = ktune::load_workload(ktune::find_family(family), path);
      if (w.problems.empty()) __builtin_trap();  // an empty workload must be an error
    } catch (const ktune::Error&) {
    }
  }
  return 0;
}
