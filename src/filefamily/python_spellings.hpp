#pragma once
// Python's spellings of operators for muparser, as tuning-problem files write conditions and
// sizes (Kernel Tuner, KTT): %, // (floor division), ** (power), and, or, not, True, False,
// ceil() and floor(). Header-only and free of ktune: ktune reads expressions with it, and
// `ktune deploy` copies it into a file family's library, which evaluates the file's scalar values
// and launch sizes with it at run time, so both read an expression the same way.
#include <muParser.h>

#include <cmath>

namespace ktune_python_spellings {

inline double modulo(double a, double b) { return std::fmod(a, b); }
inline double floor_divide(double a, double b) { return std::floor(a / b); }
inline double power(double a, double b) { return std::pow(a, b); }
inline double logical_and(double a, double b) { return (a != 0 && b != 0) ? 1 : 0; }
inline double logical_or(double a, double b) { return (a != 0 || b != 0) ? 1 : 0; }
inline double logical_not(double a) { return a == 0 ? 1 : 0; }
inline double ceiling(double a) { return std::ceil(a); }
inline double floor_of(double a) { return std::floor(a); }

// Throws mu::Parser::exception_type as muparser does.
inline void add_python_spellings(mu::Parser& parser) {
  // Letters may form operators (and, or, not) as well as names; muparser tells them apart by
  // position (an operator where a value has just ended, a name elsewhere).
  const char* operator_chars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+-*^/?<>=#!$%&|~'_{}";
  parser.DefineOprtChars(operator_chars);
  parser.DefineInfixOprtChars(operator_chars);
  parser.DefineOprt("%", modulo, mu::prMUL_DIV, mu::oaLEFT, true);
  parser.DefineOprt("//", floor_divide, mu::prMUL_DIV, mu::oaLEFT, true);
  parser.DefineOprt("**", power, mu::prPOW, mu::oaRIGHT, true);
  parser.DefineOprt("and", logical_and, mu::prLAND, mu::oaLEFT, true);
  parser.DefineOprt("or", logical_or, mu::prLOR, mu::oaLEFT, true);
  parser.DefineInfixOprt("not", logical_not, mu::prINFIX);
  parser.DefineFun("ceil", ceiling);  // grid sizes: ceil(n / block_size_x)
  parser.DefineFun("floor", floor_of);
  parser.DefineConst("True", 1);
  parser.DefineConst("False", 0);
}

}  // namespace ktune_python_spellings
