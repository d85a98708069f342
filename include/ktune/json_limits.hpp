#pragma once
// Guards for JSON read from files: nlohmann_json parses, dumps and destroys values
// recursively, so a deeply nested file (e.g. 100,000 '[') would overflow the stack.
#include <string>
#include <string_view>

namespace ktune {

// Deeper than any tuning file, model or metadata block needs.
inline constexpr int kMaxJsonDepth = 64;

// Throws Error "<source>: JSON nested deeper than N levels" when an array/object nests deeper
// than max_depth; strings (with their escapes) are skipped. Cheap: one pass over the text.
void check_json_depth(std::string_view text, const std::string& source,
                      int max_depth = kMaxJsonDepth);

}  // namespace ktune
