// muparser with Python's operator spellings added (expression.hpp).
#include "src/filefamily/expression.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <cmath>

#include "ktune/error.hpp"

namespace ktune::filefamily {
namespace {

double modulo(double a, double b) { return std::fmod(a, b); }
double floor_divide(double a, double b) { return std::floor(a / b); }
double power(double a, double b) { return std::pow(a, b); }
double logical_and(double a, double b) { return (a != 0 && b != 0) ? 1 : 0; }
double logical_or(double a, double b) { return (a != 0 || b != 0) ? 1 : 0; }
double logical_not(double a) { return a == 0 ? 1 : 0; }
double ceiling(double a) { return std::ceil(a); }
double floor_of(double a) { return std::floor(a); }

// Letters may form operators (and, or, not) as well as names; muparser tells them apart by
// position (an operator where a value has just ended, a name elsewhere).
constexpr const char* kOperatorChars =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+-*^/?<>=#!$%&|~'_{}";

}  // namespace

Expression::Expression(const std::string& text, const std::vector<std::string>& variables)
    : text_(text),
      parser_(std::make_unique<mu::Parser>()),
      slots_(std::make_unique<std::vector<double>>(variables.size(), 1.0)),
      mutex_(std::make_unique<std::mutex>()) {
  try {
    parser_->DefineOprtChars(kOperatorChars);
    parser_->DefineInfixOprtChars(kOperatorChars);
    parser_->DefineOprt("%", modulo, mu::prMUL_DIV, mu::oaLEFT, true);
    parser_->DefineOprt("//", floor_divide, mu::prMUL_DIV, mu::oaLEFT, true);
    parser_->DefineOprt("**", power, mu::prPOW, mu::oaRIGHT, true);
    parser_->DefineOprt("and", logical_and, mu::prLAND, mu::oaLEFT, true);
    parser_->DefineOprt("or", logical_or, mu::prLOR, mu::oaLEFT, true);
    parser_->DefineInfixOprt("not", logical_not, mu::prINFIX);
    parser_->DefineFun("ceil", ceiling);  // grid sizes: ceil(n / block_size_x)
    parser_->DefineFun("floor", floor_of);
    parser_->DefineConst("True", 1);
    parser_->DefineConst("False", 0);
    for (size_t i = 0; i < variables.size(); ++i) parser_->DefineVar(variables[i], &(*slots_)[i]);
    parser_->SetExpr(text);
    parser_->Eval();  // parses now, so that a bad expression fails when the file is read
  } catch (const mu::Parser::exception_type& e) {
    throw Error(fmt::format("'{}': {}", text, e.GetMsg()));
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::eval(const std::vector<double>& values) const {
  std::lock_guard lock(*mutex_);
  if (values.size() != slots_->size())
    throw Error(
        fmt::format("'{}': {} values for {} variables", text_, values.size(), slots_->size()));
  std::copy(values.begin(), values.end(), slots_->begin());  // the addresses muparser holds
  try {
    return parser_->Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw Error(fmt::format("'{}': {}", text_, e.GetMsg()));
  }
}

}  // namespace ktune::filefamily
