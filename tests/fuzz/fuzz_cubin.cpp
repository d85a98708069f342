// libFuzzer harness: the CUBIN register-count reader (ktune::cubin_register_count), asked for the
// kernels of the seeds (corpus/cubin: nvcc 13 cubins of two small kernels, and the unit test's
// synthetic image): a count it returns is one a thread can have (0..255).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ktune/cubin_info.hpp"
#include "ktune/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view cubin(reinterpret_cast<const char*>(data), size);
  for (const std::string_view kernel :
       {"ktune_fuzz_fill", "_Z16ktune_fuzz_scaleILi4EEvPf", "_Z6kernelPf", "other_kernel"}) {
    try {
      const int registers = ktune::cubin_register_count(cubin, kernel);
      if (registers < 0 || registers > 255) __builtin_trap();
    } catch (const ktune::Error&) {
    }
  }
  return 0;
}
