#pragma once
// How the verbs hand over a text output: written to the file the user named, which stderr then
// names (stdout stays the data's), or printed on stdout when no file was named.
#include <string>
#include <string_view>

namespace ktune::cli {

// Writes text to path and says so on stderr.
void write_output(const std::string& path, std::string_view text);

// write_output, or text on stdout when path is empty (or "-").
void write_output_or_print(const std::string& path, std::string_view text);

}  // namespace ktune::cli
