// libFuzzer harness: workload CSV text (what `bench --workload FILE` parses after reading the
// file), optionally in a variant (FILE@VARIANT), for the gemm, stencil and conv2d families. The
// text is parsed directly, not through a file: load_workload only adds the read (tested in
// tests/core), and a file per input would cost more than the parse.
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
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // "@VARIANT\n" first: the rest's problems in that variant ("FILE@bf16:c=bf16"), as
  // load_workload gives them (GEMM's precisions and C types; the others have none).
  std::string variant;
  if (!text.empty() && text.front() == '@') {
    const size_t end = text.find('\n');
    variant = std::string(text.substr(1, end == std::string_view::npos ? text.size() : end - 1));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  for (const char* name : {"gemm", "stencil", "conv2d"}) {
    const ktune::Family* family = ktune::find_registered_family(name);
    if (!family) __builtin_trap();  // registered by LLVMFuzzerInitialize
    try {
      auto problems =
          ktune::merge_tagged({{"", ktune::parse_workload_csv(*family, text, "fuzz.csv")}});
      if (problems.empty()) __builtin_trap();  // an empty workload must be an error
      if (!variant.empty()) {
        problems = family->workload_variant(std::move(problems), variant);
        for (const auto& p : problems) family->validate(p);  // a variant makes valid problems
      }
      // The store keys problems by key(): it must read back to the same problem.
      for (const auto& p : problems)
        if (ktune::Problem::parse(p.key()).key() != p.key()) __builtin_trap();
    } catch (const ktune::Error&) {
    }
  }
  return 0;
}
