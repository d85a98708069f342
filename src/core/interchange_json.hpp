#pragma once
// What the JSON importers (T4, Kernel Tuner) share: bounded parsing, checked reads of numbers
// that must fit their field, config strings from JSON parameter values, and how a declared
// objective becomes ktune's higher-is-better perf. Internal to ktune_core.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune::interchange {

using Json = nlohmann::ordered_json;  // keeps parameter order, which config strings need

// Depth-checked parse; errors name the source.
Json parse_json(std::string_view text, const std::string& source);

// The member, or nullptr when obj is not an object or has no such key (never the UB of a
// const operator[] on a missing key).
const Json* member(const Json& obj, const char* key);
// The member's string, or "" when absent or not a string.
std::string string_member(const Json& obj, const char* key);

// An integral JSON number within [lo, hi]; anything else (a float, 1e300, a string) is an
// Error naming `what`.
int64_t checked_integer(const Json& v, int64_t lo, int64_t hi, const std::string& what);

// A parameter value as config text: strings as they are, 16.0 as "16", anything else as its
// JSON spelling (0.0001 as "0.0001").
std::string text_of(const Json& v);
// "name=value;..." from (name, value) pairs in order.
std::string config_string(const std::vector<std::pair<std::string, const Json*>>& params);

// Milliseconds per unit of a T4 metadata.timeunit ("milliseconds", the public datasets'
// "miliseconds", "seconds", "microseconds", "nanoseconds" and their abbreviations).
double ms_per_unit(const Json& unit, const std::string& source);

// Throws Error naming `where` unless every runtime is a positive finite number of ms.
void check_runtimes(const std::vector<double>& runtimes_ms, const std::string& where);

// Fills status ok, timing statistics and perf of m from its runtimes (ms) and its objective's
// value: for "time" perf = 1/median of the runtimes (the value itself as one sample when there
// are none); otherwise perf = value (higher is better) or 1/value. Throws Error naming `where`
// when the value cannot rank (absent, not positive, not finite).
void set_ok_outcome(Measurement& m, std::vector<double> runtimes_ms, const std::string& objective,
                    bool higher_is_better, double value, const std::string& where);

}  // namespace ktune::interchange
