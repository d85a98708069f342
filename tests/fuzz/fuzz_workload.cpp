// libFuzzer harness: workload CSV text (what `bench --workload FILE` parses after reading the
// file) for the gemm, stencil and conv2d families. The text is parsed directly,
// not through a file: load_workload only adds the read (tested in tests/core), and a file
// per input would cost more than the parse.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/problem.hpp"
#include "ktune/workload.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ktune::register_builtin();  // once: the families and their feature names
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"gemm", "stencil", "conv2d"}) {
    const ktune::Family* family = ktune::find_registered_family(name);
    if (!family) __builtin_trap();  // registered by LLVMFuzzerInitialize
    try {
      const auto problems =
          ktune::merge_tagged({{"", ktune::parse_workload_csv(*family, text, "fuzz.csv")}});
      if (problems.empty()) __builtin_trap();  // an empty workload must be an error
      // The store keys problems by key(): it must read back to the same problem.
      for (const auto& p : problems)
        if (ktune::Problem::parse(p.key()).key() != p.key()) __builtin_trap();
    } catch (const ktune::Error&) {
    }
  }
  return 0;
}
