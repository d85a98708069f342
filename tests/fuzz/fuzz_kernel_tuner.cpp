// libFuzzer harness: the Kernel Tuner cache reader (closed and unclosed files, failure
// markers, objectives); then the T4 export of what it read.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ktune::KernelTunerImportOptions by_gflops;
  by_gflops.objective.name = "GFLOP/s";
  for (const auto& options : {ktune::KernelTunerImportOptions{}, by_gflops}) {
    try {
      const auto ms = ktune::parse_kernel_tuner(text, "fuzz.json", options);
      const auto back = ktune::parse_t4(ktune::format_t4(ms), "exported.json");
      if (back.size() != ms.size()) __builtin_trap();
    } catch (const ktune::Error&) {
    }
  }
  return 0;
}
