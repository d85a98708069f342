#include "apps/ktune/verb_output.hpp"

#include <cstdio>

#include "ktune/gzip_io.hpp"

namespace ktune::cli {

void write_output(const std::string& path, std::string_view text) {
  write_text_file(path, text);
  std::fprintf(stderr, "ktune: wrote %s\n", path.c_str());
}

void write_output_or_print(const std::string& path, std::string_view text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  write_output(path, text);
}

}  // namespace ktune::cli
