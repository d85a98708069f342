// libFuzzer harness: the T4 reader, and the writer on what it read: whatever parses must
// export (or be refused with an Error) and read back to as many rows.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"

namespace {

void round_trip(std::string_view text, const ktune::T4ImportOptions& options) {
  std::vector<ktune::Measurement> ms;
  try {
    ms = ktune::parse_t4(text, "fuzz.json", options);
  } catch (const ktune::Error&) {
    return;
  }
  std::string exported;
  try {
    exported = ktune::format_t4(ms);
  } catch (const ktune::Error&) {
    return;  // e.g. a value that overflowed to infinity in unit conversion: JSON cannot hold it
  }
  if (ktune::parse_t4(exported, "exported.json").size() != ms.size()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  round_trip(text, {});
  ktune::T4ImportOptions labelled;
  labelled.device = "fuzz-gpu";
  labelled.family = "fuzz";
  round_trip(text, labelled);
  return 0;
}
