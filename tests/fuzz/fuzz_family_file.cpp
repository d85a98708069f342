// libFuzzer harness: tuning-problem files (filefamily::parse_spec, what `--family-file` parses
// after reading the file), then the family built from a file that parses: its space under the
// file's conditions and its inline workload's problems.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ktune/error.hpp"
#include "src/filefamily/file_family.hpp"
#include "src/filefamily/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ktune::filefamily::FileSpec spec;
  try {
    spec = ktune::filefamily::parse_spec(text, "fuzz.json");
  } catch (const ktune::Error&) {
    return 0;
  }
  // Every expression was checked by the parser: building the family must not fail.
  const ktune::filefamily::FileFamily family(spec);
  const ktune::Space& space = family.space();
  if (space.product_size() <= 4096) {
    const auto configs = space.enumerate();  // evaluates the conditions
    if (configs.size() > size_t(space.product_size())) __builtin_trap();
  }
  if (!spec.workload_file.empty()) return 0;  // a CSV file: fuzz_workload reads those
  try {
    for (const auto& p : family.builtin_workload("file").problems) {
      const auto extents = family.argument_extents(p);
      if (extents.size() != spec.arguments.size()) __builtin_trap();
      family.flops(p);
    }
  } catch (const ktune::Error&) {  // a size expression that is not a whole count
  }
  return 0;
}
